"""Round 13: counts told in English words: "a baker's dozen", a holder named with a time ("Ana's Tuesday round"),
and one more of the rule's thing joined by "with ... as well". Real parses; sentences written for these tests."""

from abilities.scu_guard.counts import read_counts
from tests.scu_guard_support import logged_reason

ROUND = "A single collection round may take no more than 20 parcels."
YARD = "No more than 5 trailers may be parked in the loading yard at any one time."
SHIFT = "The night shift may have at most 4 porters."


def _counts(text: str) -> list[tuple[str, float]]:
    return [(text[c.start:c.end], c.counts[-1][1]) for c in read_counts(text)]



def test_a_bakers_dozen_is_thirteen() -> None:
    assert _counts("A baker's dozen kayaks were out on the lake.") == [("A baker's dozen kayaks", 13.0)]
    assert logged_reason("No more than 12 kayaks may be on the lake at once.",
                   "A baker's dozen kayaks were on the lake at once.") == "constraint_contradiction"
    assert logged_reason("No more than 13 kayaks may be on the lake at once.",
                   "A baker's dozen kayaks were on the lake at once.") == "ok"  # exactly at the limit


def test_a_holder_told_by_a_time_is_the_rules_holder() -> None:
    """ "Ana's Tuesday round" is a collection round told by its day: its count is the round's."""
    assert logged_reason(ROUND, "Ana's Tuesday round went off with two dozen parcels on board.") \
        == "constraint_contradiction"
    assert logged_reason(ROUND, "Ana's Tuesday round went off with a score of parcels on board.") == "ok"  # 20: at the limit


def test_a_time_that_tells_the_rules_holder_apart_still_does() -> None:
    """The rule's shift is the night shift: a day shift's porters are not counted against it."""
    assert logged_reason(SHIFT, "The day shift had half a dozen porters.") != "constraint_contradiction"


def test_one_more_added_with_as_well() -> None:
    assert logged_reason(YARD, "At noon the loading yard held five trailers, with the fridge trailer squeezed in by the "
                         "gate as well.") == "constraint_contradiction"
    assert logged_reason(YARD, "At noon the loading yard held four trailers, with the fridge trailer squeezed in by the "
                         "gate as well.") == "ok"  # five: at the limit


def test_one_more_elsewhere_or_restated_is_not_added() -> None:
    """Another place, another clause with its own subject, or no word of addition: no sum."""
    assert logged_reason(YARD, "At noon the loading yard held five trailers, with the fridge trailer parked in the "
                         "street too.") == "ok"
    assert logged_reason(YARD, "At noon the loading yard held five trailers, and the fridge trailer was sent to the "
                         "depot instead.") == "ok"
    assert logged_reason(YARD, "At noon the loading yard held five trailers, with the fridge trailer among them.") == "ok"
    assert logged_reason(YARD, "At noon the loading yard held five trailers, with the fridge trailer's driver waiting "
                         "as well.") == "ok"


ESCORT = "A guide may accompany no more than 4 walkers at a time."


def test_and_a_half_before_a_multiplier() -> None:
    assert _counts("Three and a half thousand runners started.") == [("Three and a half thousand runners", 3500.0)]
    assert _counts("Two and a half dozen eggs were packed.") == [("Two and a half dozen eggs", 30.0)]


def test_a_manner_of_the_rules_verb_is_its_event() -> None:
    """ "escorted" is a manner of "accompany" by WordNet: its walkers are the guide's."""
    assert logged_reason(ESCORT, "The guide escorted six walkers over the ridge.") == "constraint_contradiction"
    assert logged_reason(ESCORT, "The guide escorted four walkers over the ridge.") == "ok"  # at the limit


def test_parts_at_different_times_are_not_one_moment() -> None:
    """An "at a time" bound is not broken by parts told at times of their own."""
    assert logged_reason(ESCORT, "The guide escorted three walkers in the morning and three more in the afternoon.") == "ok"
    assert logged_reason(ESCORT, "The guide escorted three walkers over the ridge, and three more as well.") \
        == "constraint_contradiction"


RACK = "No more than 8 kegs may be stored on one cellar rack."


def test_a_bare_number_joined_to_a_count_counts_its_noun() -> None:
    assert ("four", 4.0) in _counts("The brewery's six kegs and the pub's four went onto the rack.")
    assert logged_reason(RACK, "The brewery's six kegs went onto the cellar rack, and so did the pub's four.") \
        == "constraint_contradiction"
    assert logged_reason(RACK, "The brewery's six kegs went onto the cellar rack, and so did the pub's two.") == "ok"


def test_a_bare_number_in_another_event_is_not_added() -> None:
    assert logged_reason(RACK, "The brewery's six kegs went onto the cellar rack, and the pub's four onto the dray.") \
        == "ok"


def test_near_misses_stay_ok() -> None:
    """A bound offered but not used, a total with things of another kind, another event's count."""
    assert logged_reason(ROUND, "Ana's Tuesday round could have taken up to two dozen parcels but left with nineteen.") \
        != "constraint_contradiction"
    assert logged_reason(YARD, "At noon the loading yard held four trailers, with two vans parked by the gate as well.") \
        == "ok"
    assert logged_reason(YARD, "At noon the loading yard held five trailers, and a dozen trailers were booked for "
                         "Friday.") != "constraint_contradiction"
