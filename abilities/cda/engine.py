"""The CDA loop (spec §4, §5): seed, propagate, verify, refine, update context, converge.

``CdaRun(ctx, inputs, ken).run()`` is the whole algorithm over an ``ActionContext``: it is
plain, synchronous and deterministic for a given seed and inputs (wall-clock only decides *when*
to stop, never what is computed). Checkpoints carry boundary-safe summaries; raw candidate
tables go to ``ctx.trace`` only.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import time
from typing import Any

from abilities.base import AbilityError, PartialResult
from abilities.cda import artifacts, escalation, evidence, subactions
from abilities.cda.dsl import (
    RISK_LEVELS,
    ExistsPath,
    Holds,
    Not,
    Prefer,
    Ref,
    ValueCmp,
    Xor,
    atoms_of,
    parse_clause,
    refs_of,
)
from abilities.cda.ken import Ken, node_type
from abilities.cda.models import CDAInputs, CDAOutputs, NextTest, Verdict
from abilities.cda.scoring import (
    Candidate,
    band,
    confidence,
    information_gain,
    likelihood,
    p_at,
    posteriors,
    raw_confidence,
    reach,
)
from abilities.cda.solver import HYP_PREDICATES, ConstraintSystem, Hyp, path_key

MAX_KEN_QUERIES = 120
MAX_VERDICTS = 20
MAX_NEXT_TESTS = 5
MAX_SEEDS = 1_000
PROP_DEPTH = 6


def hyp_id_for(target: str) -> str:
    """Generated hypothesis ids: ``hyp:rc.<entity>`` (fault at an entity), ``hyp:ev.<event>``."""
    ntype, _, name = target.partition(":")
    if ntype == "hyp":
        return target
    return f"hyp:{'ev' if ntype == 'event' else 'rc'}.{name}"


def search_params(seed: bytes, purpose: str, wall_s: float | None, escalated: bool) -> dict[str, int]:
    """Beam width and depth cap from the hmac-v1 seed and the wall budget (deterministic)."""
    digest = hmac.new(seed, f"cda/search/{purpose}".encode(), hashlib.sha256).digest()
    if wall_s is None or wall_s >= 30:
        width, depth = 10, 5
    elif wall_s >= 10:
        width, depth = 8, 4
    else:
        width, depth = 5, 3
    width += digest[0] % 4
    depth += digest[1] % 2
    if escalated:
        width, depth = width + width // 2, depth + 1
    return {"beam_width": width, "depth_cap": min(depth, 7), "prop_depth": PROP_DEPTH}


class CdaRun:
    """One execution of the abduction loop for one action."""

    def __init__(self, ctx: Any, inputs: CDAInputs, ken: Ken) -> None:
        self.ctx, self.inp, self.ken = ctx, inputs, ken
        self.t0 = time.monotonic()
        self.hard = [(f"hard[{i}]", parse_clause(c)) for i, c in enumerate(inputs.constraints.hard or [])]
        self.soft = []
        for i, s in enumerate(inputs.constraints.soft or []):
            c = parse_clause(s.clause)
            w = s.weight if s.weight is not None else (c.weight if isinstance(c, Prefer) and c.weight is not None else 1.0)
            self.soft.append((f"soft[{i}]", c, float(w)))
        self.criteria = [(f"criterion[{i}]", parse_clause(c)) for i, c in enumerate(inputs.goals.success_criteria or [])]
        self.caveats: list[str] = []
        self.stubs: list[dict[str, Any]] = []
        self.ken_log: list[dict[str, Any]] = []
        self.verifier_log: list[dict[str, Any]] = []
        self.sub_log: list[dict[str, Any]] = []
        self.gated: set[str] = set()
        self.conservative = False
        self.scored: dict[str, Candidate] = {}
        self.beam: list[str] = []
        self.rounds: list[dict[str, Any]] = []
        self.adopted: set[str] = set()
        self.summary_id: str | None = None
        self.converged = "not_started"
        self.contradiction: dict[str, Any] | None = None
        self.clause_states: list[dict[str, Any]] = []
        self.test_targets: dict[str, dict[str, Any]] = {}  # next-test question -> what a sub-action needs
        wall = ctx.budgets.get("wall_s") if isinstance(ctx.budgets, dict) else None
        if inputs.budgets.wall is not None:
            wall = inputs.budgets.wall if wall is None else min(wall, inputs.budgets.wall)
        self.wall = wall

    # ------------------------------------------------------------------ plumbing
    def receipt(self, kind: str, payload: dict[str, Any]) -> None:
        body = {**payload, "seed_fingerprint": self.ctx.seed_fingerprint, "action_id": self.ctx.action_id}
        if self.inp.action_id:
            body["legacy"] = {"aliases": [{"work_unit_id": self.inp.action_id, "action_id": self.ctx.action_id}]}
        self.ctx.receipt(kind, body)

    def ken_receipt(self, rec: dict[str, Any]) -> str:
        qid = f"kq-{len(self.ken_log) + 1}"
        rec = {"query_id": qid, **rec}
        self.ken_log.append(rec)
        self.receipt("ken_query", rec)
        return qid

    def stub(self, rec: dict[str, Any]) -> None:
        rec = {"stub_id": f"stub-{len(self.stubs) + 1}", **rec}
        self.stubs.append(rec)
        self.receipt("receipt_stub", rec)

    def wall_left(self) -> float | None:
        left = self.ctx.budget_left().get("wall_s")
        if self.wall is not None:
            own = max(0.0, self.wall - (time.monotonic() - self.t0))
            left = own if left is None else min(left, own)
        return left

    def out_of_time(self) -> bool:
        if self.ctx.should_stop():
            return True
        left = self.wall_left()
        return left is not None and self.wall is not None and left < max(0.3, 0.1 * self.wall)

    # ------------------------------------------------------------------ steps
    def run(self) -> CDAOutputs:
        self.receipt("search_params", {"params": self.params_preview(), "risk_class": self.inp.risk_class,
                                       "goal": self.inp.goals.kind, "revision": self.ctx.revision})
        ing = evidence.ingest(self.inp.observations, self.ken, self.ctx.dependencies,
                              self.inp.constraint_predicates())
        self.obs = ing.obs
        self.receipt("observation_readings", {"readings": [
            {"observation": ob.idx, "predicate": ob.predicate, "rule": ob.rule,
             "role": "symptom" if ob.anomaly else ("fact" if ob.rule == "constraint_fact" else "healthy")}
            for ob in ing.obs[:500]]})
        self.conflicts = ing.conflicts
        for q in ing.ken_queries:
            self.ken_receipt(q)
        for s in ing.stubs:
            self.stub(s)
        for dep_id, dep in sorted(self.ctx.dependencies.items()):
            self.receipt("bound_dependency", {"dependency_id": dep_id, "kind": dep.get("kind"),
                                              "revision": dep.get("revision"),
                                              "outputs_hash": subactions.outputs_hash(dep.get("outputs"))})
        self.anomalies = evidence.anomalies_of(self.obs, set())
        self.quiet = {n for n in self.ken.g.nodes if self.ken.attrs(n).get("monitored")} - set(self.anomalies)
        self.draft()
        self.gate()
        self.anomalies = evidence.anomalies_of(self.obs, self.gated)
        self.quiet -= self.gated
        all_clauses = [c for _, c in self.hard] + [c for _, c, _ in self.soft] + [c for _, c in self.criteria]
        risk = RISK_LEVELS[self.inp.risk_class]
        self.facts, path_recs, unknown = evidence.build_facts(all_clauses, self.ken, self.obs, self.anomalies,
                                                              self.gated, risk)
        for r in path_recs:
            self.ken_receipt(r)
        for u in unknown:
            if not u.startswith("hyp:"):
                self.caveats.append(f"{u} is not in Ken and not observed: clauses over it are assumptions")
        self.subchecks()
        self.check_contradiction()
        esc = self.escalate()
        self.params = search_params(self.ctx.seed, self.inp.seed.purpose or "", self.wall, esc.escalate)
        self.search()
        self.follow_up()
        return self.finish(incomplete=False)

    def params_preview(self) -> dict[str, int]:
        return search_params(self.ctx.seed, self.inp.seed.purpose or "", self.wall, False)

    def draft(self) -> None:
        """The seeded boundary summary (after Ken linking, before any approval wait or search)."""
        first = sorted(self.anomalies.values(), key=lambda a: (a.ts is None, a.ts or 0, a.entity))[:3]
        payload = {"stage": "seeded", "observations": len(self.obs), "anomalies": len(self.anomalies),
                   "conflicting_reports": len(self.conflicts),
                   "leading_candidates": [hyp_id_for(a.entity) for a in first],
                   "confidence_band": "low", "constraints": {"hard": len(self.hard), "soft": len(self.soft)}}
        self.summary_id = self.ctx.artifact("cda_summary", payload)
        self.ctx.checkpoint("boundary_summary", {**payload, "summary_artifact_id": self.summary_id})
        self.ctx.progress(0.05, "draft boundary summary")

    # ------------------------------------------------------------------ privacy and egress
    def gate(self) -> None:
        pol = self.inp.policies
        allowed = evidence.EGRESS_ORDER[pol.egress]
        used = {"partner": 0, "external": 0}
        consent: bool | None = None
        labelled = self.hard + [(lab, c) for lab, c, _ in self.soft] + self.criteria
        for label, clause in labelled:
            need, egress_nodes, pii = evidence.clause_needs(clause, self.ken)
            if pii and pol.pii_posture != "off":
                if pol.pii_posture == "consent" and consent is None:
                    consent = self.approval("consent", {"reason": "pii", "clause": label, "nodes": sorted(pii)})
                if not (pol.pii_posture == "consent" and consent):
                    self.gated.update(pii)
                    self.conservative = True
                    self.stub({"reason": f"pii_posture_{pol.pii_posture}", "clause": label, "missing": sorted(pii)})
                else:
                    self.receipt("pii_consent", {"clause": label, "nodes": sorted(pii), "granted": True})
            if evidence.EGRESS_ORDER[need] <= allowed:
                continue
            if used[need] >= evidence.EGRESS_CAPS[need]:
                self.gated.update(egress_nodes)
                self.conservative = True
                self.stub({"reason": "egress_cap", "clause": label, "egress_class": need, "missing": egress_nodes})
                continue
            granted = self.approval("approval", {"reason": "egress", "clause": label, "text": str(clause),
                                                 "egress_class": need, "allowed": pol.egress,
                                                 "nodes": sorted(egress_nodes)})
            if granted:
                used[need] += 1
                self.receipt("egress", {"clause": label, "egress_class": need, "nodes": sorted(egress_nodes),
                                        "approved": True, "cap": evidence.EGRESS_CAPS[need], "used": used[need]})
            else:
                self.gated.update(egress_nodes)
                self.conservative = True
                self.stub({"reason": "egress_denied", "clause": label, "egress_class": need,
                           "missing": sorted(egress_nodes)})
        if self.conservative:
            self.caveats.append("some evidence was withheld (egress or PII policy): the summary is conservative")

    def approval(self, kind: str, payload: dict[str, Any]) -> bool:
        """Approvals-as-input: ask the client; anything but an explicit grant is a denial."""
        left = self.wall_left()
        timeout = 300.0 if left is None else max(1.0, min(300.0, 0.5 * left))
        try:
            answer = self.ctx.ask(kind, payload, timeout_s=timeout)
        except TimeoutError:
            answer = None
        granted = _granted(answer)
        self.receipt("approval", {"kind": kind, "request": payload, "granted": granted,
                                  "answered": answer is not None})
        return granted

    # ------------------------------------------------------------------ sub-actions
    def subchecks(self) -> None:
        claims: list[tuple[str, dict[str, Any]]] = []
        for label, clause in self.hard + [(lab, c) for lab, c, _ in self.soft]:
            inner = clause.inner if isinstance(clause, Prefer) else clause
            if isinstance(inner, ValueCmp) and inner.ref.id in self.ken and inner.ref.id not in self.gated:
                attrs = self.ken.attrs(inner.ref.id)
                if isinstance(attrs.get("expr"), str):
                    claims.append(("mathlas", {"label": label, "expr": attrs["expr"][:500],
                                               "claimed_value": self.facts.values.get(inner.ref.id),
                                               "text": str(clause)}))
            for r in refs_of(clause):
                if r.id in self.ken and r.id not in self.gated and isinstance(self.ken.attrs(r.id).get("identity"), str):
                    claims.append(("crl_math", {"label": label, "expr": self.ken.attrs(r.id)["identity"][:500],
                                                "text": self.ken.attrs(r.id)["identity"][:500]}))
        locked = list((self.ctx.lock or {}).get("constraints", [])) if self.ctx.lock else \
            list(self.inp.constraints.hard or [])
        for ob in self.obs:
            text = (ob.span or {}).get("excerpt", "")
            if text and evidence.ANOMALY_WORDS is not None and _constraint_bearing(text) and locked:
                claims.append(("scu_guard", {"label": f"observation[{ob.idx}]", "text": text[:2000],
                                             "doc_id": (ob.span or {}).get("doc_id"), "constraints": locked}))
        per_ability: dict[str, int] = {}
        for ability, claim in claims[:8]:
            if self.out_of_time():
                break
            i = per_ability.get(ability, 0)
            per_ability[ability] = i + 1
            rec = subactions.run_check(self.ctx, ability, claim, i)
            self.sub_log.append(rec)
            if rec.get("stub"):
                self.stub({"reason": f"sub_action_{rec['reason']}", "ability": ability, "clause": claim["label"]})
            else:
                self.receipt("sub_action", rec)
                if rec.get("result") == "fail":
                    self.caveats.append(f"{ability} did not confirm the claim behind {claim['label']}")
            self.ctx.checkpoint("verifier_update", {"stage": "sub_action", "ability": ability,
                                                    "clause": claim["label"], "result": rec.get("result"),
                                                    "stub": bool(rec.get("stub"))})

    def follow_up(self) -> None:
        """Escalation (§4, §7.1): the best next tests that `research` or `sandbox` can answer are
        spawned as bound sub-actions when worth their budget (one per ability); each decision is an
        ``escalation`` receipt, each result a ``sub_action`` receipt and a ``verifier_update``."""
        done: dict[str, int] = {}
        if self.ctx.revision > 1:  # a structure revision: the bound results held are the evidence now
            for ab in ("research", "sandbox"):
                for i in range(subactions.held(self.ctx, ab)):
                    done[ab] = done.get(ab, 0) + 1
                    self._sub_result(ab, {"label": f"held:{ab}[{i}]"}, subactions.run_check(self.ctx, ab, {}, i),
                                     "bound result held")
        for t in self.next_tests():
            ab, power = t.suggested_ability, t.expected_discriminative_power or 0.0
            target = self.test_targets.get(t.question)
            if ab not in ("research", "sandbox") or target is None or done.get(ab, 0) >= escalation.SUB_PER_ABILITY:
                continue
            worth, why = escalation.worth_spawning(power, self.wall)
            self.receipt("escalation", {"stage": "next_test", "ability": ab, "question": t.question,
                                        "expected_discriminative_power": power, "decision": "spawn" if worth else "skip",
                                        "reason": why})
            if not worth:
                continue
            i = sum(1 for r in self.sub_log if r.get("ability") == ab)
            done[ab] = done.get(ab, 0) + 1
            claim = {"label": f"next_test:{t.question[:80]}", **target}
            self._sub_result(ab, claim, subactions.run_check(self.ctx, ab, claim, i), t.question)

    def _sub_result(self, ab: str, claim: dict[str, Any], rec: dict[str, Any], question: str) -> None:
        """Record one research/sandbox result: receipt (or stub), checkpoints, caveat."""
        self.sub_log.append(rec)
        if rec.get("stub"):
            self.stub({"reason": f"sub_action_{rec['reason']}", "ability": ab, "clause": claim["label"]})
        else:
            self.receipt("sub_action", rec)
        if ab == "sandbox" and rec.get("result") == "fail":
            self.caveats.append(f"a code check failed in the sandbox ({rec.get('failed')} of its tests): "
                                "the change it belongs to broke them")
        self.ctx.checkpoint("verifier_update", {"stage": "next_test", "ability": ab, "question": question,
                                                "result": rec.get("result"), "stub": bool(rec.get("stub")),
                                                "child_action_id": rec.get("child_action_id"),
                                                "revision": rec.get("revision"), "reused": rec.get("reused")})
        spans = [f"span:{s['doc_id']}:{s['start']}-{s['end']}" for s in rec.get("spans") or []]
        if spans:
            self.ctx.checkpoint("context_delta", {"stage": "next_test", "adopted_evidence": spans[:20],
                                                  "source": "research", "child_action_id": rec.get("child_action_id")})

    # ------------------------------------------------------------------ constraints
    def _system(self, cands: list[Candidate]) -> ConstraintSystem:
        hyps = [Hyp(c.hid, c.target, c.kind, _claims(c, self.ken), c.onset) for c in cands]
        targets = {c.hid: c.target for c in cands}
        for _label, clause in self.hard + [(lab, c) for lab, c, _ in self.soft]:
            for c in cands:
                self._hyp_paths(clause, c)
        return ConstraintSystem(self.hard, self.soft, self.facts, hyps, targets)

    def _hyp_paths(self, clause: Any, c: Candidate) -> None:
        if isinstance(clause, Not | Prefer):
            self._hyp_paths(clause.inner, c)
            return
        if isinstance(clause, ExistsPath) and clause.src.id == c.hid and clause.dst.id in self.ken \
                and c.target in self.ken:
            key = path_key(clause, c.target)
            if key not in self.facts.paths:
                res = self.ken.path(c.target, clause.dst.id, clause.edge, clause.hops,
                                    "both" if clause.edge == "related_to" else "out")
                self.ken_receipt(res.receipt() | {"purpose": f"evaluate {clause} for {c.hid}"})
                self.facts.paths[key] = bool(res.extra.get("found"))

    def check_contradiction(self) -> None:
        if not self.hard:
            return
        named = [self.candidate(t) for t in self.named_targets()]
        cs = self._system([c for c in named if c is not None])
        contra = cs.contradiction()
        self.clause_states = cs.clause_status()
        self.verifier_log.append({"verifier": "z3", "op": "satisfiability", "result": "unsat" if contra else "sat",
                                  "clauses": self.clause_states, **({"core": contra["core"]} if contra else {})})
        self.receipt("verifier", self.verifier_log[-1])
        if contra:
            self.ctx.checkpoint("verifier_update", {"stage": "constraints", "satisfiable": False,
                                                    "kind": contra["kind"], "core": contra["core"]})
            raise AbilityError("contradictory_constraints",
                               f"hard constraints are unsatisfiable ({contra['kind'].replace('_', ' ')}): "
                               f"{', '.join(contra['core'])}", contra)
        counts = _count(s["status"] for s in self.clause_states)
        self.ctx.checkpoint("verifier_update", {"stage": "constraints", "satisfiable": True, "clauses": counts})

    def named_targets(self) -> list[str]:
        """Candidates the clauses name: hyp refs, and subjects of root_cause/fault/cause or xor."""
        out: list[str] = []
        for _, clause in self.hard + [(lab, c) for lab, c, _ in self.soft] + self.criteria:
            found = [self.target_of(r) for r in refs_of(clause)]
            for atom in atoms_of(clause):
                if atom.pred in HYP_PREDICATES:
                    found += [a.id for a in atom.args if isinstance(a, Ref) and a.ns != "hyp"]
            inner = clause.inner if isinstance(clause, Not | Prefer) else clause
            if isinstance(inner, Xor):
                found += [r.id for r in inner.refs if r.ns != "hyp"]
            for t in found:
                if t and t in self.ken and node_type(t) in ("entity", "event", "hyp") and t not in out:
                    out.append(t)
        return out

    def target_of(self, r: Ref) -> str | None:
        if r.ns != "hyp":
            return None
        if r.id in self.ken:
            return r.id
        kind, _, name = r.name.partition(".")
        t = {"rc": f"entity:{name}", "ev": f"event:{name}"}.get(kind)
        return t if t and t in self.ken else None

    # ------------------------------------------------------------------ escalation
    def escalate(self) -> escalation.Escalation:
        seeds = [c for c in (self.candidate(t) for t in self.seed_targets()) if c is not None]
        posteriors(seeds)
        top = max((c.posterior for c in seeds), default=0.0)
        signals = {
            "contradictions": bool(self.conflicts) or any(s["status"] == "violated" for s in self.clause_states),
            "high_doubt": top < 0.5,
            "low_confidence_band": band(top) == "low",
            "policy_risk": self.conservative or self.inp.risk_class in ("high", "hard"),
            "critical_decision": self.inp.goals.kind in ("prove", "disprove") or bool(self.criteria),
        }
        parent_wall = self.ctx.budgets.get("wall_s") if isinstance(self.ctx.budgets, dict) else None
        esc = escalation.decide(signals, self.inp.risk_class, parent_wall or self.wall)
        left = self.wall_left()
        self.receipt("escalation", {"escalate": esc.escalate, "signals": list(esc.fired), "reason": esc.reason,
                                    "reserve_s": esc.reserve_s,
                                    "reserve_fits": escalation.can_proceed(esc, left)})
        self.escalation = esc
        if not escalation.can_proceed(esc, left):
            self.caveats.append(f"escalated ({esc.reason}) but less than the reserved {esc.reserve_s:.0f} s of "
                                "wall time remains: returning the draft as a terminal partial")
            self.params = search_params(self.ctx.seed, self.inp.seed.purpose or "", self.wall, False)
            for c in seeds:
                self.scored[c.hid] = c
            self._rescore()
            self.beam = self._rank()[: self.params["beam_width"]]
            self.converged = "budget_reserve_unavailable"
            raise PartialResult(self.finish(incomplete=True).model_dump(mode="json"), "escalation_budget_reserve")
        return esc

    # ------------------------------------------------------------------ search
    def seed_targets(self) -> list[str]:
        seeds: list[str] = []
        for ent in sorted(self.anomalies):
            if ent in self.ken:
                seeds.append(ent)
                seeds.extend(self.ken.fault_up.get(ent, []))
            elif ent.startswith("entity:"):
                seeds.append(ent)
        seeds.extend(self.named_targets())
        out: list[str] = []
        for s in seeds:
            if s not in out and node_type(s) in ("entity", "event", "hyp") and s not in self.gated:
                out.append(s)
        return out

    def candidate(self, target: str) -> Candidate | None:
        hid = hyp_id_for(target)
        if hid in self.scored:
            return self.scored[hid]
        kind = node_type(target)
        attrs = self.ken.attrs(target)
        if kind == "entity":
            a = self.anomalies.get(target)
            onset = a.ts if a else None
        else:
            onset = next((int(attrs[k]) for k in ("timestamp", "ts", "time", "onset")
                          if isinstance(attrs.get(k), int | float) and not isinstance(attrs.get(k), bool)), None)
        c = Candidate(hid, target, kind, onset)
        if target in self.ken:
            c.reach = reach(self.ken.fault_down, target, self.params_or_default()["prop_depth"],
                            offset=0 if kind == "entity" else 1)
        else:
            c.reach = {target: 0}
        likelihood(c, self.anomalies, self.quiet)
        prior = attrs.get("prior")
        if isinstance(prior, int | float) and 0 < prior < 1:
            c.prior = math.log(prior / (1 - prior))
        if kind == "event" and c.explained and onset is not None:
            first = min((self.anomalies[e].ts for e in c.explained if self.anomalies[e].ts is not None), default=None)
            if first is not None and 0 <= first - onset <= 7200:
                c.prior += math.log(2.0)
        return c

    def params_or_default(self) -> dict[str, int]:
        return getattr(self, "params", None) or self.params_preview()

    def _tiebreak(self, hid: str) -> str:
        return hmac.new(self.ctx.seed, hid.encode(), hashlib.sha256).hexdigest()

    def _rank(self) -> list[str]:
        live = [c for c in self.scored.values() if not c.refuted]
        return [c.hid for c in sorted(live, key=lambda c: (-round(c.score, 9), self._tiebreak(c.hid)))]

    def _rescore(self) -> None:
        live = [c for c in self.scored.values() if not c.refuted]
        posteriors(live)
        n_anom = sum(a.weight for a in self.anomalies.values()) or 1.0
        n_clauses = len(self.hard) + len(self.soft)
        for c in live:
            covered = sum(self.anomalies[e].weight for e in c.explained)
            silent = sum(1 for e, k in c.reach.items() if k <= 2 and e in self.quiet)
            c.salience = 0.5 * (covered / n_anom) * (covered / (covered + silent) if covered else 0.0)
            undetermined = sum(1 for s in c.soft if s == "undetermined") + \
                sum(1 for s in self.clause_states if s["status"] == "undetermined")
            conflict = sum(1 for e in c.explained if self.anomalies[e].weight < 1) / max(1, len(c.explained))
            early = len(c.early) / max(1, len(c.early) + len(c.explained))
            c.uncertainty = round(0.15 * (undetermined / n_clauses if n_clauses else 0.0) + 0.3 * conflict
                                  + (0.15 if self.conservative else 0.0) + 0.1 * early, 6)
            c.fitted_uncertainty = round(0.1 * early, 6)
            c.penalties = round(sum(w for (lab, _, w), s in zip(self.soft, c.soft, strict=False) if s == "violated"), 6)
            c.score = c.salience + c.posterior - c.penalties - c.uncertainty

    def verify(self, cands: list[Candidate], rnd: int) -> list[str]:
        """z3 over the candidates: prune the inconsistent ones, score soft clauses."""
        if not self.hard and not self.soft:
            return []
        cs = self._system(cands)
        pruned, results = [], []
        for n, c in enumerate(cands):
            if n >= 3 and self.out_of_time():
                self.caveats.append("verification stopped early for lack of time: some candidates were not "
                                    "checked against the constraints")
                break
            ok, core = cs.check_hypothesis(c.hid)
            c.soft = cs.soft_status(c.hid) if ok else []
            if not ok:
                c.refuted, c.core = True, core
                pruned.append(c.hid)
            results.append({"hypothesis_id": c.hid, "consistent": ok, **({"core": core} if core else {}),
                            **({"soft": c.soft} if c.soft else {})})
        rec = {"verifier": "z3", "op": "hypothesis_consistency", "round": rnd, "results": results}
        self.verifier_log.append(rec)
        self.receipt("verifier", rec)
        return pruned

    def evidence_for(self, c: Candidate) -> list[str]:
        """Ken evidencing: a propagation path per explained anomaly, cited with its span."""
        new = []
        for ent in c.explained[:8]:
            if ent in c.citations:
                continue
            a = self.anomalies[ent]
            spans = [ob.span for ob in self.obs if ob.idx in a.obs and ob.span]
            cit: dict[str, Any] = {"citation_id": f"cit:{c.hid}:{ent}", "hypothesis_id": c.hid, "entity": ent,
                                   "observations": a.obs,
                                   "spans": [evidence.redact(s, self.ken, ent, self.inp.policies.pii_posture)
                                             for s in spans]}
            if c.target in self.ken and ent in self.ken and len(self.ken_log) < MAX_KEN_QUERIES:
                hops = max(1, min(6, c.reach.get(ent, 1) + (0 if c.kind == "entity" else 1)))
                res = self.ken.path(c.target, ent, None, hops, "down")
                cit["ken_path"] = res.ids
                cit["ken_query"] = self.ken_receipt(res.receipt() | {"purpose": f"evidence {c.hid} -> {ent}"})
                if not res.ids:
                    cit["stub"] = "no_ken_path_within_caps"
                    self.stub({"reason": "no_ken_path_within_caps", "hypothesis_id": c.hid, "entity": ent})
            elif c.target == ent:
                cit["ken_path"] = [ent]
            else:
                cit["stub"] = "ken_query_budget_reached"
                self.stub({"reason": "ken_query_budget_reached", "hypothesis_id": c.hid, "entity": ent})
            c.citations[ent] = cit
            new.append(cit["citation_id"])
        return new

    def search(self) -> None:
        width, depth = self.params["beam_width"], self.params["depth_cap"]
        self.receipt("search_params", {"params": self.params, "escalated": self.escalation.escalate})
        frontier = self.seed_targets()
        self.converged = "depth_cap"
        for rnd in range(depth + 1):
            new = []
            for t in frontier[: (MAX_SEEDS if rnd == 0 else 4 * width)]:
                c = self.candidate(t)
                if c is not None and c.hid not in self.scored:
                    self.scored[c.hid] = c
                    new.append(c)
            self._rescore()
            prelim = self._rank()[: min(3 * width, width + len(new))]
            pruned = self.verify([self.scored[h] for h in prelim], rnd)
            self._rescore()
            old_beam = self.beam
            self.beam = self._rank()[:width]
            cited = []
            for hid in self.beam[:3]:
                cited += self.evidence_for(self.scored[hid])
            top = self.scored[self.beam[0]] if self.beam else None
            self.ctx.checkpoint("verifier_update", {
                "round": rnd, "checked": len(prelim), "refuted": pruned, "ken_queries": len(self.ken_log),
                "citations": sum(len(self.scored[h].citations) for h in self.beam[:3]),
                "top": top.hid if top else None,
                "top_band": band(self.confidence_of(top)) if top else "low"})
            self.ctx.checkpoint("plan_delta", {
                "round": rnd, "expanded": [c.hid for c in new][:20], "pruned": pruned,
                "beam": [{"hypothesis_id": h, "score": round(self.scored[h].score, 4)} for h in self.beam],
                "rationale": f"kept {len(self.beam)} of {len(self.scored)} candidates by score; "
                             f"{len(pruned)} inconsistent with hard constraints"})
            fresh = [x for x in cited if x not in self.adopted]
            if fresh:
                self.adopted.update(fresh)
                self.ctx.checkpoint("context_delta", {"round": rnd, "adopted_evidence": fresh[:20],
                                                      "context_pack": {"citations": len(self.adopted)}})
            self.ctx.trace({"round": rnd, "candidates": [self.scored[h].summary() for h in self._rank()[:30]]})
            self.rounds.append({"round": rnd, "expanded": [c.hid for c in new], "pruned": pruned,
                                "beam": list(self.beam)})
            self.ctx.use(steps=1)
            self.ctx.progress(min(0.9, 0.1 + 0.8 * (rnd + 1) / (depth + 1)), f"round {rnd}")
            self.ctx.save_partial(self.finish(incomplete=True, final=False).model_dump(mode="json"))
            if self.criteria_met():
                self.converged = "success_criteria_met"
                break
            if rnd >= 1 and self.beam == old_beam:
                self.converged = "frontier_stable"
                break
            if self.out_of_time():
                self.converged = "budget"
                self.caveats.append("the wall budget ran out before the frontier was stable")
                raise PartialResult(self.finish(incomplete=True).model_dump(mode="json"), "budget_exhausted")
            frontier = []
            for hid in self.beam:
                for up in self.ken.fault_up.get(self.scored[hid].target, []):
                    if hyp_id_for(up) not in self.scored and up not in frontier and up not in self.gated:
                        frontier.append(up)
            if not frontier:
                self.converged = "frontier_exhausted"
                break

    def criteria_met(self) -> bool:
        if not self.criteria or not self.beam:
            return False
        return all(s == "entailed" for s in self.criteria_status())

    def criteria_status(self) -> list[str]:
        if not self.criteria or not self.beam:
            return ["undetermined"] * len(self.criteria)
        top = self.scored[self.beam[0]]
        cs = self._system([self.scored[h] for h in self.beam])
        return [{1.0: "entailed", 0.0: "violated"}.get(cs.clause_split(cs.compile(c), top.hid), "undetermined")
                for _, c in self.criteria]

    # ------------------------------------------------------------------ results
    def confidence_of(self, c: Candidate) -> float:
        """The reported confidence: calibrated, capped at 0.59 when evidence was withheld."""
        return min(confidence(c), 0.59) if self.conservative else confidence(c)

    def verdicts(self) -> list[Verdict]:
        out: list[Verdict] = []
        ranked = self._rank()
        for i, hid in enumerate(ranked[:MAX_VERDICTS]):
            c = self.scored[hid]
            conf = self.confidence_of(c)
            coverage = _coverage(c)
            early_heavy = len(c.early) > len(c.explained)
            if early_heavy:
                status = "refuted"
                conf = round(max(conf, len(c.early) / max(1, len(c.early) + len(c.explained))), 4)
            elif i == 0 and conf >= 0.6 and coverage >= 0.95:
                status = "supported"
            else:
                status = "inconclusive"
            out.append(Verdict(hypothesis_id=hid, status=status, confidence=conf))
        refuted = sorted((c for c in self.scored.values() if c.refuted), key=lambda c: c.hid)
        for c in refuted[: max(0, MAX_VERDICTS - len(out)) + 5]:
            facts_only = all(x.startswith(("fact:", "onset:", "claim:", "closed:", "single")) or
                             any(s["clause"] == x and s["status"] == "entailed" for s in self.clause_states)
                             for x in c.core)
            out.append(Verdict(hypothesis_id=c.hid, status="refuted", confidence=0.95 if facts_only else 0.8))
        for (label, _), st in zip(self.criteria, self.criteria_status(), strict=True):
            status = {"entailed": "supported", "violated": "refuted"}.get(st, "inconclusive")
            if self.inp.goals.kind == "disprove":
                status = {"supported": "refuted", "refuted": "supported"}.get(status, status)
            conf = 0.95 if status != "inconclusive" else 0.5
            out.append(Verdict(hypothesis_id=f"goal:{label}", status=status, confidence=conf))
        return out

    def next_tests(self, cheap: bool = False) -> list[NextTest]:
        """Yes/no checks ranked by information gain over the surviving hypotheses."""
        survivors = [self.scored[h] for h in self._rank()[:8]]
        if len(survivors) < 1:
            return [NextTest(question="Provide observations (alerts with entity and timestamp) to explain",
                             suggested_ability="default", expected_discriminative_power=0.0)]
        prior = [max(c.posterior, 1e-6) for c in survivors]
        tests: list[tuple[float, str, str]] = []
        firm = {e for e, a in self.anomalies.items() if a.weight >= 1.0}
        probes: set[str] = set()
        for c in survivors:
            for ent, _k in sorted(c.reach.items(), key=lambda kv: (kv[1], kv[0]))[:40]:
                if ent not in firm and node_type(ent) == "entity" and ent not in self.gated:
                    probes.add(ent)
        for ent in sorted(probes)[:200]:
            p_yes = [p_at(c.reach[ent]) if ent in c.reach else 0.02 for c in survivors]
            ig = information_gain(prior, p_yes)
            cls = evidence.egress_class(self.ken, ent) if ent in self.ken else "local"
            if ent in self.anomalies:
                q = f"Re-check {ent}: reports conflict; is it actually anomalous since the first alert?"
            elif ent in self.quiet:
                q = f"Confirm {ent} is healthy: no alert was seen but some hypotheses predict one"
            else:
                q = f"Is {ent} showing anomalies (alerts, errors, latency) since the first alert?"
            tests.append((ig, q, "research" if cls != "local" or self.inp.research else "default"))
            self._researchable(q)
        for c in survivors[:3]:
            if len(survivors) > 1 and c.kind != "event":
                p_yes = [0.9 if o.hid == c.hid else 0.1 for o in survivors]
                q = f"Inspect {c.target} directly for a fault (logs, recent changes, saturation)"
                tests.append((information_gain(prior, p_yes), q, "research" if self.inp.research else "default"))
                self._researchable(q)
        for c in survivors:
            check = self.ken.attrs(c.target).get("check") if c.target in self.ken else None
            if isinstance(check, dict) and c.target not in self.gated and len(survivors) > 1:
                p_yes = [0.9 if o.hid == c.hid else 0.2 for o in survivors]
                q = f"Run the code check of {c.target} in the sandbox: does the change still pass its tests?"
                tests.append((information_gain(prior, p_yes), q, "sandbox"))
                self.test_targets[q] = {"node": c.target, "check": check}
            if c.kind == "event" and len(survivors) > 1:
                p_yes = [0.95 if o.hid == c.hid else 0.3 for o in survivors]
                hit = ", ".join(e for e in self.ken.fault_down.get(c.target, [])[:3]) or "its target"
                tests.append((information_gain(prior, p_yes),
                              f"Roll back or inspect the change {c.target}: did it alter {hit} "
                              "before the first alert?", "default"))
        if len(survivors) > 1 and (self.hard or self.soft) and not cheap:
            cs = self._system(survivors)
            for label, clause in self.hard + [(lab, c) for lab, c, _ in self.soft]:
                inner = clause.inner if isinstance(clause, Prefer) else clause
                expr = cs.compile(inner)
                p_yes = [cs.clause_split(expr, c.hid) for c in survivors]
                ig = information_gain(prior, p_yes)
                if ig > 0:
                    ability = "sandbox" if isinstance(inner, ValueCmp) else \
                        "research" if any(s.get("clause") == label for s in self.stubs) else "default"
                    tests.append((ig, f"Establish whether {inner} holds ({label})", ability))
        withheld = []
        for s in self.stubs:
            if s.get("reason") in ("egress_denied", "egress_cap") or str(s.get("reason", "")).startswith("pii"):
                withheld.append((0.0, f"Obtain the withheld evidence for {s.get('clause')} "
                                      f"({', '.join(s.get('missing', []))}) with an approval", "research"))
        withheld = sorted(set(withheld))[:2]
        tests.sort(key=lambda t: (-round(t[0], 9), t[1]))
        tests = tests[: MAX_NEXT_TESTS - len(withheld)] + withheld
        seen, out = set(), []
        for ig, q, ab in tests:
            if q in seen:
                continue
            seen.add(q)
            out.append(NextTest(question=q, suggested_ability=ab, expected_discriminative_power=round(ig, 4)))
            if len(out) >= MAX_NEXT_TESTS:
                break
        return out

    def _researchable(self, question: str) -> None:
        if self.inp.research is not None:
            r = self.inp.research
            self.test_targets[question] = {"question": question, "corpus": r.corpus, "version": r.version,
                                           "top_k": r.top_k}

    def finish(self, incomplete: bool, final: bool = True) -> CDAOutputs:
        verdicts = self.verdicts() if self.scored or self.criteria else []
        tests = self.next_tests(cheap=not final)
        caveats = list(dict.fromkeys(self.caveats))
        if incomplete and final and not any("partial" in c for c in caveats):
            caveats.append("partial result: the search stopped before convergence; verdicts are provisional")
        if not final:
            return CDAOutputs(summary_artifact_id=self.summary_id or "", verdicts=verdicts, next_tests=tests,
                              incomplete=True, caveats=caveats + ["interim result saved during the search"])
        self.ctx.trace({"stage": "verdicts", "raw_confidence": [
            [hid, round(raw_confidence(self.scored[hid]), 6)] for hid in self._rank()[:MAX_VERDICTS]]})
        bundle = artifacts.Bundle(self, verdicts, tests, caveats, incomplete)
        evidence_id = self.ctx.artifact("cda_evidence", bundle.evidence())
        plan_id = self.ctx.artifact("cda_plan", bundle.plan())
        summary = bundle.summary(evidence_id, plan_id)
        self.summary_id = self.ctx.artifact("cda_summary", summary)
        self.ctx.checkpoint("boundary_summary", {
            "stage": "final" if not incomplete else "partial", "summary_artifact_id": self.summary_id,
            "plan_bundle_id": plan_id, "evidence_bundle_id": evidence_id,
            "decisions": summary["decisions"][:5], "confidence_bands": summary["confidence_bands"],
            "residual_uncertainty": summary["residual_uncertainty"], "metrics": summary["metrics"],
            "next_tests": len(tests)})
        self.ctx.progress(1.0, "done" if not incomplete else "partial")
        return CDAOutputs(summary_artifact_id=self.summary_id, plan_bundle_id=plan_id,
                          evidence_bundle_id=evidence_id, verdicts=verdicts, next_tests=tests,
                          incomplete=incomplete, caveats=caveats)


def _claims(c: Candidate, ken: Ken) -> list[str]:
    claims = [f"root_cause({c.target})", f"fault({c.target})" if c.kind == "entity" else f"cause({c.target})"]
    if c.hid != c.target:
        claims.append(f"root_cause({c.hid})")
    if c.kind in ("event", "hyp"):
        claims += [f"fault({e})" for e in ken.fault_down.get(c.target, []) if node_type(e) == "entity"]
    extra = ken.attrs(c.target).get("claims") if c.kind == "hyp" else None
    for text in extra if isinstance(extra, list) else []:
        try:
            parsed = parse_clause(f"holds({text})")
        except Exception:
            continue
        if isinstance(parsed, Holds):
            claims.append(parsed.atom.key)
    return claims


def _coverage(c: Candidate) -> float:
    explained = c.explained[:8]
    if not explained:
        return 0.0
    ok = sum(1 for e in explained if e in c.citations and not c.citations[e].get("stub"))
    return ok / len(explained)


def _count(items: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in items:
        out[x] = out.get(x, 0) + 1
    return dict(sorted(out.items()))


def _constraint_bearing(text: str) -> bool:
    t = text.lower()
    return any(w in t for w in (" must ", " only ", " never ", " not allowed", " forbidden", " shall ", " required"))


def _granted(answer: Any) -> bool:
    if answer is True:
        return True
    if isinstance(answer, str):
        return answer.strip().lower() in ("grant", "granted", "approve", "approved", "yes", "allow", "allowed")
    if isinstance(answer, dict):
        for key in ("granted", "approved", "allow"):
            if answer.get(key) is True:
                return True
        for key in ("decision", "status", "answer", "value"):
            if key in answer:
                return _granted(answer[key])
    return False
