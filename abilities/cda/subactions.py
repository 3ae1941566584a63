"""Sub-actions of the project's own abilities, bound as locked dependencies (spec §4, §11.5).

cda never imports another ability's package: it asks the registry whether the ability exists,
builds candidate payloads for it, keeps the first one its ``Inputs`` model accepts, and spawns
it with ``edge="bind"``. When the ability is missing, refuses every payload, or the spawn fails,
the check degrades to a receipt stub. On a structure revision (``ctx.revision > 1``) the bound
dependency outputs already held by the action are reused instead of spawning again.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import rfc8785
from pydantic import ValidationError

from abilities import registry

_PASS = {"verified", "true", "pass", "passed", "ok", "holds", "supported", "accept", "accepted", "valid", "equal"}
_FAIL = {"refuted", "false", "fail", "failed", "violated", "rejected", "reject", "invalid", "not_equal",
         "contradiction", "constraint_violation"}


def candidate_payloads(ability: str, claim: dict[str, Any]) -> list[dict[str, Any]]:
    """Plausible input shapes for each sub-ability, most specific first."""
    expr, text = claim.get("expr", ""), claim.get("text", "")
    if ability == "mathlas":
        value = claim.get("claimed_value")
        if value is None:
            return []
        text_value = str(int(value)) if float(value).is_integer() else repr(float(value))
        return [{"tool": "verify_numeric", "args": {"value": text_value, "closed_form": expr}}]
    if ability == "crl_math":
        lhs, eq, rhs = expr.partition("=")
        diff = f"({lhs.strip()}) - ({rhs.strip()})" if eq else expr
        return [{"goal": "simplify", "expression": diff}, {"expression": diff}, {"expr": diff}]
    if ability == "scu_guard":
        cons = claim.get("constraints", [])
        cid = str(claim.get("doc_id") or "span")[:200]
        return [{"constraints": cons, "question": f"Does this evidence respect the locked constraints? {text}"[:20000],
                 "chunks": [{"id": cid, "text": text}],
                 "answer": {"claim": text, "citations": [cid], "constraints_echo": cons}},
                {"text": text, "constraints": cons}]
    if ability == "research" and claim.get("question") and claim.get("corpus"):
        corpus = {"dataset": claim["corpus"], **({"version": claim["version"]} if claim.get("version") else {})}
        return [{"queries": [str(claim["question"])[:2000]], "corpus": corpus, "top_k": int(claim.get("top_k", 3))}]
    if ability == "sandbox" and isinstance(claim.get("check"), dict):
        return [{k: v for k, v in claim["check"].items() if k in ("language", "code", "function", "tests", "limits")}]
    return []


def summarize(ability: str, outputs: Any) -> dict[str, Any]:
    """Boundary-safe gist of a research or sandbox result for receipts and the evidence bundle."""
    if not isinstance(outputs, dict):
        return {}
    if ability == "research":
        spans = [{k: s.get(k) for k in ("doc_id", "start", "end", "score", "excerpt", "source")}
                 for s in (outputs.get("spans") or [])[:10] if isinstance(s, dict)]
        return {"spans": spans, "corpus": outputs.get("corpus"), "conservative": outputs.get("conservative")}
    if ability == "sandbox":
        return {k: outputs.get(k) for k in ("verdict", "passed", "failed", "errors", "code_sha256", "tests_sha256")}
    return {}


def interpret(outputs: dict[str, Any] | None, ability: str = "") -> str:
    """Map a sub-action's outputs to pass / fail / unknown, reading the usual verdict fields."""
    if not isinstance(outputs, dict):
        return "unknown"
    if ability == "research":  # spans found answer the question; none found leaves it open
        return "pass" if outputs.get("spans") else "unknown"
    if ability == "crl_math" and isinstance(outputs.get("result"), str):
        return "pass" if outputs["result"].strip() == "0" else "fail"
    if isinstance(outputs.get("result"), dict):  # tool-style outputs: {"tool", "result": {...}}
        return interpret(outputs["result"], ability)
    for key in ("verdict", "status", "result", "outcome", "decision"):
        v = outputs.get(key)
        if isinstance(v, str) and v.lower() in _PASS:
            return "pass"
        if isinstance(v, str) and v.lower() in _FAIL:
            return "fail"
        if isinstance(v, bool):
            return "pass" if v else "fail"
    for key in ("verified", "ok", "holds", "valid", "equal"):
        if isinstance(outputs.get(key), bool):
            return "pass" if outputs[key] else "fail"
    return "unknown"


_SHAPES = {"mathlas": ("tool", "result"), "crl_math": ("goal", "equivalence_mode"), "scu_guard": ("verdict", "lock"),
           "research": ("spans", "corpus"), "sandbox": ("verdict", "code_sha256")}


def _looks_like(ability: str, outputs: Any) -> bool:
    """Whether a held dependency's outputs have the shape of ``ability``'s outputs."""
    keys = _SHAPES.get(ability)
    return isinstance(outputs, dict) and keys is not None and all(k in outputs for k in keys)


def held(ctx: Any, ability: str) -> int:
    """How many bound dependencies with ``ability``'s output shape this action holds."""
    return sum(1 for d in ctx.dependencies.values() if d.get("kind") == "bind" and _looks_like(ability, d.get("outputs")))


def outputs_hash(outputs: Any) -> str:
    """Of the canonical JSON (RFC 8785): outputs read back from the log (a replay's dependencies, where
    1.0 comes back as 1) hash as the live ones did."""
    try:
        body = rfc8785.dumps(outputs)
    except Exception:  # not JSON-representable: still a stable digest
        body = json.dumps(outputs, sort_keys=True, default=str).encode()
    return hashlib.sha256(body).hexdigest()[:16]


def run_check(ctx: Any, ability: str, claim: dict[str, Any], index: int) -> dict[str, Any]:
    """Run one sub-check; returns a receipt-ready record (with ``stub`` set when degraded)."""
    base = {"ability": ability, "claim": claim.get("label", ""), "edge": "bind"}
    bound = [(aid, d) for aid, d in sorted(ctx.dependencies.items())
             if d.get("kind") == "bind" and _looks_like(ability, d.get("outputs"))]
    if ctx.revision > 1 and index < len(bound):
        aid, dep = bound[index]
        return {**base, "child_action_id": aid, "revision": dep.get("revision"), "reused": True,
                "outputs_hash": outputs_hash(dep.get("outputs")), "result": interpret(dep.get("outputs"), ability),
                **summarize(ability, dep.get("outputs"))}
    cls = registry.get(ability)
    if cls is None:
        return {**base, "stub": True, "reason": "ability_unavailable", "result": "unknown"}
    payload = None
    for cand in candidate_payloads(ability, claim):
        try:
            cls.Inputs.model_validate(cand)
        except ValidationError:
            continue
        payload = cand
        break
    if payload is None:
        return {**base, "stub": True, "reason": "inputs_not_accepted", "result": "unknown"}
    try:
        view = ctx.spawn(ability, payload, edge="bind")
    except Exception as exc:  # a refused or failed spawn degrades, it never crashes cda
        return {**base, "stub": True, "reason": "spawn_failed", "message": str(exc)[:200], "result": "unknown"}
    status = view.get("status") if isinstance(view, dict) else None
    outputs = view.get("outputs") if isinstance(view, dict) else None
    return {**base, "child_action_id": view.get("action_id") if isinstance(view, dict) else None,
            "revision": view.get("revision") if isinstance(view, dict) else None, "status": status,
            "outputs_hash": outputs_hash(outputs), "reused": False,
            "result": interpret(outputs, ability) if status == "completed" else "unknown",
            **(summarize(ability, outputs) if status == "completed" else {})}
