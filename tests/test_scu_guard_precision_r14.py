"""Round 14 precision: near misses of the near-miss sets, told in new sentences of other domains.

A rule without a verb of its own forbids a thing at a place: the place alone is not the act. An age group
named by its bound ("under-12s", "over-60s") is an age, never a span of seconds, and two groups a rule keeps
apart are read as such, not as a condition that any age in the claim sets off."""

from __future__ import annotations

import pytest

from abilities.scu_guard.measure import find_amounts
from tests.scu_guard_support import OK, REJECT, verdict

SOMERSAULTS = "Somersaults and flips are forbidden on the main court."
CARTWHEELS = "Cartwheels are not allowed in the foyer."
APART = "Under-12s and adults must never share a bouncy castle at the same time."


@pytest.mark.parametrize("rule, claim", [
    (SOMERSAULTS, "We let the birthday group onto the main court at noon."),
    (SOMERSAULTS, "The coach cleared the main court before the session."),
    (CARTWHEELS, "The dancers warmed up in the foyer before the show."),
    (APART, "The under-12s had the castle in the morning and the adults in the afternoon."),
    (APART, "A dozen nine-year-olds bounced while two dads watched from the side."),
])
def test_a_near_miss_is_not_rejected(rule: str, claim: str) -> None:
    assert verdict([rule], claim) != REJECT


@pytest.mark.parametrize("rule, claim", [
    (SOMERSAULTS, "Two boys did somersaults on the main court during the open session."),
    (CARTWHEELS, "A child did cartwheels in the foyer during the interval."),
])
def test_the_forbidden_act_itself_is_still_flagged(rule: str, claim: str) -> None:
    assert verdict([rule], claim)[0] != "OK"


@pytest.mark.parametrize("text, low, direction", [
    ("Under-8s ride free on Sundays.", 8.0, "max"),
    ("The over-60s swim starts at nine.", 60.0, "min"),
    ("Under 5s stay in the toddler zone.", 5.0, "max"),
])
def test_an_age_group_is_an_age(text: str, low: float, direction: str) -> None:
    ages = [a for a in find_amounts(text) if a.dim == "age"]
    assert [(a.lo, a.direction) for a in ages] == [(low, direction)]
    assert not [a for a in find_amounts(text) if a.dim == "[time]"]


@pytest.mark.parametrize("rule, claim", [
    ("The marquee must be signed off by the site safety officer before any guest enters it.",
     "Priya, the bar manager, signed the stock sheet at midnight."),
    ("The crane must be inspected by a certified inspector before each lift.",
     "Tom, the site foreman, inspected the scaffold tags on Monday."),
    ("The dinghy must be launched only by a qualified instructor.",
     "Sam, a trainee, launched the website for the regatta."),
])
def test_the_reserved_verb_done_to_another_made_thing_is_another_event(rule: str, claim: str) -> None:
    assert verdict([rule], claim) != REJECT


def test_the_reserved_verb_done_to_the_rules_own_thing_still_breaks_it() -> None:
    rule = "The crane must be inspected by a certified inspector before each lift."
    assert verdict([rule], "Tom, the site foreman, inspected the crane before the morning lift.") == REJECT


SIDES = "A vehicle must be photographed from all four sides before it is towed."
REFERENCES = "At least 4 references must be checked before an offer is made."


@pytest.mark.parametrize("rule, claim", [
    (SIDES, "The van was towed only after the team had photographed it front, rear and both sides."),
    (REFERENCES, "The offer went out only after HR had checked the landlord, the last employer and both school "
                 "references."),
])
def test_a_count_that_is_one_part_of_a_list_is_no_shortfall(rule: str, claim: str) -> None:
    assert verdict([rule], claim) != REJECT


def test_a_count_alone_below_the_minimum_still_breaks_it() -> None:
    assert verdict([REFERENCES], "The offer went out only after HR had checked both school references.") == REJECT


SOLVENTS = "Solvents must be stored only in the locked paint store."
KAYAKS = "Kayaks must be kept only in the fenced boat compound."


@pytest.mark.parametrize("rule, claim", [
    (SOLVENTS, "The solvents are in the padlocked paint store; the unlocked tool shed holds only rakes."),
    (KAYAKS, "The kayaks are in the fenced boat compound, and the unfenced lawn is empty."),
])
def test_a_denied_modifier_of_another_place_is_said_of_that_place(rule: str, claim: str) -> None:
    assert verdict([rule], claim) != REJECT


@pytest.mark.parametrize("rule, claim", [
    (SOLVENTS, "The solvents were left in the unlocked tool shed overnight."),
    (KAYAKS, "The kayaks were left on the unfenced lawn overnight."),
])
def test_the_rules_thing_in_another_place_still_breaks_it(rule: str, claim: str) -> None:
    assert verdict([rule], claim) == REJECT


INJURY = ["Every injury must be written up in an incident report within 24 hours of the incident.",
          "Party bookings may be paid only by card or a park gift voucher."]
KILN = ["Glaze kilns must cool for at least 12 hours before they are opened.", "Clay must be wedged before throwing."]


@pytest.mark.parametrize("rules, claim", [
    (INJURY, "Yes, they paid by card over the phone three working days after we invoiced them."),
    (KILN, "The class ran for three hours on Saturday and everyone wedged their clay first."),
])
def test_an_amount_tied_to_a_rule_by_its_dimension_alone_is_no_reason_for_review(rules: list[str],
                                                                                  claim: str) -> None:
    assert verdict(rules, claim) == ("OK", "ok")


@pytest.mark.parametrize("rules, claim", [
    (INJURY, "The sprained wrist was written up in an incident report three days after the fall."),
    (KILN, "Kiln 2 was opened after cooling for only six hours."),
])
def test_an_amount_said_of_the_rules_own_event_is_still_flagged(rules: list[str], claim: str) -> None:
    assert verdict(rules, claim)[0] != "OK"


HIRE = "Hire invoices may be paid only by bank transfer or letter of credit."
TRAPS = "The grease traps must be emptied at least every 7 days."


def test_a_month_of_a_date_is_no_means_and_gives_way_to_the_means_hung_from_it() -> None:
    assert verdict([HIRE], "Invoice 212 was paid by Dover Marine on 16 May by bank transfer.") != REJECT
    assert verdict([HIRE], "Invoice 212 was paid by Dover Marine on 16 May in cash.") == REJECT


def test_a_records_numeric_dates_give_the_year_of_the_claims_bare_dates() -> None:
    """28 February to 7 March is seven days in 2025, eight in a leap year: the record's "28/02/2025" says which."""
    log = {"c1": "Trap log: 28/02/2025 emptied; 07/03/2025 emptied. By K. Ode."}
    assert verdict([TRAPS], "They were emptied on 28 February and again on 7 March, seven days apart.", log) == OK
    late = {"c1": "Trap log: 20/02/2025 emptied; 07/03/2025 emptied."}
    assert verdict([TRAPS], "They were emptied on 20 February and again on 7 March.", late) == REJECT


WATER = "No instructor may supervise more than 4 students in the water at one time."


def test_a_share_of_a_counted_whole_is_not_the_whole() -> None:
    assert verdict([WATER], "Ana and Ben each took half of the eight Delmar students into the water.") != REJECT
    assert verdict([WATER], "Ana took all eight Delmar students into the water on her own.") == REJECT
