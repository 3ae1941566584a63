"""Walks up a parse end at its root: a date said of nothing but an interjection ("Yes - after the 28 May
calibration, ...") once looped forever, because spaCy makes a new ``Token`` object on every ``.head``
access, so ``tok.head is tok`` is never true and the walk must compare token indices."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from abilities.scu_guard.evaluate import judge
from abilities.scu_guard.nlp import parse
from tests.scu_guard_support import logged_case


@pytest.fixture
def deadline() -> Iterator[None]:
    """Fail the test instead of hanging the run when the guard does not answer within 20 s."""
    def expired(*_: object) -> None:
        raise TimeoutError("the guard did not answer within 20 s")
    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


CLAIM = "Yes - after the Wednesday 28 May calibration, Rohan calibrated the balance again on Tuesday 3 June while Tunde was away."


def test_the_date_climbs_to_an_interjection_root() -> None:
    doc = parse(CLAIM)
    date = next(t for t in doc if t.text == "Wednesday")
    tok = date
    while tok.head.i != tok.i:
        tok = tok.head
    assert tok.text == "Yes" and tok.pos_ == "INTJ"  # the shape that looped: the walk reaches a root that is no event
    assert tok.head is not tok  # and a new object each time: identity can never end the walk


def test_a_periodic_rule_read_against_that_claim_answers(deadline: None) -> None:
    got = judge(logged_case("The analytical balance must be calibrated at least every 7 days.", CLAIM))
    assert (got.verdict, got.reason) == ("OK", "ok")  # 28 May to 3 June is six days


def test_the_same_claim_with_a_gap_too_long_is_not_cleared(deadline: None) -> None:
    claim = CLAIM.replace("Tuesday 3 June", "Thursday 12 June")
    got = judge(logged_case("The analytical balance must be calibrated at least every 7 days.", claim))
    assert got.verdict != "OK"  # fifteen days between calibrations
