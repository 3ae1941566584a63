"""The deterministic acceptance checks of the SCU contract, in the spec's order (pure, no I/O).

1. ``no_json``: the answer is not the JSON object (a raw string without a parseable object, or an
   object without a string ``claim``).
2. ``not_in_context``: the claim is the refusal -> verdict REFUSAL (a correct refusal is success).
3. ``citation_scope``: citations missing, not a list of ids, or not all within ``ctx_ids``.
4. ``constraints_echo_mismatch``: the echo differs from the lock (order-insensitive, trimmed).
5. ``constraint_contradiction``: the claim contradicts a locked constraint (``combined``: the typed
   forms and the lexicon detector); a lexicon-only finding against a measured form the typed reading
   found kept is ``suspected_contradiction`` (verdict REVIEW) instead.

Every check that can run is run and reported; the verdict comes from the first that fails.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from abilities.lock import same_constraint_set
from abilities.scu_guard.combined import Arbiter, Readings, decide, forms_for, readings
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.forms import Form
from abilities.scu_guard.prompt import REFUSAL

ORDER = ("json", "refusal", "citation_scope", "constraints_echo", "contradiction")
REASON = {
    "json": "no_json",
    "citation_scope": "citation_scope",
    "constraints_echo": "constraints_echo_mismatch",
    "contradiction": "constraint_contradiction",
}


@dataclass
class GuardResult:
    """Verdict, reason, the findings, and one entry per check for the verifier_update events."""

    verdict: str
    reason: str
    contradictions: list[Finding] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    suspected: list[Finding] = field(default_factory=list)
    readings: Readings | None = None  # how the findings were sorted, with each one's source (for the bench)


def is_refusal(text: str) -> bool:
    """'not in context', ignoring case, surrounding whitespace, quotes and a final period."""
    return re.sub(r"[\s\"'.!]+$", "", text.strip().strip("\"'")).strip().lower() == REFUSAL


def extract_json(text: str) -> Any:
    """The spec's extraction: the text from the first '{' to the last '}', parsed; else None."""
    s, e = text.find("{"), text.rfind("}")
    if s < 0 or e <= s:
        return None
    try:
        return json.loads(text[s : e + 1])
    except (ValueError, RecursionError):
        return None


def coerce_answer(value: Any) -> tuple[dict[str, Any] | None, bool]:
    """(answer object or None, raw refusal?) from a dict, a pydantic model, or the model's raw text."""
    if hasattr(value, "model_dump"):
        value = value.model_dump()
    if isinstance(value, str):
        if is_refusal(value):
            return {"claim": REFUSAL, "citations": [], "constraints_echo": []}, True
        value = extract_json(value)
    if not isinstance(value, dict) or not isinstance(value.get("claim"), str):
        return None, False
    return value, False


def run_checks(
    lock: dict[str, Any],
    ctx_ids: list[str],
    answer: Any,
    detector: Callable[[str, list[str]], list[Finding]] | None = None,
    forms: list[Form] | None = None,
    chunk_texts: dict[str, str] | None = None,
    arbiter: Arbiter | None = None,
    question: str = "",
) -> GuardResult:
    """Apply the five checks to ``answer`` (dict, pydantic ``Answer`` or raw string).

    ``detector`` replaces the contradiction detector (the bench scores a baseline with it); ``forms``
    are the constraints' typed forms (parsed from the lock when not given); ``chunk_texts`` maps chunk
    ids to texts so that facts of the cited chunks in scope reach the detector; ``arbiter`` decides the
    findings that rest on a guess (the pair model; None makes every such finding a suspected one);
    ``question`` is the user's question, context only: it may say what the claim's amount is of."""
    checks: list[dict[str, Any]] = []
    obj, raw_refusal = coerce_answer(answer)
    if obj is None:
        checks.append(
            {"check": "json", "passed": False, "detail": "answer is not a JSON object with a claim"}
        )
        return GuardResult("REJECT", "no_json", [], checks)
    checks.append({"check": "json", "passed": True, "detail": "raw refusal" if raw_refusal else "object"})
    claim: str = obj["claim"]
    if raw_refusal or is_refusal(claim):
        checks.append({"check": "refusal", "passed": True, "detail": "claim is the refusal 'not in context'"})
        return GuardResult("REFUSAL", "not_in_context", [], checks)
    checks.append({"check": "refusal", "passed": True, "detail": "not a refusal"})

    cits = obj.get("citations")
    allowed = set(ctx_ids)
    if not isinstance(cits, list) or not all(isinstance(c, str) for c in cits):
        cit_ok, cit_detail = False, "citations is not a list of chunk ids"
    elif not cits:
        cit_ok, cit_detail = False, "no citations: a claim must cite chunks in scope or refuse"
    else:
        outside = [c for c in cits if c not in allowed]
        cit_ok = not outside
        cit_detail = f"outside ctx_ids: {outside[:20]}" if outside else f"{len(cits)} citation(s) in scope"
    checks.append({"check": "citation_scope", "passed": cit_ok, "detail": cit_detail})

    echo = obj.get("constraints_echo", [])
    if not isinstance(echo, list) or not all(isinstance(c, str) for c in echo):
        echo_ok, echo_detail = False, "constraints_echo is not a list of strings"
    else:
        echo_ok = same_constraint_set(echo, lock["constraints"])
        if echo_ok:
            echo_detail = "echo matches the lock"
        else:
            locked = sorted({c.strip() for c in lock["constraints"]})
            got = sorted({c.strip() for c in echo if c.strip()})
            echo_detail = (
                f"missing {len(set(locked) - set(got))}, unexpected {len(set(got) - set(locked))}"
                if set(got) != set(locked)
                else "duplicates differ from the lock"
            )
    checks.append({"check": "constraints_echo", "passed": echo_ok, "detail": echo_detail})

    suspected: list[Finding] = []
    sorting: Readings | None = None
    if detector is not None:
        findings = detector(claim, lock["constraints"])
    else:
        if forms is None:
            forms = forms_for(lock["constraints"])[0]
        cited = [chunk_texts[c] for c in (cits if isinstance(cits, list) else [])
                 if chunk_texts and isinstance(c, str) and c in chunk_texts and c in allowed]
        sorting = readings(claim, lock["constraints"], forms, cited, question)
        findings, suspected = decide(claim, sorting, cited, arbiter)
    checks.append(
        {
            "check": "contradiction",
            "passed": not findings,
            "detail": [f.detail for f in findings][:20] or "no contradiction",
        }
    )
    for name in ORDER[2:]:
        entry = next(c for c in checks if c["check"] == name)
        if not entry["passed"]:
            return GuardResult("REJECT", REASON[name], findings, checks, suspected, sorting)
    if suspected:
        return GuardResult("REVIEW", "suspected_contradiction", findings, checks, suspected, sorting)
    return GuardResult("OK", "ok", findings, checks, suspected, sorting)
