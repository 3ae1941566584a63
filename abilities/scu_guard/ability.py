"""The ``scu_guard`` ability: a thin wrapper that runs the pure guard and reports every step.

Flow: lock the constraints -> BM25 retrieval of ``ctx_ids`` -> (no answer given: build the
LOCKED_CONSTRAINTS prompt and ``ctx.ask`` the client for the answer) -> the five checks ->
``verifier_update`` per check, receipts for retrieval and checks, ``boundary_summary``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from abilities.base import Ability, AbilityError, ActionContext
from abilities.lock import lock_constraints
from abilities.scu_guard.models import MAX_ANSWER_CHARS, Inputs, Outputs
from abilities.scu_guard.prompt import build_prompt

if TYPE_CHECKING:
    from abilities.scu_guard.check import GuardResult


def _client_value_problem(value: Any) -> str | None:
    """Why a value sent with ``actions.input`` cannot be checked at all (too big, not Unicode)."""
    try:
        encoded = json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError, UnicodeEncodeError, RecursionError):
        return "answer is not JSON-serializable UTF-8 text"
    if len(encoded) > MAX_ANSWER_CHARS * 4:
        return f"answer larger than {MAX_ANSWER_CHARS * 4} bytes"
    return None


class ScuGuardAbility(Ability):
    """Lock constraints, require their verbatim echo, reject answers that drop or contradict them."""

    name = "scu_guard"
    version = "1.0.0"
    description = (
        "Symbolic Constraint Unlock guard: locks constraints, retrieves the chunks in scope "
        "(BM25), and deterministically accepts, rejects or records the refusal of an answer."
    )
    Inputs = Inputs
    Outputs = Outputs
    # the readers run() imports: a worker loads them before it says ready, the server never does
    preload = ("abilities.scu_guard.check", "abilities.scu_guard.combined", "abilities.scu_guard.detect",
               "abilities.scu_guard.retrieval", "abilities.scu_guard.rules")

    def constraints(self, inputs: Inputs) -> list[str] | None:  # type: ignore[override]
        """The constraints to lock service-wide at ingress."""
        return list(inputs.constraints)

    def run(self, ctx: ActionContext, inputs: Inputs) -> Outputs:  # type: ignore[override]
        """Run the guard; see the module docstring for the events it emits."""
        # the readers (parser, pint, rules, BM25) load on the first action, not when the service starts
        from abilities.scu_guard.check import run_checks
        from abilities.scu_guard.combined import forms_for
        from abilities.scu_guard.detect import cached_rule
        from abilities.scu_guard.retrieval import retrieve
        from abilities.scu_guard.rules import rule_summary

        lock = lock_constraints(inputs.constraints)
        if ctx.lock and ctx.lock.get("hash_full", lock["hash_full"]) != lock["hash_full"]:
            raise AbilityError(
                "CONSTRAINT_VIOLATION",
                "the service lock differs from this action's constraints",
                {"service": ctx.lock.get("hash"), "ability": lock["hash"]},
            )
        ctx.trace({"rules": [{"constraint": c, **rule_summary(cached_rule(c))} for c in lock["constraints"]]})
        forms, unparsed = forms_for(lock["constraints"], inputs.forms)
        chunks = [c.model_dump() for c in inputs.chunks]
        ret = retrieve(inputs.question, chunks, inputs.top_k)
        ctx_ids: list[str] = ret["ctx_ids"]
        ctx.receipt(
            "retrieval",
            {
                "method": ret["method"],
                "library": "bm25s",
                "top_k": inputs.top_k,
                "n_chunks": len(chunks),
                "ctx_ids": ctx_ids,
                "scores": ret["scores"],
                "lock_hash": lock["hash"],
            },
        )
        ctx.checkpoint("context_delta", {"ctx_ids": ctx_ids, "lock_hash": lock["hash"]})

        prompt: str | None = None
        answer: Any = inputs.answer
        if answer is None:
            by_id = {c["id"]: c for c in chunks}
            prompt = build_prompt(inputs.question, [by_id[i] for i in ctx_ids], lock)
            try:
                answer = ctx.ask("answer", {"prompt": prompt, "lock": lock})
            except TimeoutError:
                raise AbilityError("answer_timeout", "no answer arrived with actions.input") from None
            problem = _client_value_problem(answer)
            if problem is not None:
                answer = None
                ctx.notice("answer_unusable", {"detail": problem})
        result = run_checks(lock, ctx_ids, answer, forms=forms,
                            chunk_texts={c["id"]: c["text"] for c in chunks}, question=inputs.question)
        self._report(ctx, result, lock)
        return Outputs(
            verdict=result.verdict,
            reason=result.reason,
            lock=lock,
            ctx_ids=ctx_ids,  # type: ignore[arg-type]
            contradictions=[f.as_dict() for f in result.contradictions],
            suspected=[f.as_dict() for f in result.suspected],
            understood=forms,
            unparsed_constraints=unparsed,
            prompt=prompt,
        )

    @staticmethod
    def _report(ctx: ActionContext, result: GuardResult, lock: dict[str, Any]) -> None:
        for i, chk in enumerate(result.checks):
            payload = {
                "check": chk["check"],
                "passed": chk["passed"],
                "detail": chk["detail"],
                "step": i + 1,
                "lock_hash": lock["hash"],
            }
            ctx.receipt("verifier", {"verifier": "scu_guard." + chk["check"], **payload})
            ctx.checkpoint("verifier_update", payload)
        ctx.checkpoint(
            "boundary_summary",
            {
                "verdict": result.verdict,
                "reason": result.reason,
                "lock_hash": lock["hash"],
                "lock_hash_full": lock["hash_full"],
                "checks_run": len(result.checks),
                "contradictions": len(result.contradictions),
                "suspected": len(result.suspected),
                "rules_fired": sorted({f.rule for f in result.contradictions}),
            },
        )
