"""Hard clauses to z3 (booleans per hypothesis, integer time, real metrics); soft clauses scored.

The background is the evidence (known times, values, atoms, Ken paths) plus the hypothesis
structure (each hypothesis implies its claims and fixes its onset time; at most one explanation
is adopted). Each hard clause is tracked by name, so a contradiction comes back as an unsat core
of clause labels and facts. z3 runs under a resource limit (``rlimit``), not a wall timeout, so
its answers are deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from abilities.cda.dsl import (
    RISK_LEVELS,
    Atom,
    Before,
    ExistsPath,
    Holds,
    Not,
    Prefer,
    Ref,
    UsePolicy,
    ValueCmp,
    Within,
    Xor,
)

# Atoms whose truth only a hypothesis can establish (closed world over the candidate set).
HYP_PREDICATES = ("root_cause", "fault", "cause")
RLIMIT = 2_000_000


@dataclass
class Hyp:
    """A candidate explanation: its id, the Ken node it blames, claimed atoms and onset time."""

    id: str
    target: str
    kind: str
    claims: list[str] = field(default_factory=list)
    onset: int | None = None
    label: str = ""


@dataclass
class Facts:
    """What the evidence says, as seen by the solver (gated evidence is simply absent)."""

    times: dict[str, int] = field(default_factory=dict)
    values: dict[str, float] = field(default_factory=dict)
    atoms: dict[str, bool] = field(default_factory=dict)
    paths: dict[str, bool] = field(default_factory=dict)
    risk: int = 0


def path_key(c: ExistsPath, src: str | None = None) -> str:
    return f"{src or c.src.id}|{c.edge}|{c.dst.id}|{c.hops}"


_CMP = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}


class ConstraintSystem:
    """Compiles clauses against facts and hypotheses; answers consistency and entailment."""

    def __init__(self, hard: list[tuple[str, Any]], soft: list[tuple[str, Any, float]], facts: Facts,
                 hyps: list[Hyp], targets: dict[str, str] | None = None, single: bool = True) -> None:
        self.facts = facts
        self.hyps = hyps
        self.targets = targets or {}
        self.ctx = z3.Context()
        self._H = {h.id: z3.Bool(f"H[{h.id}]", self.ctx) for h in hyps}
        self._A: dict[str, z3.BoolRef] = {}
        self._T: dict[str, z3.ArithRef] = {}
        self._V: dict[str, z3.ArithRef] = {}
        self._U: dict[str, z3.BoolRef] = {}
        self._P: dict[str, z3.BoolRef] = {}
        self._risk = z3.Int("risk", self.ctx)
        self.background: list[tuple[str, z3.BoolRef]] = []
        self._bg_names: set[str] = set()
        self.hard = [(label, self.compile(c)) for label, c in hard]
        self.soft = [(label, self.compile(c.inner if isinstance(c, Prefer) else c), w) for label, c, w in soft]
        self._structure(single)
        self.solver = self._make(with_facts=True, with_hard=True)

    # ------------------------------------------------------------------ variables
    def _bg(self, name: str, expr: z3.BoolRef) -> None:
        if name not in self._bg_names:
            self._bg_names.add(name)
            self.background.append((name, expr))

    def hvar(self, hid: str) -> z3.BoolRef:
        if hid not in self._H:
            self._H[hid] = z3.Bool(f"H[{hid}]", self.ctx)
            self._bg(f"unknown:{hid}", z3.Not(self._H[hid]))
        return self._H[hid]

    def atom(self, key: str) -> z3.BoolRef:
        if key not in self._A:
            self._A[key] = z3.Bool(f"A[{key}]", self.ctx)
            if key in self.facts.atoms:
                v = self._A[key] if self.facts.atoms[key] else z3.Not(self._A[key])
                self._bg(f"fact:{key}", v)
        return self._A[key]

    def time(self, ref: Ref) -> z3.ArithRef:
        rid = ref.id
        if rid not in self._T:
            self._T[rid] = z3.Int(f"T[{rid}]", self.ctx)
            if rid in self.facts.times:
                self._bg(f"fact:time({rid})", self._T[rid] == self.facts.times[rid])
            for h in self.hyps:
                if h.id == rid and h.onset is not None:
                    self._bg(f"onset:{rid}", z3.Implies(self.hvar(rid), self._T[rid] == h.onset))
        return self._T[rid]

    def value(self, ref: Ref) -> z3.ArithRef:
        rid = ref.id
        if rid not in self._V:
            self._V[rid] = z3.Real(f"V[{rid}]", self.ctx)
            if rid in self.facts.values:
                self._bg(f"fact:value({rid})", self._V[rid] == z3.RealVal(repr(float(self.facts.values[rid])), self.ctx))
        return self._V[rid]

    def _as_bool(self, ref: Ref) -> z3.BoolRef:
        if ref.ns == "hyp":
            return self.hvar(ref.id)
        return self.atom(f"root_cause({ref.id})")

    # ------------------------------------------------------------------ compile
    def compile(self, c: Any) -> z3.BoolRef:
        if isinstance(c, Atom):
            return self.atom(c.key)
        if isinstance(c, Holds):
            return self.atom(c.atom.key)
        if isinstance(c, Not):
            return z3.Not(self.compile(c.inner))
        if isinstance(c, Prefer):
            return self.compile(c.inner)
        if isinstance(c, Before):
            return self.time(c.first) < self.time(c.second)
        if isinstance(c, Within):
            a, b = self.time(c.first), self.time(c.second)
            return z3.And(a - b <= c.seconds, b - a <= c.seconds)
        if isinstance(c, Xor):
            return z3.PbEq([(self._as_bool(r), 1) for r in c.refs], 1)
        if isinstance(c, ValueCmp):
            rhs = self.value(c.rhs) if isinstance(c.rhs, Ref) else z3.RealVal(repr(float(c.rhs)), self.ctx)
            return _CMP[c.op](self.value(c.ref), rhs)
        if isinstance(c, UsePolicy):
            if c.provider.id not in self._U:
                self._U[c.provider.id] = z3.Bool(f"U[{c.provider.id}]", self.ctx)
            self._bg("fact:risk", self._risk == self.facts.risk)
            return z3.Implies(self._U[c.provider.id], _CMP[c.op](self._risk, RISK_LEVELS[c.risk]))
        if isinstance(c, ExistsPath):
            if c.src.ns == "hyp":
                target = self.targets.get(c.src.id)
                known = self.facts.paths.get(path_key(c, target)) if target else None
                if known is None:
                    return self._pvar(path_key(c))
                return z3.Implies(self.hvar(c.src.id), z3.BoolVal(known, self.ctx))
            key = path_key(c)
            if key in self.facts.paths:
                pv = self._pvar(key)
                self._bg(f"fact:path({key})", pv if self.facts.paths[key] else z3.Not(pv))
                return pv
            return self._pvar(key)
        raise TypeError(f"cannot compile {type(c).__name__}")

    def _pvar(self, key: str) -> z3.BoolRef:
        if key not in self._P:
            self._P[key] = z3.Bool(f"P[{key}]", self.ctx)
        return self._P[key]

    def _structure(self, single: bool) -> None:
        claimants: dict[str, list[z3.BoolRef]] = {}
        for h in self.hyps:
            hv = self.hvar(h.id)
            for key in h.claims:
                self._bg(f"claim:{h.id}:{key}", z3.Implies(hv, self.atom(key)))
                claimants.setdefault(key, []).append(hv)
            if h.onset is not None:
                self.time(Ref("hyp", h.id.split(":", 1)[1]))
        for key in sorted(self._A):
            if key.split("(", 1)[0] in HYP_PREDICATES:
                hs = claimants.get(key, [])
                self._bg(f"closed:{key}", self._A[key] == (z3.Or(*hs) if hs else z3.BoolVal(False, self.ctx)))
        if single and self._H:
            self._bg("single_explanation", z3.AtMost(*self._H.values(), 1))

    # ------------------------------------------------------------------ queries
    def _make(self, with_facts: bool, with_hard: bool) -> z3.Solver:
        s = z3.Solver(ctx=self.ctx)
        s.set("rlimit", RLIMIT)
        for name, expr in self.background:
            if with_facts or not name.startswith("fact:"):
                s.assert_and_track(expr, z3.Bool(f"<{name}>", self.ctx))
        if with_hard:
            for label, expr in self.hard:
                s.assert_and_track(expr, z3.Bool(f"<{label}>", self.ctx))
        return s

    @staticmethod
    def _core(s: z3.Solver) -> list[str]:
        return sorted(str(x)[1:-1] for x in s.unsat_core() if str(x).startswith("<"))

    def contradiction(self) -> dict[str, Any] | None:
        """None if the hard clauses are satisfiable with the evidence, else the reason and core."""
        res = self.solver.check()
        if res != z3.unsat:
            return None
        core = self._core(self.solver)
        alone = self._make(with_facts=False, with_hard=True)
        kind = "constraints_contradict_each_other" if alone.check() == z3.unsat else \
            "constraints_contradict_evidence"
        if kind == "constraints_contradict_each_other":
            core = self._core(alone)
        return {"kind": kind, "core": core}

    def clause_status(self) -> list[dict[str, Any]]:
        """Per hard clause: entailed by the evidence, violated by it, or undetermined."""
        s = self._make(with_facts=True, with_hard=False)
        out = []
        for label, expr in self.hard:
            out.append({"clause": label, "status": self._status(s, expr)})
        return out

    def _status(self, s: z3.Solver, expr: z3.BoolRef, *assume: z3.BoolRef) -> str:
        s.push()
        s.add(z3.Not(expr))
        neg = s.check(*assume)
        s.pop()
        s.push()
        s.add(expr)
        pos = s.check(*assume)
        s.pop()
        if pos == z3.unsat and neg == z3.unsat:
            return "inconsistent"
        if neg == z3.unsat:
            return "entailed"
        if pos == z3.unsat:
            return "violated"
        return "undetermined"

    def check_hypothesis(self, hid: str) -> tuple[bool, list[str]]:
        """Is adopting ``hid`` consistent with every hard clause? (ok, unsat core if not)."""
        res = self.solver.check(self.hvar(hid))
        if res == z3.unsat:
            return False, self._core(self.solver)
        return True, []

    def soft_status(self, hid: str) -> list[str]:
        """Per soft clause, under hypothesis ``hid``: entailed / violated / undetermined."""
        return [self._status(self.solver, expr, self.hvar(hid)) for _, expr, _ in self.soft]

    def clause_split(self, expr: z3.BoolRef, hid: str) -> float:
        """P(clause true | hypothesis) for next-test planning: 1, 0, or 0.5 when undecided."""
        st = self._status(self.solver, expr, self.hvar(hid))
        return {"entailed": 1.0, "violated": 0.0}.get(st, 0.5)
