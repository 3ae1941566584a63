"""The decision policy of ``combined``: which findings reject, which wait in REVIEW, which are cleared.

Real spaCy parses and the real readings; sentences written for these tests, none is in the labelled sets."""

from __future__ import annotations

from abilities.lock import lock_constraints
from abilities.scu_guard.check import run_checks
from abilities.scu_guard.combined import detect, forms_for, readings


def verdict(constraints: list[str], claim: str) -> tuple[str, str]:
    lock = lock_constraints(constraints)
    answer = {"claim": claim, "citations": ["c1"], "constraints_echo": list(constraints)}
    r = run_checks(lock, ["c1"], answer, chunk_texts={"c1": "Site notes."})
    return r.verdict, r.reason


def sorted_rules(constraints: list[str], claim: str) -> dict[str, list[str]]:
    r = readings(claim, constraints, forms_for(constraints)[0])
    return {"found": [f.rule for f in r.found], "suspected": [f.rule for f in r.suspected],
            "unsure": [h for _, h in r.unsure], "cleared": [f.rule for f in r.cleared]}


def test_a_word_level_amount_the_typed_reading_measured_as_kept_is_cleared() -> None:
    """80 feet from a school keeps "not within 50 feet": the word-level reading's '80 feet' finding is
    refuted by the typed reading (which measured the distance), so the claim is OK, not REVIEW."""
    constraints = ["Pesticides must not be applied within 50 feet of a school."]
    assert sorted_rules(constraints, "The spray was applied 80 feet from the school.") == {
        "found": [], "suspected": [], "unsure": [], "cleared": ["numeric_bound"]}
    assert verdict(constraints, "The spray was applied 80 feet from the school.") == ("OK", "ok")
    # the same rule broken is still a sure REJECT
    assert verdict(constraints, "The spray was applied 30 feet from the school.") == (
        "REJECT", "constraint_contradiction")


def test_a_label_number_is_cleared_not_reviewed() -> None:
    """'pitch 15' names a pitch: the word-level reading's '15' against "at most 6 people" is no amount."""
    constraints = ["At most 6 people may stay on one pitch."]
    claim = "The generator on pitch 15 was switched off at 22:00."
    assert sorted_rules(constraints, claim)["cleared"] == ["numeric_bound"]
    found, suspected = detect(claim, constraints, forms_for(constraints)[0])
    assert found == [] and suspected == []
    assert verdict(constraints, claim) == ("OK", "ok")


def test_a_guess_the_typed_reading_did_not_refute_still_waits_in_review() -> None:
    """Clearing is only for a finding the typed reading refutes: a rate read over another period than
    the rule's (48 % a year against 3 % a month, a guess) and a weekday the word-level reading alone
    finds stay REVIEW, and the pair model is not asked to clear them."""
    rate = ["Interest must not exceed 3 % per month."]
    assert sorted_rules(rate, "Loans are charged 48 % a year, simple interest.")["unsure"] == [
        "typed numeric_bound"]
    assert verdict(rate, "Loans are charged 48 % a year, simple interest.") == ("REVIEW", "suspected_contradiction")
    days = ["Safe openings may be done only Monday to Friday."]
    claim = "The safe opening was moved from Saturday to Monday 18 May."
    assert sorted_rules(days, claim)["unsure"] == ["lexicon temporal"]
    assert verdict(days, claim) == ("REVIEW", "suspected_contradiction")


def test_a_clearer_only_drops_unsure_findings_and_never_rejects() -> None:
    """A clearer (a second reading sure the rule is kept) turns an unsure finding from REVIEW into
    nothing; it is asked about unsure findings only, so a doer known only by name stays REVIEW."""
    rate = ["Interest must not exceed 3 % per month."]
    claim = "Loans are charged 48 % a year, simple interest."
    forms = forms_for(rate)[0]
    asked: list[str] = []

    def clears(constraint: str, text: str, chunks: object, hint: str) -> bool:
        asked.append(hint)
        return True

    assert detect(claim, rate, forms, (), None, clears) == ([], [])
    assert asked == ["typed numeric_bound"]
    found, suspected = detect(claim, rate, forms, (), None, lambda *_: False)
    assert found == [] and [f.rule for f in suspected] == ["numeric_bound"]
    reserved = ["Only the vault supervisor may open a sealed bag at the depot."]
    found, suspected = detect("The sealed bag was opened at the depot by Nadia Cole.", reserved,
                              forms_for(reserved)[0], (), None, clears)
    assert found == [] and [f.by_name for f in suspected] == [True]


def test_the_claims_own_amount_inside_the_band_keeps_the_rule_whatever_a_chunk_says() -> None:
    """An amount outside the band that only a cited chunk gives is an unsure finding; when the claim states
    its own amounts of that dimension, all inside the band, the claim keeps the rule (cleared, OK)."""
    constraints = ["Sample boxes must be kept between 2 °C and 8 °C for the whole trip."]
    chunks = ("Logger for box S-4: lowest 1.2 °C, highest 6.0 °C.",)
    forms = forms_for(constraints)[0]

    def rules(claim: str) -> dict[str, list[str]]:
        r = readings(claim, constraints, forms, chunks)
        return {"found": [f.rule for f in r.found], "unsure": [h for _, h in r.unsure],
                "cleared": [f.rule for f in r.cleared]}

    assert rules("Box S-4 held between 39 °F and 44 °F all the way to the lab.") == {
        "found": [], "unsure": [], "cleared": ["numeric_bound"]}
    assert rules("Box S-4 went to the lab by van.") == {"found": [], "unsure": ["typed numeric_bound"], "cleared": []}
    assert rules("Box S-4 held between 30 °F and 44 °F all the way to the lab.")["found"] == ["numeric_bound"]
