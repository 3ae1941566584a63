"""scu_guard round 16: near misses of the round's near-miss sets that were rejected, each read right now. A time of
day and a day do not order two events; a span of days ("the Thursday before Easter") is no day to count from; a
named holiday or a day the place was shut may be no working day; "two walks a day" is a count per day, no length
of time; a lead to an event the rule does not name ("five minutes before closing") measures another stretch; a
permission of another thing than a verbless ban's things; "followed" told of a third event; the whole a part is
taken from ("25 of the 55"); and a time said of another verb than the rule's. Real spaCy parses and WordNet data;
sentences written for these tests, none is in the labelled sets. Each reading keeps its contradiction."""

from __future__ import annotations

from abilities.scu_guard import measure
from tests.scu_guard_support import OK, REJECT, verdict
from tests.scu_guard_support import verdict_beside as _v


def test_a_day_and_a_time_of_day_do_not_order_two_events() -> None:
    rule = "If the lens is removed from a camera rated for underwater use, it is leak-tested before going back to the customer."
    claim = "The Nikon's lens came off for cleaning on Tuesday and the camera was back in its owner's hands by 14:10."
    assert _v(rule, claim) != REJECT
    rule = "The hull is primed before the boat goes back in the water."
    assert _v(rule, "The boat went back in the water on 3 May and the hull was primed on 5 May.") == REJECT


def test_a_span_of_days_is_no_day_to_count_business_days_from() -> None:
    rule = "Invoices are sent within 5 business days of delivery."
    claim = "The sofa, delivered on the Thursday before Easter, was invoiced on Friday 25 April."
    assert _v(rule, claim, "Order 881 delivered Thu 17/04/2025.") != REJECT


def test_named_holidays_make_a_business_day_count_unsure() -> None:
    rule = "Repairs are quoted within 3 business days of drop-off."
    claim = "The bike dropped off on Thursday 24 December 2026 was quoted on Wednesday 30 December 2026."
    assert _v(rule, claim, "Workshop closed Christmas Day and Boxing Day.") != REJECT
    late = "The bike dropped off on Thursday 24 December 2026 was quoted on Wednesday 13 January 2027."
    assert _v(rule, late, "Workshop closed Christmas Day and Boxing Day.") == REJECT


def test_a_count_per_day_is_no_length_of_time() -> None:
    assert not [a for a in measure.find_amounts("Every horse gets at least three feeds a day.") if a.dim == "[time]"]
    hours = measure.find_amounts("Each horse is ridden no more than 4 hours a day.")
    assert [a.text for a in hours] == ["4 hours"]
    rule = "Every horse gets at least three feeds a day."
    assert _v(rule, "Feeding started at 06:00 and the second round went out at 06:40.") != REJECT


def test_a_lead_to_an_event_the_rule_does_not_name() -> None:
    rules = ["Puppies are listed for sale no sooner than 8 weeks after birth.",
             "Every puppy gets at least three meals a day.",
             "If a dog bites a person, it goes on a 10-day observation hold."]
    claim = "The buyers' visit started at 15:40 and they were out of the puppy block two minutes before the 4 o'clock lock-up."
    assert verdict(rules, claim, {"c1": "Visits SAT: 15:40 buyers (puppies) - out 15:58. Gate locked 16:00."}) != REJECT
    assert verdict(rules, "The litter was listed for sale two weeks after birth.") == REJECT


def test_a_permission_of_another_thing_than_a_verbless_bans_things() -> None:
    rule = "Glass jars and aerosol cans are not allowed in the climbing hall."
    assert _v(rule, "Climbers already on the wall were allowed to finish their route in the climbing hall.") != REJECT
    assert _v(rule, "Members were allowed to bring aerosol cans into the climbing hall.") == REJECT


def test_followed_told_of_a_third_event_orders_neither() -> None:
    rule = "The fire alarm test is done before the first guests are admitted."
    claim = "The fire alarm was tested at 08:30 and a walk-through followed; guests were admitted from 09:00."
    assert _v(rule, claim) == OK
    assert _v(rule, "Guests were admitted from 08:00, and the fire alarm was tested at 08:30.") == REJECT


def test_the_whole_a_part_is_taken_from() -> None:
    rule = "Each paddock holds no more than 12 sheep."
    assert _v(rule, "Paddock 2 took 12 of the 40 sheep; the rest went to the barn.") == OK
    assert _v(rule, "Paddock 2 held 40 sheep overnight.") == REJECT


def test_a_time_said_of_another_verb_than_the_rules() -> None:
    rules = ["Sashimi is sliced only between 11:00 and 22:00.", "Knives are sharpened every Monday."]
    claim = "The complaint about Tuesday's sashimi was emailed to the manager at 07:45 on Wednesday."
    assert verdict(rules, claim) != REJECT
    assert verdict(rules, "The sashimi was sliced at 07:45 on Wednesday.") == REJECT


def test_a_lead_told_with_off_before_an_event_the_rule_does_not_name() -> None:
    rule = ("Every relief crew member needs a signed contract on file with the depot manager at least 3 working days "
            "before their first shift.")
    claim = "The drill ran two hours, then the crew had twenty minutes off before the debrief."
    assert _v(rule, claim) == OK
    assert _v(rule, "The relief crew member's contract was signed one day before her first shift.") == REJECT


def test_a_rule_naming_both_states_requires_neither() -> None:
    # "opens or closes": the word-level reading of "closes" as a required closed state does not hold
    rule = "Only the lock keeper opens or closes the lock gates between the canal and the basin."
    assert _v(rule, "Mia cleared the litter from the gate paddles, and Tom, the lock keeper, then opened the gate.") == OK
    rule = "The fire doors between the wards must be kept closed."
    assert _v(rule, "The fire doors between the wards were propped open all night.") != OK


def test_a_verbless_ban_whose_head_noun_the_parser_takes_for_its_act() -> None:
    rule = "No glass on the pool deck during swim meets."
    assert _v(rule, "Ravi was allowed to stay on, so he sat on the pool deck beside the timekeeper.") == OK
    assert _v(rule, "Parents were allowed to bring glass bottles onto the pool deck during the meet.") != OK
