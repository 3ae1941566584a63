"""The three artifacts of a cda action (spec §8): boundary summary, ``cda_plan``, evidence bundle.

Boundary-only: ids, rounded scores, clause texts the client wrote, citations with span pointers
and receipt stubs. No candidate tables, no internal reasoning (those go to ``ctx.trace``).
"""

from __future__ import annotations

from typing import Any

from abilities.cda.scoring import band


class Bundle:
    """Builds the artifact contents from a finished (or stopped) run."""

    def __init__(self, run: Any, verdicts: list[Any], tests: list[Any], caveats: list[str], incomplete: bool) -> None:
        self.run, self.verdicts, self.tests, self.caveats, self.incomplete = run, verdicts, tests, caveats, incomplete

    def _citations(self) -> list[dict[str, Any]]:
        out = []
        for hid in self.run.beam[:3]:
            c = self.run.scored[hid]
            out.extend(c.citations[e] for e in sorted(c.citations))
        return out

    def evidence(self) -> dict[str, Any]:
        return {"kind": "cda_evidence", "citations": self._citations(), "receipt_stubs": self.run.stubs,
                "conflicting_reports": self.run.conflicts,
                "sub_actions": [{k: v for k, v in s.items() if k != "message"} for s in self.run.sub_log]}

    def plan(self) -> dict[str, Any]:
        run = self.run
        hyps = [run.scored[h].summary() | {"verdict": next((v.status for v in self.verdicts if v.hypothesis_id == h),
                                                           None)} for h in run._rank()[:50]]
        refuted = [{"hypothesis_id": c.hid, "target": c.target, "core": c.core}
                   for c in sorted(run.scored.values(), key=lambda c: c.hid) if c.refuted][:50]
        nodes = [{"id": h["hypothesis_id"], "type": "hypothesis"} for h in hyps] + \
            [{"id": r["hypothesis_id"], "type": "hypothesis", "refuted": True} for r in refuted]
        edges = []
        for r in run.rounds:
            for h in r["expanded"][:50]:
                edges.append({"from": f"round:{r['round']}", "to": h, "kind": "expanded"})
            for h in r["pruned"]:
                edges.append({"from": f"round:{r['round']}", "to": h, "kind": "pruned"})
        nodes += [{"id": f"round:{r['round']}", "type": "round", "beam": r["beam"]} for r in run.rounds]
        return {"kind": "cda_plan", "files": {
            "hypotheses.json": {"surviving": hyps, "refuted": refuted},
            "constraints.json": {
                "hard": [{"label": lab, "clause": str(c)} for lab, c in run.hard],
                "soft": [{"label": lab, "clause": str(c), "weight": w} for lab, c, w in run.soft],
                "success_criteria": [{"label": lab, "clause": str(c)} for lab, c in run.criteria],
                "status": run.clause_states, "lock": (run.ctx.lock or {}).get("hash")},
            "plan_graph.json": {"nodes": nodes, "edges": edges,
                                "params": getattr(run, "params", None), "converged": run.converged},
            "verifiers.json": run.verifier_log,
            "receipts/": {"ken_queries.json": run.ken_log, "sub_actions.json": run.sub_log,
                          "stubs.json": run.stubs},
        }}

    def metrics(self, coverage: float) -> dict[str, Any]:
        """Spec §10 per-action figures (deterministic: counts, no timings)."""
        run = self.run
        checks = [r for v in run.verifier_log if v.get("op") == "hypothesis_consistency" for r in v["results"]]
        states = [s["status"] for s in run.clause_states]
        return {"frontier_size": [len(r["beam"]) for r in run.rounds], "candidates_scored": len(run.scored),
                "constraints_satisfied": states.count("entailed"), "constraints_violated": states.count("violated"),
                "constraints_undetermined": states.count("undetermined"),
                "verifier_pass_rate": round(sum(1 for r in checks if r["consistent"]) / len(checks), 4)
                if checks else None,
                "citation_coverage": coverage, "ken_queries": len(run.ken_log), "receipt_stubs": len(run.stubs),
                "sub_actions": len(run.sub_log), "rounds": len(run.rounds)}

    def summary(self, evidence_id: str, plan_id: str) -> dict[str, Any]:
        run = self.run
        ranked = run._rank()
        decisions = []
        for v in self.verdicts[:10]:
            decisions.append({"hypothesis_id": v.hypothesis_id, "status": v.status,
                              "confidence": v.confidence, "band": band(v.confidence)})
        top = run.scored[ranked[0]] if ranked else None
        cits = self._citations()
        cited = [c for c in cits if not c.get("stub")]
        residual = {
            "top_posterior": round(top.posterior, 4) if top else 0.0,
            "runner_up_posterior": round(run.scored[ranked[1]].posterior, 4) if len(ranked) > 1 else 0.0,
            "unexplained_anomalies": sorted(set(run.anomalies) - set(top.explained))[:20] if top else
            sorted(run.anomalies)[:20],
            "conflicting_reports": len(run.conflicts), "receipt_stubs": len(run.stubs),
            "citation_coverage": round(len(cited) / len(cits), 4) if cits else 0.0,
        }
        lines = [f"# CDA boundary summary{' (partial)' if self.incomplete else ''}", "",
                 f"Problem: {run.inp.problem[:300]}", ""]
        for d in decisions[:5]:
            lines.append(f"- {d['hypothesis_id']}: {d['status']} (confidence {d['confidence']:.2f}, {d['band']})")
        if self.caveats:
            lines += ["", "Caveats:"] + [f"- {c}" for c in self.caveats]
        if self.tests:
            lines += ["", "Next tests:"] + [f"- {t.question}" for t in self.tests]
        return {"kind": "cda_summary", "stage": "partial" if self.incomplete else "final",
                "problem": run.inp.problem[:500], "goal": run.inp.goals.kind,
                "decisions": decisions,
                "confidence_bands": {"top": band(run.confidence_of(top)) if top else "low",
                                     "thresholds": {"high": 0.8, "medium": 0.5}},
                "key_citations": [{"citation_id": c["citation_id"], "spans": c.get("spans", []),
                                   "ken_path": c.get("ken_path")} for c in cited[:10]],
                "residual_uncertainty": residual, "caveats": self.caveats,
                "next_tests": [t.model_dump(exclude_none=True) for t in self.tests],
                "metrics": self.metrics(residual["citation_coverage"]),
                "converged": run.converged, "incomplete": self.incomplete,
                "evidence_bundle_id": evidence_id, "plan_bundle_id": plan_id,
                "markdown": "\n".join(lines)}
