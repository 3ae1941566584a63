"""The ``mathlas`` ability: ``{tool, args}`` in, the tool's result out, over the ToolBus.

A thin wrapper over ``tools.TOOLS``: arguments are validated in the Inputs model (so bad args
give JSON-RPC -32602 naming the field before anything runs), every tool call is a receipt,
every verification a ``verifier_update`` checkpoint, and a ``boundary_summary`` closes the action.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from abilities.base import Ability, AbilityError, ActionContext
from abilities.mathlas.retrieve import TENANT
from abilities.mathlas.tools import TOOLS, validate_args


def _digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


class MathlasInputs(BaseModel):
    """Which tool to run and its arguments (validated against the tool's own model)."""

    model_config = ConfigDict(extra="forbid")
    tool: str = Field(description=f"one of: {', '.join(TOOLS)}")
    args: dict[str, Any] = Field(default_factory=dict, description="the tool's arguments")

    @field_validator("tool")
    @classmethod
    def _known(cls, v: str) -> str:
        if v not in TOOLS:
            raise ValueError(f"unknown tool {v[:60]!r}; known tools: {', '.join(TOOLS)}")
        return v

    @field_validator("args")
    @classmethod
    def _args(cls, v: dict[str, Any], info: Any) -> dict[str, Any]:
        tool = info.data.get("tool")
        if tool is None:
            return v  # the tool error is reported on its own field
        if len(json.dumps(v, default=str)) > 200_000:
            raise ValueError("args larger than 200000 characters of JSON")
        if "data_dir" in v:  # server paths are the operator's (MATHLAS_OEIS_DIR), never a client's
            raise ValueError("data_dir is not accepted over the service; the operator sets MATHLAS_OEIS_DIR")
        try:
            validate_args(tool, v)
        except ValidationError as exc:
            parts = []
            for e in exc.errors()[:5]:
                loc = ".".join(str(p) for p in e["loc"]) or "args"
                parts.append(f"{loc}: {e['msg']}")
            raise ValueError(f"invalid args for {tool}: " + "; ".join(parts)) from None
        return v


class MathlasOutputs(BaseModel):
    """The tool's result, boundary-only."""

    tool: str
    result: dict[str, Any]


def verifications(tool: str, result: dict[str, Any]) -> list[dict[str, Any]]:
    """The verification events a result carries (one verifier_update checkpoint each)."""
    if tool == "identify_constant":
        ev = [{"verifier": "pslq+sympy_recheck", "claim": c["expr"], "verdict": "VERIFIED",
               "digits_agreed": c["digits_agreed"]} for c in result["candidates"]]
        return ev or [{"verifier": "pslq+sympy_recheck", "claim": None, "verdict": "UNIDENTIFIED",
                       "reason": result.get("unidentified_reason")}]
    if tool == "verify_numeric":
        return [{"verifier": "mpmath+sympy", "claim": result["closed_form"], "verdict": result["verdict"],
                 "digits_agreed": result.get("digits_agreed")}]
    if tool == "verify_formal":
        return [{"verifier": "lean_kernel", "mode": result["mode"], "verdict": result["verdict"],
                 "toolchain": bool(result.get("toolchain"))}]
    if tool == "conjecture_relation":
        return [{"verifier": "deep_reevaluation", "claim": r.get("display"), "verdict": "LOCKED",
                 "digits_agreed": r.get("digits_agreed")} for r in result["relations"]]
    if tool == "identify_sequence":
        return [{"verifier": "exact_term_match", "claim": m["a_number"], "verdict": "EXACT_MATCH",
                 "offset": m["offset"]} for m in result["matches"]]
    if tool == "funsearch" and result.get("action") in ("evaluate", "register"):
        ev = result.get("evaluation", result)
        return [{"verifier": "sandboxed_scorer", "problem": ev.get("problem"), "status": ev.get("status"),
                 "score": ev.get("score")}]
    return []


def headline(tool: str, r: dict[str, Any]) -> str:
    if tool == "identify_constant":
        return f"identified as {r['best']}" if r["identified"] else "unidentified"
    if tool == "identify_sequence":
        return f"{len(r['matches'])} exact match(es)" + (f", first {r['matches'][0]['a_number']}" if r["matches"] else "")
    if tool in ("verify_numeric", "verify_formal"):
        return r["verdict"]
    if tool in ("search_existing_math", "search_formal_math"):
        return f"{len(r['results'])} result(s)"
    if tool == "conjecture_relation":
        return f"{len(r['relations'])} conjectured relation(s)"
    if tool == "funsearch":
        return f"{r['action']}: score {r.get('score')}" if r["action"] != "status" else f"{r['registered']} registered"
    if tool == "add_finding":
        return "added" if r.get("added") else "not added"
    return "done"


class MathlasAbility(Ability):
    """No-LLM math toolbox for AIs: twelve tools returning data, verdicts and scaffolds."""

    name: ClassVar[str] = "mathlas"
    version: ClassVar[str] = "1.0.0"
    description: ClassVar[str] = ("mathlas: identify constants and sequences, search well-known results, verify "
                                  "numeric and formal claims, checklists and scaffolds, a sandboxed FunSearch harness. "
                                  "Never calls a model.")
    Inputs: ClassVar[type[BaseModel]] = MathlasInputs
    Outputs: ClassVar[type[BaseModel]] = MathlasOutputs

    def run(self, ctx: ActionContext, inputs: Any) -> MathlasOutputs:
        inp = inputs if isinstance(inputs, MathlasInputs) else MathlasInputs.model_validate(inputs)
        fn, _, _ = TOOLS[inp.tool]
        args = validate_args(inp.tool, inp.args).model_dump()
        ctx.checkpoint("plan_delta", {"tool": inp.tool, "args_sha256": _digest(args)})
        scope = TENANT.set(ctx.tenant)  # findings and FunSearch data are per tenant
        try:
            result = fn(**args)
        except (ValueError, ArithmeticError) as exc:
            ctx.receipt("tool_call", {"tool": inp.tool, "args_sha256": _digest(args), "status": "error",
                                      "error": str(exc)[:300]})
            raise AbilityError("tool_error", f"{inp.tool} failed: {str(exc)[:300]}") from exc
        finally:
            TENANT.reset(scope)
        ctx.receipt("tool_call", {"tool": inp.tool, "args": _bounded(args), "args_sha256": _digest(args),
                                  "status": "ok", "result_sha256": _digest(result), "headline": headline(inp.tool, result)})
        for ev in verifications(inp.tool, result):
            ctx.checkpoint("verifier_update", {"tool": inp.tool, **ev})
        ctx.checkpoint("boundary_summary", {"tool": inp.tool, "summary": headline(inp.tool, result),
                                            "result_sha256": _digest(result)})
        return MathlasOutputs(tool=inp.tool, result=result)


def _bounded(args: dict[str, Any]) -> dict[str, Any]:
    """Arguments as recorded in receipts: long strings are cut (their hash is kept alongside)."""
    return {k: (v[:500] + "..." if isinstance(v, str) and len(v) > 500 else v) for k, v in args.items()}
