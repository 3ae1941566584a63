"""The guard's verdict on one claim, for the scu_guard unit tests: every check in the spec's order
(``check.run_checks``) on a locked list, with the typed forms the service reads and the cited chunks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from abilities.lock import lock_constraints
from abilities.scu_guard.check import run_checks
from abilities.scu_guard.combined import forms_for
from abilities.scu_guard.evaluate import judge
from abilities.scu_guard.forms import Form, understand
from abilities.scu_guard.nlp import parse

REJECT = ("REJECT", "constraint_contradiction")
REVIEW = ("REVIEW", "suspected_contradiction")
OK = ("OK", "ok")


def verdict(constraints: list[str], claim: str, chunks: dict[str, str] | None = None) -> tuple[str, str]:
    """(verdict, reason) of an answer making ``claim`` and citing every chunk (one bland chunk when none)."""
    chunks = chunks or {"c1": "Context."}
    answer = {"claim": claim, "citations": list(chunks), "constraints_echo": constraints}
    r = run_checks(lock_constraints(constraints), list(chunks), answer, forms=forms_for(constraints)[0],
                   chunk_texts=chunks)
    return r.verdict, r.reason


# an unrelated second rule: a claim is read against a lock of several rules, as a service reads it
OTHER_RULE = "Records must be kept for 2 years."


def verdict_beside(rule: str, claim: str, records: str | dict[str, str] | None = None) -> tuple[str, str]:
    """(verdict, reason) of ``claim`` against ``rule`` locked beside ``OTHER_RULE``, citing ``records`` (one
    record's text, or chunks by id; one bland chunk when none)."""
    chunks = {"c1": records} if isinstance(records, str) else records
    return verdict([rule, OTHER_RULE], claim, chunks)


def logged_case(rule: str, claim: str) -> dict[str, Any]:
    """A labelled-set case of one rule whose claim cites one record that logs the claim's own words (the shape
    ``evaluate.judge`` reads: retrieval, then every check)."""
    return {"id": "t", "domain": "test", "kind": "test", "cause": "", "question": "What happened?",
            "constraints": [rule], "chunks": [{"id": "c1", "text": "Log: " + claim}],
            "answer": {"claim": claim, "citations": ["c1"], "constraints_echo": [rule]},
            "expect": {"verdict": "OK", "reason": "ok"}}


def logged_verdict(rule: str, claim: str) -> str:
    """The guard's verdict on ``logged_case(rule, claim)``, read the way ``evaluate.judge`` reads a labelled case."""
    return judge(logged_case(rule, claim)).verdict


def logged_reason(rule: str, claim: str) -> str:
    """The guard's reason on ``logged_case(rule, claim)``."""
    return judge(logged_case(rule, claim)).reason


def on_whole_claim(reading: Callable[[Form, Any, int, int], bool], rule: str, claim: str) -> bool:
    """A clause reading (``reading(form, doc, start, end)``) of the rule's typed form over the whole claim."""
    form = understand(rule)
    assert form is not None
    return reading(form, parse(claim), 0, len(claim))
