"""scu_guard round 15: a duty to keep a thing for a time, and the dates of another event listed beside a log.

Two readings, each checked both ways on sentences written for these tests (none is in the labelled sets): a
rule that a thing "must be kept / retained / preserved / archived for" a time sets the shortest time it may be
kept, so a longer keep stays OK and a shorter one is still a contradiction; and a gap between two dates of
another event told after a stop ("...; the boiler's service was last done in June and is next due in
December") is not read as a gap of the rule's own event just because dates before the stop are. A real gap
between the rule's own dates is still a contradiction. Real spaCy parses and real WordNet data."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

CCTV = "CCTV footage must be kept for 31 days."
BADGES = "Visitor badges must be retained for 30 days."
CORES = "Soil cores must be preserved in the cold room for 6 weeks."
LOANS = "Loan agreements must be archived for 4 years after repayment."
EXTINGUISHERS = "Fire extinguishers must be checked at least once every 30 days."
EYEWASH = "Eyewash stations must be flushed at least once every 7 days."
HIVES = "Beehives must be inspected at least once every 10 days."


def test_keeping_longer_than_a_retention_period_keeps_it() -> None:
    assert _v(CCTV, "The footage from the car park was kept for two months before it was wiped.") == OK
    assert _v(BADGES, "The visitor badges were retained for 45 days before shredding.") == OK
    assert _v(CORES, "The soil cores stayed preserved in the cold room for 8 weeks.") == OK
    assert _v(LOANS, "The loan agreement was destroyed in 2030, five years after repayment in 2025.") == OK


def test_keeping_shorter_than_a_retention_period_is_rejected() -> None:
    assert _v(CCTV, "The footage from the car park was kept for only 10 days before it was wiped.") == REJECT
    assert _v(BADGES, "The visitor badges were retained for 12 days before shredding.") == REJECT
    assert _v(CORES, "The soil cores were preserved in the cold room for 3 weeks and then discarded.") == REJECT
    assert _v(LOANS, "The loan agreement was destroyed in 2027, two years after repayment in 2025.") == REJECT


def test_dates_of_another_event_after_a_stop_are_no_sure_gap() -> None:
    assert _v(EXTINGUISHERS, "The extinguishers were checked on 1 March, 31 March and 30 April; the boiler's "
              "service was last done in June and is next due in December.")[0] != "REJECT"
    assert _v(EYEWASH, "The eyewash stations were flushed on 3, 10 and 17 March; the fume hood's airflow test "
              "was last done in October and is next due in April.")[0] != "REJECT"
    assert _v(HIVES, "The hives were inspected on 3, 13 and 23 June; the honey extractor was last serviced in "
              "January and is next due in July.")[0] != "REJECT"


def test_a_real_gap_between_the_rules_own_dates_is_rejected() -> None:
    assert _v(EXTINGUISHERS, "The extinguishers were checked on 1 March, 20 April and 30 April.") == REJECT
    assert _v(HIVES, "The hives were inspected on 3, 13 and 30 June.") == REJECT
