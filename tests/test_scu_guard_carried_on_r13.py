"""Round 13: a duty to stop or hold a thing on an event ("If the kiln alarm sounds, the firing must be halted"),
broken where the claim tells the event and the thing going on. Real parses; sentences written for these tests."""

from tests.scu_guard_support import logged_reason

RACK = "If a vial fails its seal test, the whole rack it came from must be quarantined for checking."
KILN = "When the kiln alarm sounds, the firing must be halted."



def test_the_occasion_told_and_the_rest_going_on_breaks_the_duty() -> None:
    """The condition's own verb in a when-clause of the going-on: sure."""
    assert logged_reason(RACK, "When vial 12 failed its seal test, the technician binned that vial and the rest of "
                         "the rack went ahead to shipping.") == "constraint_contradiction"
    assert logged_reason(KILN, "When the kiln alarm sounded at 14:10, the potter wrote it down and the firing "
                         "carried on.") == "constraint_contradiction"


def test_the_occasion_in_other_words_is_a_guess() -> None:
    """ "buzzed" is not said to be a kind of sounding: the break waits for a person."""
    assert logged_reason(KILN, "When the kiln alarm buzzed at 14:10, the potter wrote it down and the firing "
                         "carried on.") in ("suspected_contradiction", "constraint_contradiction")


def test_near_misses_stay_ok() -> None:
    """The duty done, the occasion told apart or unmet, told as a hypothetical, or the going-on denied."""
    assert logged_reason(RACK, "When vial 12 failed its seal test, the rack was quarantined and the line carried "
                         "on.") == "ok"
    assert logged_reason(RACK, "Every vial passed its seal test, and the rack went ahead to shipping.") == "ok"
    assert logged_reason(KILN, "If the kiln alarm had sounded, the firing would have carried on.") == "ok"
    assert logged_reason(KILN, "When the kiln alarm sounded, the firing did not carry on.") == "ok"
    assert logged_reason(KILN, "The kiln alarm was tested on Monday; the firing on Tuesday carried on as planned.") == "ok"


MAST = "No one may climb the radio mast when the wind speed exceeds 30 mph."


def test_the_condition_told_as_the_time_of_the_forbidden_event() -> None:
    """ "No one" is no second amount; 40 knots (46 mph) told with "while" is the condition met."""
    assert logged_reason(MAST, "Priya Nair climbed the radio mast to fix the beacon while the wind speed was 40 "
                         "knots.") == "constraint_contradiction"


def test_the_condition_unmet_or_hypothetical_is_no_break() -> None:
    """20 knots (23 mph) is under the trigger; a wind told as a possibility is no wind told."""
    assert logged_reason(MAST, "Priya Nair climbed the radio mast to fix the beacon while the wind speed was 20 "
                         "knots.") == "ok"
    assert logged_reason(MAST, "Priya Nair would have climbed the radio mast if the wind speed had been 40 "
                         "knots.") != "constraint_contradiction"


def test_an_occasion_in_other_words_is_never_sure() -> None:
    """A verb that is no kind of the condition's ("passed" for "fails") cannot make the break sure: at most a
    person looks at it."""
    assert logged_reason(RACK, "When vial 12 passed its seal test, the rack went ahead to shipping.") != \
        "constraint_contradiction"
