"""scu_guard decision policy (round 9, ``combined.py``): which findings may REJECT, which wait in REVIEW.

Each group moved from REJECT to REVIEW was wrong more often than a REJECT may be (2 in 100) on the sets the
rules had not been tuned on; the tests tell each mechanism in sentences of other domains, next to the
reading that keeps its evidence and still rejects. The bench groups verdicts by each finding's source.
"""

from __future__ import annotations

import pytest

from abilities.scu_guard.combined import forms_for, readings
from bench.scu_guard_unseen import by_source
from tests.scu_guard_support import REJECT, REVIEW, verdict


def sources(constraints: list[str], claim: str, chunks: tuple[str, ...] = ()) -> list[str]:
    return sorted(readings(claim, constraints, forms_for(constraints)[0], chunks).source.values())


SHELF = ["Bleach and ammonia must never be stored on the same shelf."]
LIFT = ["No more than 8 passengers may ride in the lift at once."]
FREEZER = ["Freezers must be kept at or below -18 °C."]
GUEST = ["Guest rooms must be kept below 24 °C."]


@pytest.mark.parametrize(
    ("constraints", "claim", "chunks", "want"),
    [
        # an exclusion both readings make stands; one the typed reading alone makes through a place is a guess,
        # unless the grammar settles it: the claim names one member only and puts it there by its own verb, a
        # cited chunk names only the other one with that place
        (SHELF, "Bleach and ammonia are stored on the same shelf.", None, REJECT),
        (SHELF, "The bleach now sits on shelf 2.", {"c1": "Shelf 2 holds the ammonia."}, REJECT),
        # a count matched by its noun alone ("eleven passengers" queued for the lift, rode in turns?)
        (LIFT, "Eleven passengers queued for the lift.", None, REVIEW),
        # ... but stands where the claim ties it to the rule's own event (its verb, its place)
        (LIFT, "Eleven passengers rode in the lift at once.", None, REJECT),
        # more than one amount of the rule's dimension: which one is about the rule is a guess
        (FREEZER, "The chest freezer ran at -20 °C and the blast freezer at -10 °C.", None, REVIEW),
        (FREEZER, "The blast freezer ran at -10 °C.", None, REJECT),
        # a range is one amount
        (FREEZER, "The freezer drifted between -12 °C and -10 °C overnight.", None, REJECT),
        # a rule's thing named with another modifier stays a REJECT: measured, it was right on every
        # development set (the modifier names an instance: "the wreck dive" of "recreational dives")
        (GUEST, "The server room ran at 30 °C.", None, REJECT),
        (GUEST, "Room 12 ran at 30 °C.", None, REJECT),
    ],
)
def test_what_a_finding_answers(constraints: list[str], claim: str, chunks: dict[str, str] | None,
                                want: tuple[str, str]) -> None:
    assert verdict(constraints, claim, chunks) == want


def test_each_finding_names_its_source_and_why_it_was_sorted_there() -> None:
    assert sources(FREEZER, "The blast freezer ran at -10 °C.") == ["typed numeric_bound/amount both"]
    assert sources(LIFT, "Eleven passengers queued for the lift.") == [
        "typed numeric_bound/count doubt: a count matched by its noun"]
    assert sources(LIFT, "Eleven passengers rode in the lift at once.") == ["typed numeric_bound/count_total both"]
    # both readings name a doer, but the lexicon's doer check is the same guess as the typed one
    assert sources(["Only pharmacists may dispense insulin."], "A pharmacy clerk dispensed insulin.") == [
        "typed only_agent/event both, not firm"]
    assert sources(SHELF, "The bleach now sits on shelf 2.", ("Shelf 2 holds the ammonia.",)) == [
        "typed exclusion/event firm"]


def test_the_bench_counts_verdicts_per_source() -> None:
    rows = [
        {"reason": "constraint_contradiction", "want": True, "ok_claim": False, "rejected_by": ["a"],
         "reviewed_by": [], "cleared_by": []},
        {"reason": "constraint_contradiction", "want": False, "ok_claim": True, "rejected_by": ["a", "b"],
         "reviewed_by": [], "cleared_by": []},
        {"reason": "suspected_contradiction", "want": False, "ok_claim": True, "rejected_by": [],
         "reviewed_by": ["c"], "cleared_by": []},
        {"reason": "ok", "want": True, "ok_claim": False, "rejected_by": [], "reviewed_by": [], "cleared_by": ["d"]},
    ]
    table = by_source(rows)
    assert table["a"] == {"reject_right": 1, "reject_alone_right": 1, "reject_wrong": 1}
    assert table["b"] == {"reject_wrong": 1}
    assert table["c"] == {"review_ok": 1, "review_alone_ok": 1}
    assert table["d"] == {"cleared_contra": 1}


@pytest.mark.parametrize(
    ("constraints", "claim", "want"),
    [
        # duty words of general English: "obliged", "compulsory" (the word-level reading; the typed reading
        # does not read these constraints, so the word-level reading is the only one and may reject)
        (["Visitors are obliged to sign the register."], "Visitors did not sign the register.", REJECT),
        (["Visitors are obliged to sign the register."], "Visitors signed the register.", ("OK", "ok")),
        (["Helmets are compulsory on the site."], "Helmets were optional on the site.", REJECT),
    ],
)
def test_duty_and_approval_words_of_general_english(constraints: list[str], claim: str,
                                                   want: tuple[str, str]) -> None:
    assert verdict(constraints, claim) == want
