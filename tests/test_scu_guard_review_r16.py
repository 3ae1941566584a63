"""scu_guard round 16: doubts that the claim's own grammar settles, so the claim is not held for review. Three
readings. A rule that names the allowed way beside the forbidden one ("only in the red fire-safe bin, never in the
general waste") is kept by a claim that does the act through a phrase naming the whole allowed alternative and names
the forbidden one nowhere but in a denied clause. A denial of another act than the one a duty requires ("No
passengers stayed on the car deck" beside "Every trailer must be chained to the deck") drops nothing: what a denial
denies is the verb of its "not"/"never", the doer of its "nobody"/"no passenger", and neither it, the clause's verb
nor its subject or object is the rule's. And a time of day the word-level reading flags that the rule's own window
allows ("back at the car park by 16:45" for "only between 09:00 and 17:00") cannot break that window. Sentences
written for these tests, none is in the labelled sets; real spaCy parses. The breaches beside them must stay held or rejected: the forbidden alternative named, also later in
the claim; the duty's own act or thing denied; a thing had "with no" inspection; a time inside the window."""

from __future__ import annotations

from abilities.scu_guard.allowed_times import flagged_time_allowed
from abilities.scu_guard.allowed_way import alternatives, done_the_allowed_way
from abilities.scu_guard.combined import understood
from abilities.scu_guard.negated_acts import denies_another_act
from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

RAGS = "Oily rags must be disposed of only in the red fire-safe bin, never in the general waste."
PUPPIES = "Puppies may be bathed only in the grooming room, never in the kennel yard."
TYRES = "Tyres must be stored only in the tyre cage, never in the wash bay."
WELDING = "Welding must be done only in the ventilated bay, never in the paint shop."
TRAILERS = "Every trailer must be chained to the deck before sailing."
LADDERS = "Every ladder must be inspected by the site foreman before use."
APIARY = "If a hive shows signs of foulbrood, the whole apiary must be quarantined."
RINKS = "Ice resurfacing may only be carried out between 22:00 and 06:00."
WALKS = "Guided walks may run only between 09:00 and 17:00."
BLOWERS = "Leaf blowers must not be used before 08:00 or after 18:00."


def test_the_rules_two_alternatives_are_read_apart() -> None:
    alt = alternatives(RAGS)
    assert alt is not None
    assert {"red", "bin"} <= alt.allowed and "wast" not in alt.allowed
    assert alt.forbidden and not alt.forbidden & alt.allowed
    # a plain prohibition names no allowed way
    assert alternatives("Visitors must not use white light on the observing floor.") is None


def test_the_act_done_the_allowed_way_is_no_reason_for_review() -> None:
    assert _v(RAGS, "All the oily rags from the engine overhaul were disposed of in the red fire-safe bin.") == OK
    assert _v(PUPPIES, "Both puppies were bathed in the grooming room after their walk.") == OK
    assert _v(TYRES, "The winter tyres were stored in the tyre cage over the summer.") == OK
    # the forbidden place named only in a denied clause
    assert _v(WELDING, "Nothing was welded in the paint shop; the bracket welding was done in the ventilated bay.") == OK


def test_the_forbidden_alternative_named_keeps_the_doubt() -> None:
    assert _v(RAGS, "The oily rags were put in the general waste.") != OK
    assert _v(RAGS, "The oily rags were disposed of in the red fire-safe bin, and the rest went in the general "
                    "waste.") != OK
    assert _v(PUPPIES, "Both puppies were bathed in the kennel yard after their walk.") != OK
    assert _v(TYRES, "The winter tyres were stored in the wash bay over the summer.") != OK
    assert _v(TYRES, "The winter tyres were stored in the tyre cage, then moved to the wash bay.") != OK


def test_the_allowed_phrase_must_be_named_whole() -> None:
    claim = "The rags went in the red crate by the door."
    assert not done_the_allowed_way(RAGS, claim, 0, len(claim), [])


def test_a_denial_of_another_act_drops_no_duty() -> None:
    assert _v(TRAILERS, "No passengers stayed on the car deck once we sailed.") == OK
    claim = "Nobody smoked near the ladders during the refit."
    assert denies_another_act(LADDERS, claim, 0, len(claim))
    claim = "Visitors weren't let in after the foulbrood check."
    assert denies_another_act(APIARY, claim, 0, len(claim))


def test_a_denial_of_the_duty_itself_still_counts() -> None:
    assert _v(TRAILERS, "The trailer was never chained to the deck.") == REJECT
    assert _v(APIARY, "Hive 4 showed foulbrood, but the apiary wasn't quarantined.") != OK
    assert _v(LADDERS, "The ladders went up with no inspection.") != OK
    for claim in ("Nobody inspected the ladders before the refit.",  # the rule's own verb
                  "No ladder was looked at before the refit.",  # the rule's own thing denied as the doer's
                  "The crew used the ladders with no inspection.",  # a thing had "with no"
                  "The foreman didn't need to inspect the ladders.",  # a word of omission
                  "Two ladders went up uninspected and nobody noticed."):  # a rule word with a negative prefix
        assert not denies_another_act(LADDERS, claim, 0, len(claim)), claim


def test_a_time_the_rules_window_allows_is_no_reason_for_review() -> None:
    assert _v(RINKS, "Rinks 1 and 2 were both resurfaced overnight, the first from 22:30 to 01:00 and the second "
                     "from 02:00 to 05:30.") == OK
    assert _v(WALKS, "Walks set off from 09:30 to a last start at 15:30, with everyone back at the car park by "
                     "16:45.") == OK
    assert _v(BLOWERS, "Before 08:00 only rakes and brooms were used, and the blower was started at 08:10.") == OK


def test_a_time_inside_the_forbidden_window_still_counts() -> None:
    assert _v(RINKS, "Rink 1 was resurfaced from 14:00 to 15:00 on Sunday.") == REJECT
    assert _v(BLOWERS, "The blower was started at 07:15 on Monday.") == REJECT
    assert _v(WALKS, "The last walk set off at 17:45 and was back after dark.") != OK
    assert not flagged_time_allowed(understood(WALKS), "'17:45' falls in a forbidden time window")
    assert not flagged_time_allowed(understood(WALKS), "a forbidden weekday (5) is named")  # no time quoted
