"""Round 15: a word-level prohibition finding whose words name nothing of the rule. A duty whose verb is a word of
withholding ("filtered", "stripped", "at drop-off", "the removed boiler") is read by the word-level reading as a
prohibition; on a claim piece that shares no word with the rule's doer, thing, verb or place, and a rule the typed
reading understood and found kept, the finding is cleared (OK, not REVIEW). A piece naming the rule's thing still
goes to review, and plain contradictions are still found. Real parses; sentences written for these tests."""

import pytest

from abilities.scu_guard.evaluate import judge
from tests.scu_guard_support import logged_case

FILTER = "Each sample must be filtered before it is frozen."
DROP = "Every rental bike must be photographed at drop-off."
SWAP = "Every boiler swap must be recorded in the site log with the serial numbers of both the removed and the fitted boiler."
STRIP = "Each hull must be stripped before it is repainted."
CLEARED = "lexicon forbid names nothing of the rule"


def _judged(rule: str, claim: str) -> tuple[str, set[str]]:
    j = judge(logged_case(rule, claim))
    return j.reason, {str(s) for s in j.readings.source.values()}


@pytest.mark.parametrize(("rule", "claim"), [
    (FILTER, "The new centrifuge came in at 09:00 and went into use the same day."),
    (FILTER, "Dr Okafor was given the keys on Monday and is in charge of the lab now."),
    (DROP, "Mr Patel came in on Friday 3 May and left on Sunday."),
    (SWAP, "Tom cleaned the radiator valves with a damp cloth and let them dry."),
    (STRIP, "The harbour crane went back into service at noon and was available all afternoon."),
    (STRIP, "A new apprentice started on Monday and was given a locker."),
])
def test_a_piece_naming_nothing_of_the_rule_is_cleared(rule: str, claim: str) -> None:
    reason, sources = _judged(rule, claim)
    assert reason == "ok"
    assert CLEARED in sources


@pytest.mark.parametrize(("rule", "claim"), [
    (FILTER, "Sample 7 went to the lab on Monday and is in use."),  # names the rule's thing: still a question
    (STRIP, "Hull 4 went back into the water on Monday."),
])
def test_a_piece_naming_the_rules_thing_still_goes_to_review(rule: str, claim: str) -> None:
    reason, sources = _judged(rule, claim)
    assert reason == "suspected_contradiction"
    assert CLEARED not in sources


@pytest.mark.parametrize(("rule", "claim"), [
    (FILTER, "Sample 7 went into the freezer unfiltered."),
    (STRIP, "Hull 4 was repainted without being stripped."),
    ("Glass bottles must never be taken onto the beach.", "A family took glass bottles onto the beach."),
])
def test_contradictions_are_still_found(rule: str, claim: str) -> None:
    assert _judged(rule, claim)[0] == "constraint_contradiction"


@pytest.mark.parametrize(("rule", "claim"), [
    (DROP, "Bike 12 was dropped off on Friday and nobody photographed it."),
    (SWAP, "Tom swapped the boiler in flat 3 and did not record it in the site log."),
])
def test_skipped_duties_are_not_cleared(rule: str, claim: str) -> None:
    assert _judged(rule, claim)[0] != "ok"
