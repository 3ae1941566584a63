"""scu_guard: a REJECT needs evidence that generalises (``evidence.py`` and the gate in ``combined.py``).

Each test names a way a typed reading went wrong on sets written after the rules (a direction left
unread, an amount that says when an event happens, a duration of another event, an amount only a chunk
gives, an event matched by its thing alone, the word-level reading alone on times), told here in
sentences of other domains; and the readings that carry their evidence still reject.
"""

from __future__ import annotations

import pytest

from abilities.scu_guard.combined import detect, forms_for
from abilities.scu_guard.evidence import read_whole
from tests.scu_guard_support import REJECT, REVIEW, verdict


@pytest.mark.parametrize(
    ("constraint", "claim", "want"),
    [
        # the evidence is there: the claim's own amount, in a main clause, of a rule read whole
        ("Glazed plates must be fired at no less than 1,100 °C.", "The glazed plates were fired at 1,000 °C.",
         REJECT),
        ("Trays must be rinsed for at least 30 seconds.", "Trays are rinsed for 10 seconds.", REJECT),
        ("Kilns must be serviced at least every 90 days.", "Kilns are serviced twice a year.", REJECT),
        # a direction stated after the amount: the band is not an exact amount
        ("Glazed plates must be fired at 1,100 °C or hotter.", "The glazed plates were fired at 1,200 °C.", None),
        # a bare comparative after a verb of an event says when it happens, it bounds nothing
        ("The pump motor must shut down above 6 bar.", "The pump motor shut down at 4 bar.", None),
        # a duration of another event than the rule's
        ("Stained boards must be cured for at least 48 hours after staining.",
         "The stained boards were sanded for 20 minutes.", None),
        # a rule with an exception or a second amount is not read whole
        ("Trays must be rinsed for at least 30 seconds unless they are disposable.",
         "Trays are rinsed for 10 seconds.", REVIEW),
    ],
)
def test_an_amount_rejects_only_with_its_evidence(constraint: str, claim: str, want: tuple[str, str] | None) -> None:
    got = verdict([constraint], claim)
    if want is None:
        assert got[0] != "REJECT", got
    else:
        assert got == want, got


def test_a_trigger_only_a_chunk_gives_is_reviewed() -> None:
    constraints = ["Crates heavier than 40 kg must be lifted with a hoist."]
    chunks = {"k1": "Crate C-7 weighs 55 kg."}
    # since round 9: the chunk states the amount of the very crate the claim names and the claim denies the
    # consequence outright, so the trigger is no guess (tests/test_scu_guard_amounts_r9.py)
    assert verdict(constraints, "Crate C-7 was lifted by hand without a hoist.", chunks) == REJECT
    # a consequence told with an order ("before") is not broken by a denial alone: still a guess
    ordered = ["Crates heavier than 40 kg must be inspected before they are lifted."]
    assert verdict(ordered, "Crate C-7 was lifted on Friday and inspected on Monday.", chunks)[0] != "REJECT"
    assert verdict(constraints, "The 55 kg crate was lifted by hand without a hoist.") == REJECT
    # a consequence told by a count ("one porter" for "two porters") is a count matched by its noun: REVIEW
    # since round 9 (tests/test_scu_guard_policy.py)
    assert verdict(["Crates heavier than 40 kg must be lifted by two porters."],
                   "The 55 kg crate was lifted by one porter.") == REVIEW


def test_a_forbidden_event_needs_its_action_named() -> None:
    constraints = ["Guests must not smoke in the bedrooms."]
    assert verdict(constraints, "Guests' luggage went into the bedrooms.") == REVIEW
    assert verdict(constraints, "Guests smoked in the bedrooms.") == REJECT


def test_the_word_level_reading_alone_rejects_no_time_or_amount() -> None:
    """A constraint the typed reading cannot read: the word-level reading's weekday is only suspected."""
    constraints = ["Deliveries to the archive happen only Tuesday to Thursday."]
    assert forms_for(constraints)[1] == constraints  # not understood
    got = verdict(constraints, "The archive delivery was moved from Saturday to Tuesday.")
    assert got[0] != "REJECT", got


def test_the_pair_model_makes_no_reject_by_default() -> None:
    """A finding that rests on a guess is REVIEW whatever the model would say; an explicit arbiter can
    still decide it (the bench compares both)."""
    constraints = ["Only the head keeper may feed the lions."]
    claim = "The lions were fed by the night keeper."
    forms = forms_for(constraints)[0]
    found, suspected = detect(claim, constraints, forms)
    assert found == [] and [f.rule for f in suspected] == ["only_agent"]
    found, _ = detect(claim, constraints, forms, (), lambda *_: True)
    assert [f.rule for f in found] == ["only_agent"]
    assert verdict(constraints, claim) == REVIEW


def test_a_long_claim_keeps_how_sure_each_finding_is() -> None:
    """A claim over 1,500 characters is read in pieces; a guessed finding there stays a guess."""
    constraints = ["Only the head keeper may feed the lions."]
    filler = "The keepers checked the enclosures and wrote the daily log. " * 30
    claim = filler + "The lions were fed by the night keeper."
    assert len(claim) > 1500
    assert verdict(constraints, claim) == REVIEW


@pytest.mark.parametrize(
    ("text", "modality", "whole"),
    [
        ("Kilns must be serviced at least every 90 days.", "must", True),
        ("Pouring temperature for grade SG400 must be between 1,380 °C and 1,420 °C.", "must", True),
        ("Boats must not sail when the wind exceeds 25 knots.", "must_not", True),
        ("Ploughing must begin once snow depth reaches 3 cm.", "must", False),
        ("Drivers must take a 45-minute break after at most 4.5 hours.", "must", False),
        ("Linings must be inspected at least every 40 heats.", "must", False),
        ("Visitors must leave by 18:00 unless escorted.", "must", False),
    ],
)
def test_a_rule_read_whole(text: str, modality: str, whole: bool) -> None:
    assert read_whole(text, modality) is whole
