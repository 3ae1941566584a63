"""Round 12: time readings: allowed calendar periods, 'no sooner than', exact hours across dates, clock windows
bound to a date, and lengths of time that run to the rule's reference event from the other side."""
from abilities.scu_guard.forms import understand
from tests.scu_guard_support import logged_reason

REJECT, REVIEW, OK = "constraint_contradiction", "suspected_contradiction", "ok"




def test_only_between_two_dates_is_the_allowed_period_with_both_ends() -> None:
    rule = "Guided glacier walks are run only between 1 June and 15 September."
    w = understand(rule).window
    assert w is not None and (w.start, w.end) == (916, 531)
    assert logged_reason(rule, "The guided glacier walk for the Berg family ran on 15 September.") == OK
    assert logged_reason(rule, "The guided glacier walk for the Berg family ran on 10 July.") == OK
    assert logged_reason(rule, "The guided glacier walk for the Berg family ran on 16 September.") == REJECT


def test_allowed_period_wrapping_the_year_end() -> None:
    rule = "Sledge dog tours may only start between 1 December and 15 March."
    assert logged_reason(rule, "The sledge dog tour started on 10 January.") == OK
    assert logged_reason(rule, "The sledge dog tour started on 20 March.") == REJECT


def test_a_forbidden_period_stays_forbidden() -> None:
    rule = "Hedges must not be cut between 1 March and 31 August."
    assert logged_reason(rule, "The hedges along the lane were cut on 10 April.") != OK


def test_no_sooner_than_after_is_a_floor() -> None:
    q = understand("Resits may be sat no sooner than 14 days after the first attempt.").quantity
    assert q is not None and q.low == 14 * 86400 and q.high is None


def test_hours_across_dates_are_exact() -> None:
    rule = "Concrete forms may be struck no sooner than 24 hours after the pour."
    kept = "The forms were struck at 09:30 on Friday 6 June; the pour had finished at 08:15 on Thursday 5 June."
    broken = "The forms were struck at 07:30 on Friday 6 June; the pour had finished at 08:15 on Thursday 5 June."
    assert logged_reason(rule, kept) == OK
    assert logged_reason(rule, broken) != OK


def test_clock_window_bound_to_a_date() -> None:
    rule = "No deliveries may be made on 24 December after 14:00."
    assert logged_reason(rule, "The florist made its last delivery at 15:10 on 24 December.") == REJECT
    assert logged_reason(rule, "The florist made its last delivery at 15:10 on 23 December.") != REJECT
    assert logged_reason(rule, "The florist made its last delivery at 15:10.") != REJECT
    assert logged_reason(rule, "The florist made its last delivery at 15:10 on Christmas Eve.") == REJECT
    assert logged_reason(rule, "The florist made its last delivery at 15:10 on Boxing Day.") != REJECT


def test_a_length_of_time_before_the_reference_is_another_stretch() -> None:
    rule = "Seized goods must be held for at least 60 days after the hearing."
    assert logged_reason(rule, "The van was searched on 2 May, three days before the hearing.") == OK
    assert logged_reason(rule, "The seized goods were held for only 20 days after the hearing.") == REJECT
