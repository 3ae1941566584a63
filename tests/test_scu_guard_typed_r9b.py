"""scu_guard typed readings of round 9 (second part): readings that had rejected claims that keep the
rules. Real spaCy parses; sentences written for these tests, none is in the labelled sets."""

from __future__ import annotations

from abilities.scu_guard.judge import _entities, read_claim
from tests.scu_guard_support import OK, REJECT, verdict

KEEP = "A retained sample of every dispatched lot must be kept for at least 10 business days after dispatch."


def test_two_dates_the_claim_gives_are_read_before_their_weekdays() -> None:
    """Tuesday .. Monday alone is 4 business days; the dates (3 .. 23 March) give 14: the dates count."""
    claim = "Lot K-7 was dispatched on Tuesday 3 March 2026 and its retained sample was kept until Monday 23 March 2026."
    assert verdict([KEEP], claim) == OK
    short = "Lot K-7 was dispatched on Tuesday 3 March 2026 and its retained sample was kept until Monday 9 March 2026."
    assert verdict([KEEP], short) == REJECT


def test_a_deadline_counts_from_the_entry_that_names_the_claims_thing() -> None:
    """A list chunk dates each lot's result; the deadline counts from L-114's own, not from the first."""
    rule = "A lot with a failed moisture test must be quarantined within 2 business days of the result."
    chunks = {"k1": "Moisture results: L-110 passed, reported 4 May 2026. L-112 passed, reported 6 May 2026. "
                    "L-114 failed, reported Friday 8 May 2026."}
    assert verdict([rule], "Lot L-114 was quarantined on Tuesday 12 May 2026.", chunks) == OK
    assert verdict([rule], "Lot L-114 was quarantined on Friday 15 May 2026.", chunks) == REJECT


DRIVE = "A driver must not drive for more than 4 hours without a break."
TRAIN = "Every driver must complete at least 12 hours of training in each calendar year."


def test_a_fronted_no_phrase_with_inversion_denies_its_clause() -> None:
    """ "At no point did ..." is a denial: a length it denies states no length, short of no minimum."""
    for claim in ("At no point did either driver drive for longer than 4 hours without a break.",
                  "Under no circumstances did the driver drive for more than 4 hours without a break."):
        assert read_claim(claim).clauses[0].negated
        assert verdict([DRIVE, TRAIN], claim) == OK
    assert not read_claim("In no time, the crew had the fire out.").clauses[0].negated  # no inversion
    assert verdict([DRIVE], "At one point the driver drove for 5 hours without a break.") == REJECT


def test_a_time_a_rule_only_allows_is_not_the_forbidden_one() -> None:
    """ "may only begin after 21:00": the hours before 21:00 are closed, the evening after it is open."""
    rule = "Karaoke sessions may only begin after 21:00."
    chunks = {"k1": "Friday karaoke night."}
    assert verdict([rule], "Friday's karaoke session began at 21:30.", chunks) == OK
    assert verdict([rule], "Friday's karaoke session began at 20:15.", chunks) == REJECT
    assert verdict(["No amplified music may be played after 23:00."],
                   "Amplified music was played at 23:30 on Friday.", chunks) == REJECT  # a plain prohibition


def test_names_that_begin_like_a_month_are_names() -> None:
    """Only whole month and weekday words make a name a date: "Marta", "Janet", "Decker" name people."""
    got = _entities("Marta Ruiz and Janet Cole met Sam Decker on 3 March 2026; report of April 2026.")
    assert {"marta ruiz", "janet cole", "sam decker"} <= got
    assert not any("april" in n or "march" in n for n in got)



def test_a_chunk_sentence_naming_another_code_lends_no_amount() -> None:
    """ "Cooler C-16 read a lowest of 1.2 °C" speaks of another cooler than the claim's C-12: not the claim's amount."""
    chunk = "Cooler C-16 read a lowest of 1.2 °C overnight. Cooler C-12 read a lowest of 3.4 °C overnight."
    got = {a.text for a, _ in read_claim("The vaccines in Cooler C-12 were kept cold all day.", [chunk]).chunk_amounts}
    assert "3.4 °C" in got and "1.2 °C" not in got
