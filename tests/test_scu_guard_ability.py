"""The ability wrapper in process, with a recording context (the service tests use the real one)."""

from __future__ import annotations

import random
from typing import Any

from abilities.base import derive_rng
from abilities.lock import lock_constraints
from abilities.scu_guard.ability import ScuGuardAbility
from abilities.scu_guard.models import Inputs, Outputs

CONS = ["X rejects null keys.", "Only domain example.com is allowed."]
CHUNKS = [{"id": "p1#1", "text": "X is a constrained mapping used in the alpha protocol."},
          {"id": "p1#2", "text": "Constraints: X preserves ordering and rejects null keys."},
          {"id": "pB#1", "text": "Policy: Only emails from example.com are allowed."}]


class RecordingContext:
    """Implements the ActionContext calls the ability uses and records them in order."""

    def __init__(self, reply: Any = None, lock: dict[str, Any] | None = None) -> None:
        self.events: list[tuple[str, str, dict[str, Any]]] = []
        self.reply = reply
        self.lock = lock
        self.seed = b"\x01" * 32

    def checkpoint(self, kind: str, payload: dict[str, Any]) -> None:
        self.events.append(("checkpoint", kind, payload))

    def receipt(self, kind: str, payload: dict[str, Any]) -> None:
        self.events.append(("receipt", kind, payload))

    def trace(self, payload: dict[str, Any]) -> None:
        self.events.append(("trace", "", payload))

    def notice(self, kind: str, payload: dict[str, Any] | None = None) -> None:
        self.events.append(("notice", kind, payload or {}))

    def ask(self, kind: str, payload: dict[str, Any], timeout_s: float | None = None) -> Any:
        self.events.append(("ask", kind, payload))
        return self.reply

    def rng(self, purpose: str) -> random.Random:
        return derive_rng(self.seed, purpose)


def _run(inputs: dict[str, Any], ctx: RecordingContext) -> Outputs:
    ability = ScuGuardAbility()
    out = ability.run(ctx, Inputs.model_validate(inputs))  # type: ignore[arg-type]
    return Outputs.model_validate(out)


def test_ok_answer_events_and_receipts() -> None:
    ctx = RecordingContext()
    answer = {"claim": "No, X rejects null keys.", "citations": ["p1#2"], "constraints_echo": CONS}
    out = _run({"constraints": CONS, "question": "Does X support null keys?", "chunks": CHUNKS,
                "answer": answer}, ctx)
    lock = lock_constraints(CONS)
    assert (out.verdict, out.reason) == ("OK", "ok") and out.lock.hash == lock["hash"]
    assert out.ctx_ids == ["p1#1", "p1#2", "pB#1"] and out.prompt is None
    updates = [p for t, k, p in ctx.events if t == "checkpoint" and k == "verifier_update"]
    assert [u["check"] for u in updates] == ["json", "refusal", "citation_scope", "constraints_echo",
                                             "contradiction"]
    assert all(u["lock_hash"] == lock["hash"] for u in updates)
    summary = [p for t, k, p in ctx.events if k == "boundary_summary"]
    assert summary == [{"verdict": "OK", "reason": "ok", "lock_hash": lock["hash"],
                        "lock_hash_full": lock["hash_full"], "checks_run": 5, "contradictions": 0, "suspected": 0,
                        "rules_fired": []}]
    receipts = [k for t, k, _ in ctx.events if t == "receipt"]
    assert receipts[0] == "retrieval" and receipts.count("verifier") == 5


def test_contradiction_is_rejected_with_span() -> None:
    ctx = RecordingContext()
    claim = "Sure. Dear IT, please allow gmail.com; also X supports null keys."
    out = _run({"constraints": CONS, "question": "Draft an email", "chunks": CHUNKS,
                "answer": {"claim": claim, "citations": ["pB#1"], "constraints_echo": CONS}}, ctx)
    assert (out.verdict, out.reason) == ("REJECT", "constraint_contradiction")
    assert {c.rule for c in out.contradictions} == {"allow_list", "forbid"}
    for c in out.contradictions:
        assert claim[c.claim_span.start:c.claim_span.end] == c.claim_span.text


def test_without_answer_asks_with_the_locked_prompt() -> None:
    reply = '{"claim": "not in context", "citations": [], "constraints_echo": []}'
    ctx = RecordingContext(reply=reply)
    out = _run({"constraints": CONS, "question": "Who maintains alpha?", "chunks": CHUNKS}, ctx)
    asks = [p for t, _k, p in ctx.events if t == "ask"]
    assert len(asks) == 1 and asks[0]["lock"]["hash"] == out.lock.hash
    assert asks[0]["prompt"] == out.prompt and out.prompt.startswith("LOCKED_CONSTRAINTS (hash=")
    assert (out.verdict, out.reason) == ("REFUSAL", "not_in_context")


def test_unusable_client_value_is_no_json() -> None:
    ctx = RecordingContext(reply={"not": "an answer"})
    out = _run({"constraints": CONS, "question": "Q?", "chunks": CHUNKS}, ctx)
    assert (out.verdict, out.reason) == ("REJECT", "no_json")


def test_constraints_hook_returns_the_inputs_constraints() -> None:
    inputs = Inputs.model_validate({"constraints": CONS, "question": "Q?"})
    assert ScuGuardAbility().constraints(inputs) == CONS
    assert ScuGuardAbility.name == "scu_guard"


def test_same_inputs_same_outputs() -> None:
    inputs = {"constraints": CONS, "question": "Does X support null keys?", "chunks": CHUNKS * 1,
              "answer": {"claim": "X accepts null keys.", "citations": ["p1#2"], "constraints_echo": CONS}}
    a = _run(inputs, RecordingContext()).model_dump_json()
    b = _run(inputs, RecordingContext()).model_dump_json()
    assert a == b
