"""The proof trail: expressions, steps, obligations and witnesses (representations F and A).

Every step goes through ``Trail.add_step``, which computes the obligations the step creates
(conditions of the step's input domain that its output no longer carries, plus the rule's own
narrowing conditions) so that no rule can forget one, and emits a ``plan_delta`` checkpoint.
``Trail.witness`` attaches the witnesses (rule, CAS, seeded random test), writes each tool
check as a receipt with the payload's hash, and emits a ``verifier_update``.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from typing import Any, Protocol

import sympy

from abilities.base import derive_rng
from abilities.crl_math import cas, numeric
from abilities.crl_math.domain import Cond, domain, implies, reduce_conds, satisfiable, sort_conds
from abilities.crl_math.parser import realify
from abilities.crl_math.rules import CATALOG
from abilities.crl_math.sets import show_set


class Hooks(Protocol):
    """What the core needs from its host (the ability passes the ActionContext)."""

    def checkpoint(self, kind: str, payload: dict[str, Any]) -> None: ...
    def receipt(self, kind: str, payload: dict[str, Any]) -> None: ...
    def should_stop(self) -> bool: ...
    def save_partial(self, outputs: dict[str, Any]) -> None: ...


class NullHooks:
    """Hooks that record everything in lists (used by tests and the benchmark)."""

    def __init__(self) -> None:
        self.checkpoints: list[tuple[str, dict[str, Any]]] = []
        self.receipts: list[tuple[str, dict[str, Any]]] = []
        self.partials: list[dict[str, Any]] = []
        self.traces: list[dict[str, Any]] = []
        self.stop = False

    def trace(self, payload: dict[str, Any]) -> None:
        self.traces.append(payload)

    def checkpoint(self, kind: str, payload: dict[str, Any]) -> None:
        self.checkpoints.append((kind, payload))

    def receipt(self, kind: str, payload: dict[str, Any]) -> None:
        self.receipts.append((kind, payload))

    def should_stop(self) -> bool:
        return self.stop

    def save_partial(self, outputs: dict[str, Any]) -> None:
        self.partials.append(outputs)


def payload_hash(payload: Any) -> str:
    """SHA-256 of the canonical (sorted-key, compact) JSON of a tool payload."""
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str).encode("utf-8")
    return "sha256:" + hashlib.sha256(blob).hexdigest()


def show(expr: sympy.Basic) -> str:
    """An expression or equation in sympy syntax (equations print as ``lhs = rhs``)."""
    if isinstance(expr, sympy.Equality):
        return f"{sympy.sstr(expr.lhs)} = {sympy.sstr(expr.rhs)}"
    if isinstance(expr, sympy.Set):
        return show_set(expr)
    return sympy.sstr(expr)


@dataclass
class ExprRec:
    expr_id: str
    expr: sympy.Basic
    surface: str
    rep: str = "F"
    type: str = "Real -> Real"
    assumptions: list[str] = field(default_factory=list)

    def out(self) -> dict[str, Any]:
        return {
            "expr_id": self.expr_id,
            "surface": self.surface,
            "rep": self.rep,
            "type": self.type,
            "assumptions": self.assumptions,
        }


@dataclass
class Obligation:
    obl_id: str
    cond: Cond
    origin_step_id: str
    kind: str  # domain | narrowing | stated
    status: str = "required"
    note: str = ""
    added_by: str = "rule"

    def out(self) -> dict[str, Any]:
        return {
            "obl_id": self.obl_id,
            "predicate": self.cond.text,
            "origin_step_id": self.origin_step_id,
            "status": self.status,
            "kind": self.kind,
            "added_by": self.added_by,
            "note": self.note,
        }


@dataclass
class Witness:
    wit_id: str
    kind: str
    payload_hash: str
    note: str
    step_id: str
    ok: bool

    def out(self) -> dict[str, Any]:
        return {
            "wit_id": self.wit_id,
            "kind": self.kind,
            "payload_hash": self.payload_hash,
            "note": self.note,
            "step_id": self.step_id,
            "ok": self.ok,
        }


@dataclass
class StepRec:
    step_id: str
    rule: str
    input_expr_ids: list[str]
    output_expr_id: str
    obligations_added: list[str] = field(default_factory=list)
    witness_ids: list[str] = field(default_factory=list)
    note: str = ""
    status: str = "accepted"
    violation: dict[str, str] | None = None

    def out(self, trail: Trail) -> dict[str, Any]:
        return {
            "step_id": self.step_id,
            "rule": self.rule,
            "input_expr_ids": self.input_expr_ids,
            "output_expr_id": self.output_expr_id,
            "input": trail.exprs[self.input_expr_ids[0]].surface if self.input_expr_ids else "",
            "output": trail.exprs[self.output_expr_id].surface,
            "obligations_added": self.obligations_added,
            "witness_ids": self.witness_ids,
            "note": self.note,
            "status": self.status,
            "violation": self.violation,
        }


class Trail:
    """Accumulates F (expressions, steps) and A (witnesses, hashes) for one problem."""

    def __init__(
        self,
        hooks: Hooks,
        seed: bytes,
        real: bool,
        assumptions: list[Cond],
        assumption_texts: list[str],
        tests_per_step: int = 20,
    ) -> None:
        self.hooks = hooks
        self.seed = seed
        self.real = real
        self.assumptions = assumptions
        self.assumption_texts = assumption_texts
        self.tests_per_step = tests_per_step
        self.exprs: dict[str, ExprRec] = {}
        self.steps: list[StepRec] = []
        self.obligations: list[Obligation] = []
        self.witnesses: list[Witness] = []
        self._domains: dict[str, list[Cond]] = {}
        self.final_conditions: list[Cond] = []
        self.final_sets: list[sympy.Set] = []  # solve: the answer set (one per parameter case)

    # -- F -------------------------------------------------------------------------------
    def add_expr(self, expr: sympy.Basic, surface: str | None = None) -> str:
        expr_id = f"E{len(self.exprs)}"
        syms = expr.free_symbols
        field_ = "Real" if self.real else "Complex"
        arity = "" if len(syms) <= 1 else f"^{len(syms)}"
        if isinstance(expr, sympy.Equality):
            kind = "Equation"
        elif isinstance(expr, sympy.Rel):
            kind = "Inequality"
        elif isinstance(expr, sympy.Set):
            kind = "Set"
        else:
            kind = f"{field_}{arity} -> {field_}"
        self.exprs[expr_id] = ExprRec(
            expr_id, expr, surface if surface is not None else show(expr), "F", kind, list(self.assumption_texts)
        )
        return expr_id

    def domain_of(self, expr_id: str) -> list[Cond]:
        if expr_id not in self._domains:
            e = self.exprs[expr_id].expr
            parts = [e.lhs, e.rhs] if isinstance(e, sympy.Equality) else [e]
            conds: list[Cond] = []
            for p in parts:
                conds.extend(domain(p, self.real))
            self._domains[expr_id] = sort_conds(conds)
        return self._domains[expr_id]

    def required(self) -> list[Obligation]:
        return [o for o in self.obligations if o.status == "required"]

    def add_obligation(self, cond: Cond, step_id: str, kind: str, note: str, added_by: str = "rule") -> str:
        for o in self.obligations:
            if o.cond.key == cond.key and o.status == "required":
                return o.obl_id
        obl = Obligation(f"O{len(self.obligations) + 1}", cond, step_id, kind, "required", note, added_by)
        self.obligations.append(obl)
        return obl.obl_id

    def add_step(
        self,
        rule: str,
        input_id: str,
        output: sympy.Basic,
        narrowing: list[Cond] | None = None,
        note: str = "",
        surface: str | None = None,
        domain_obligations: bool = True,
    ) -> StepRec:
        """Record a rewrite; its obligations are derived here, not trusted from the rule."""
        use = getattr(self.hooks, "use", None)
        if use is not None:
            use(steps=1)  # one rewrite = one step of the action's step budget
        if self.real:
            output = realify(output)
        out_id = self.add_expr(output, surface)
        step = StepRec(f"S{len(self.steps) + 1}", rule, [input_id], out_id, note=note)
        premises = [*self.assumptions, *(o.cond for o in self.required())]
        if domain_obligations:
            carried = self.domain_of(out_id)
            for c in self.domain_of(input_id):
                if not implies([*carried, *premises], c, self.real):
                    step.obligations_added.append(
                        self.add_obligation(c, step.step_id, "domain", f"{rule} drops the condition {c.text}")
                    )
        for c in narrowing or []:
            if not implies([*self.domain_of(input_id), *premises], c, self.real):
                step.obligations_added.append(
                    self.add_obligation(c, step.step_id, "narrowing", f"{rule} is valid only where {c.text}")
                )
        self.steps.append(step)
        self.hooks.checkpoint(
            "plan_delta",
            {
                "step_id": step.step_id,
                "rule": rule,
                "input": self.exprs[input_id].surface,
                "output": self.exprs[out_id].surface,
                "obligations_added": [self._obl(o).cond.text for o in step.obligations_added],
            },
        )
        return step

    def _obl(self, obl_id: str) -> Obligation:
        return next(o for o in self.obligations if o.obl_id == obl_id)

    def snapshot(self) -> tuple[int, int, int, int]:
        return len(self.steps), len(self.obligations), len(self.witnesses), len(self.exprs)

    def retract(self, mark: tuple[int, int, int, int], reason: str) -> None:
        """Drop the steps proposed since ``mark`` (their checkpoints stay in the log, marked retracted)."""
        n_steps, n_obl, n_wit, n_expr = mark
        for s in self.steps[n_steps:]:
            self.hooks.checkpoint("plan_delta", {"step_id": s.step_id, "rule": s.rule, "retracted": True,
                                                 "reason": reason})
        self.steps = self.steps[:n_steps]
        self.obligations = self.obligations[:n_obl]
        self.witnesses = self.witnesses[:n_wit]
        for key in list(self.exprs)[n_expr:]:
            del self.exprs[key]
            self._domains.pop(key, None)

    # -- A -------------------------------------------------------------------------------
    def rng(self, purpose: str) -> random.Random:
        return derive_rng(self.seed, f"crl_math/{purpose}")

    def add_witness(self, step_id: str, kind: str, payload: dict[str, Any], note: str, ok: bool) -> Witness:
        h = payload_hash(payload)
        w = Witness(f"W{len(self.witnesses) + 1}", kind, h, note, step_id, ok)
        self.witnesses.append(w)
        if kind != "AlgebraRule":
            self.hooks.receipt(
                "tool_check",
                {"tool": "sympy" if kind == "CAS" else "mpmath", "wit_id": w.wit_id, "step_id": step_id,
                 "kind": kind, "payload": payload, "payload_hash": h, "ok": ok},
            )
        self.hooks.checkpoint(
            "verifier_update",
            {"wit_id": w.wit_id, "step_id": step_id, "kind": kind, "ok": ok, "payload_hash": h, "note": note},
        )
        return w

    def conditions_in_force(self) -> list[Cond]:
        return [*self.assumptions, *(o.cond for o in self.required())]

    def witness(self, step: StepRec, extra: list[Cond] | None = None) -> bool:
        """Attach rule, CAS and random-test witnesses to ``step``; True when none refutes it."""
        a = self.exprs[step.input_expr_ids[0]].expr
        b = self.exprs[step.output_expr_id].expr
        conds = [*self.conditions_in_force(), *(extra or [])]
        rule = CATALOG.get(step.rule)
        w = self.add_witness(
            step.step_id,
            "AlgebraRule",
            {"rule": step.rule, "statement": rule.statement if rule else ""},
            rule.statement if rule else step.rule,
            True,
        )
        step.witness_ids.append(w.wit_id)
        ok = True
        if not (isinstance(a, sympy.Expr) and isinstance(b, sympy.Expr)):
            return ok
        verdict = cas.cas_equivalent(a, b, conds, self.real)
        payload = {"check": "a - b == 0 under conditions", "a": show(a), "b": show(b),
                   "conditions": [c.text for c in conds], "verdict": verdict}
        w = self.add_witness(step.step_id, "CAS", payload, f"sympy: {verdict}", verdict != "refuted")
        step.witness_ids.append(w.wit_id)
        ok = ok and verdict != "refuted"
        probes = [*self.domain_of(step.input_expr_ids[0]), *self.domain_of(step.output_expr_id)]
        cmp = numeric.compare(a, b, conds, self.rng(f"witness/{step.step_id}"), self.tests_per_step, self.real,
                              probe_from=probes)
        payload = {"check": "strict evaluation at seeded points", "a": show(a), "b": show(b),
                   "conditions": [c.text for c in conds], **cmp.payload()}
        note = f"{cmp.tested} points, {cmp.equal} equal, {cmp.both_undefined} both undefined"
        w = self.add_witness(step.step_id, "RandomTest", payload, note, cmp.ok)
        step.witness_ids.append(w.wit_id)
        return ok and cmp.ok

    # -- closing -------------------------------------------------------------------------
    def discharge(self, final_id: str) -> None:
        """Mark obligations discharged when assumptions, the result or the others imply them."""
        carried = self.domain_of(final_id)
        for o in sorted(self.required(), key=lambda o: o.obl_id):
            others = [p.cond for p in self.required() if p.obl_id != o.obl_id]
            if self.assumptions and not satisfiable([*self.assumptions, o.cond], self.real):
                o.status, o.note = "contradicted", f"the assumptions exclude it ({o.note})"
            elif implies(self.assumptions, o.cond, self.real):
                o.status, o.note = "discharged", f"implied by the assumptions ({o.note})"
            elif o.kind == "domain" and implies(carried, o.cond, self.real):
                o.status, o.note = "discharged", f"carried by the result's own domain ({o.note})"
            elif others and implies(others + self.assumptions, o.cond, self.real):
                o.status, o.note = "discharged", f"implied by the other conditions ({o.note})"

    def conditions(self) -> list[Cond]:
        return reduce_conds([o.cond for o in self.required()], self.real, keep=self.assumptions)

