"""Round 14: a conditional duty that changes a thing's state ("must be evacuated", "must be shut off", "must be
switched on") broken where the claim tells the occasion and the thing staying as it was ("stayed occupied", "was
left running", "stayed off"), the occasion told by an amount, a when-clause or a "with" phrase. Real parses;
sentences written for these tests."""

from tests.scu_guard_support import logged_reason

WARD = "If the water level in the basement exceeds 40 cm, the archive store must be evacuated."
PRESS = "If the guard interlock trips, the hydraulic press must be shut off."
HEATER = "If the greenhouse temperature falls below 5 °C, the frost heater must be switched on."
LIFT = "The chairlift must be stopped when the lightning detector is active."
HALL = "The sports hall must be closed when the wind exceeds 60 mph."

SURE = "constraint_contradiction"


def test_a_going_state_kept_breaks_a_duty_that_stops_or_empties() -> None:
    """The occasion told, and the thing the duty stops or empties told as staying as it was."""
    assert logged_reason(WARD, "The water in the basement reached 55 cm overnight and the archive store stayed "
                         "occupied.") == SURE
    assert logged_reason(PRESS, "When the guard interlock tripped, the hydraulic press was left running while the "
                         "fitter looked for the fault.") == SURE
    assert logged_reason(HALL, "With gusts of 70 mph in the afternoon, the sports hall stayed open for the "
                         "evening league.") == SURE


def test_a_stopped_state_kept_breaks_a_duty_that_switches_on() -> None:
    """"stayed off" is the switching-on left undone."""
    assert logged_reason(HEATER, "The greenhouse fell to 2 °C before dawn and the frost heater stayed off.") == SURE


def test_a_doing_kept_up_with_the_occasion_as_its_circumstance() -> None:
    """"kept running with the detector active": a "with" phrase that tells every word of the condition."""
    assert logged_reason(LIFT, "The chairlift kept running with the lightning detector active.") == SURE
    assert logged_reason(PRESS, "When the guard interlock tripped, the hydraulic press kept pressing.") == SURE


def test_the_state_the_duty_brings_about_is_the_duty_done() -> None:
    """"stayed empty", "stayed closed", "stayed on": the duty's own result kept, no break."""
    assert logged_reason(WARD, "The water in the basement reached 55 cm overnight and the archive store stayed "
                         "empty.") == "ok"
    assert logged_reason(HALL, "With gusts of 70 mph in the afternoon, the sports hall stayed closed.") == "ok"
    assert logged_reason(HEATER, "The greenhouse fell to 2 °C before dawn and the frost heater stayed on.") == "ok"


def test_the_occasion_unmet_or_the_staying_denied_is_no_break() -> None:
    """Under the trigger, the circumstance other than the condition, or the staying itself denied."""
    assert logged_reason(WARD, "The water in the basement reached 25 cm overnight and the archive store stayed "
                         "occupied.") == "ok"
    assert logged_reason(LIFT, "The chairlift kept running with the lightning detector switched off for "
                         "servicing.") != SURE
    assert logged_reason(LIFT, "The chairlift kept running with the lightning detector not active.") != SURE
    assert logged_reason(PRESS, "When the guard interlock tripped, the hydraulic press was not left running.") == "ok"


def test_a_kept_state_of_another_thing_is_no_break() -> None:
    """The staying said of a thing the duty does not name ("the office stayed open")."""
    assert logged_reason(WARD, "The water in the basement reached 55 cm overnight; the archive store was evacuated "
                         "and the front office stayed open.") == "ok"
