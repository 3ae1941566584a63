"""Observations in, evidence out: normalising observations, gating (PII, egress) and facts.

Everything here is deterministic and boundary-safe: excerpts of PII-flagged nodes are redacted,
gated evidence is simply withheld from the solver (it becomes "undetermined"), and every gap is
recorded as a receipt stub by the caller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from abilities.cda import signals
from abilities.cda.dsl import Atom, ExistsPath, Not, Prefer, Ref, atoms_of, refs_of
from abilities.cda.ken import Ken, node_type
from abilities.cda.models import ArtifactRef, InlineObservation, SpanRef
from abilities.cda.scoring import Anomaly
from abilities.cda.solver import HYP_PREDICATES, Facts

QUIET_PREDICATES = {"ok", "healthy", "up", "normal"}
ANOMALY_WORDS = re.compile(r"\b(error|errors|alert|alarm|fail\w*|down|outage|timeout|latency|degraded|"
                           r"crash\w*|5\d\d|exception|incident|spike)\b", re.I)
EGRESS_ORDER = {"local": 0, "partner": 1, "external": 2}
EGRESS_CAPS = {"local": 10_000, "partner": 20, "external": 5}


@dataclass
class Obs:
    idx: int
    entity: str | None
    predicate: str
    value: Any
    ts: int | None
    span: dict[str, Any] | None = None
    artifact: str | None = None
    origin: str = "inline"
    conflict: bool = False
    rule: str = "boolean_signal"  # which documented rule read it (abilities/cda/signals.py)
    anomaly: bool = False


@dataclass
class Ingested:
    obs: list[Obs] = field(default_factory=list)
    stubs: list[dict[str, Any]] = field(default_factory=list)
    ken_queries: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)


def _inline(i: int, o: InlineObservation, origin: str, constraint_predicates: frozenset[str]) -> Obs:
    """An inline observation read by the documented rules (raises ObservationRuleError)."""
    reading = signals.read_observation(o, constraint_predicates)
    ts = None if o.timestamp is None else int(o.timestamp)
    return Obs(i, o.entity, o.predicate, o.value, ts, o.source.model_dump() if o.source else None, origin=origin,
               rule=reading.rule, anomaly=reading.anomalous)


def ingest(observations: list[Any], ken: Ken, dependencies: dict[str, dict[str, Any]],
           constraint_predicates: frozenset[str] = frozenset()) -> Ingested:
    """Normalise inline, span and artifact observations (+ bound dependency outputs)."""
    out = Ingested()
    items: list[tuple[str, Any]] = [("input", o) for o in observations]
    for dep_id, dep in sorted(dependencies.items()):
        outs = dep.get("outputs") or {}
        for raw in (outs.get("observations") or [])[:500] if isinstance(outs, dict) else []:
            try:
                items.append((f"dependency:{dep_id}@{dep.get('revision')}", InlineObservation.model_validate(raw)))
            except Exception:
                out.stubs.append({"reason": "dependency_observation_invalid", "dependency": dep_id})
        for raw in (outs.get("spans") or [])[:10] if isinstance(outs, dict) and "corpus" in outs else []:
            try:  # a bound research result: its cited spans are evidence like SpanRef observations
                items.append((f"research:{dep_id}@{dep.get('revision')}", SpanRef.model_validate(
                    {k: raw.get(k) for k in ("doc_id", "start", "end")} | {"excerpt": str(raw.get("excerpt", ""))[:2000]})))
            except Exception:
                out.stubs.append({"reason": "dependency_span_invalid", "dependency": dep_id})
    for i, (origin, o) in enumerate(items):
        if isinstance(o, InlineObservation):
            try:
                out.obs.append(_inline(i, o, origin, constraint_predicates))
            except signals.ObservationRuleError as exc:  # inputs were checked at start: a dependency's output
                out.stubs.append({"reason": "dependency_observation_without_rule", "observation": i,
                                  "origin": origin, "error": str(exc)})
        elif isinstance(o, SpanRef):
            span = o.model_dump()
            res = ken.search(o.excerpt, limit=3) if o.excerpt.strip() else None
            if res is not None:
                out.ken_queries.append(res.receipt() | {"purpose": f"link observation[{i}]"})
            linked = [n for n in (res.ids if res else []) if node_type(n) in ("entity", "event", "metric")]
            if not linked:
                out.stubs.append({"reason": "span_not_linked_to_ken", "observation": i, "doc_id": o.doc_id})
                out.obs.append(Obs(i, None, "mentioned", True, None, span, origin="span", rule="span_text",
                                   anomaly=True))
                continue
            anomalous = bool(ANOMALY_WORDS.search(o.excerpt))
            out.obs.append(Obs(i, linked[0], "mentioned" if anomalous else "noted", True, None, span,
                               origin="span", rule="span_text", anomaly=anomalous))
        elif isinstance(o, ArtifactRef):
            out.stubs.append({"reason": "artifact_content_unavailable_to_worker", "observation": i,
                              "artifact_id": o.artifact_id})
            out.obs.append(Obs(i, None, "artifact", True, None, None, o.artifact_id, origin="artifact",
                               rule="artifact"))
    # conflicting reports about the same (entity, predicate)
    seen: dict[tuple[str, str], list[Obs]] = {}
    for ob in out.obs:
        if ob.entity is not None:
            seen.setdefault((ob.entity, ob.predicate if ob.predicate not in QUIET_PREDICATES else "alert"),
                            []).append(ob)
    for (ent, pred), group in sorted(seen.items()):
        if len({ob.anomaly for ob in group}) > 1:
            for ob in group:
                ob.conflict = True
            out.conflicts.append({"entity": ent, "predicate": pred, "observations": [ob.idx for ob in group]})
    return out


def anomalies_of(obs: list[Obs], gated: set[str]) -> dict[str, Anomaly]:
    """Anomalous entities with their earliest time; conflicting reports count half."""
    found: dict[str, Anomaly] = {}
    for ob in obs:
        if ob.entity is None or not ob.anomaly or ob.entity in gated:
            continue
        w = 0.5 if ob.conflict else 1.0
        a = found.get(ob.entity)
        if a is None:
            found[ob.entity] = Anomaly(ob.entity, ob.ts, w, [ob.idx])
        else:
            a.weight = max(a.weight, w)
            a.obs.append(ob.idx)
            if ob.ts is not None and (a.ts is None or ob.ts < a.ts):
                a.ts = ob.ts
    return found


def egress_class(ken: Ken, ref_id: str) -> str:
    cls = ken.attrs(ref_id).get("egress", "local")
    return cls if cls in EGRESS_ORDER else "external"


def clause_needs(clause: Any, ken: Ken) -> tuple[str, list[str], list[str]]:
    """(egress class needed, nodes needing egress, PII nodes) for one clause."""
    need, egress_nodes, pii = "local", [], []
    for r in refs_of(clause):
        if r.ns == "provider" or r.id not in ken:
            continue
        cls = egress_class(ken, r.id)
        if EGRESS_ORDER[cls] > 0:
            egress_nodes.append(r.id)
            if EGRESS_ORDER[cls] > EGRESS_ORDER[need]:
                need = cls
        if ken.attrs(r.id).get("pii"):
            pii.append(r.id)
    return need, egress_nodes, pii


def _time_of(ken: Ken, nid: str, anomalies: dict[str, Anomaly]) -> int | None:
    attrs = ken.attrs(nid)
    for key in ("timestamp", "ts", "time", "onset"):
        v = attrs.get(key)
        if isinstance(v, int | float) and not isinstance(v, bool):
            return int(v)
    a = anomalies.get(nid)
    return a.ts if a is not None else None


def build_facts(clauses: list[Any], ken: Ken, obs: list[Obs], anomalies: dict[str, Anomaly], gated: set[str],
                risk: int) -> tuple[Facts, list[dict[str, Any]], list[str]]:
    """Facts for every reference in the clauses; returns (facts, Ken path receipts, unknown refs)."""
    facts = Facts(risk=risk)
    receipts: list[dict[str, Any]] = []
    unknown: list[str] = []
    observed = {ob.entity for ob in obs if ob.entity}
    for clause in clauses:
        for r in refs_of(clause):
            if r.ns in ("provider", "hyp") or r.id in gated:
                continue
            if r.id not in ken and r.id not in observed:
                if r.id not in unknown:
                    unknown.append(r.id)
                continue
            t = _time_of(ken, r.id, anomalies)
            if t is not None:
                facts.times[r.id] = t
            v = ken.attrs(r.id).get("value")
            if isinstance(v, int | float) and not isinstance(v, bool):
                facts.values[r.id] = float(v)
            vals = {float(ob.value) for ob in obs if ob.entity == r.id and isinstance(ob.value, int | float)
                    and not isinstance(ob.value, bool) and ob.predicate in ("value", "measured", "metric")}
            if len(vals) == 1 and (r.id not in facts.values or facts.values[r.id] in vals):
                facts.values[r.id] = vals.pop()
            elif vals:
                facts.values.pop(r.id, None)
        for atom in atoms_of(clause):
            truth = atom_truth(atom, ken, obs, gated)
            if truth is not None:
                facts.atoms[atom.key] = truth
        _paths(clause, ken, gated, facts, receipts)
    return facts, receipts, unknown


def _paths(clause: Any, ken: Ken, gated: set[str], facts: Facts, receipts: list[dict[str, Any]]) -> None:
    if isinstance(clause, Not | Prefer):
        _paths(clause.inner, ken, gated, facts, receipts)
        return
    if not isinstance(clause, ExistsPath) or clause.src.ns == "hyp":
        return
    if clause.src.id in gated or clause.dst.id in gated or clause.src.id not in ken or clause.dst.id not in ken:
        return
    from abilities.cda.solver import path_key

    res = ken.path(clause.src.id, clause.dst.id, clause.edge, clause.hops,
                   "both" if clause.edge == "related_to" else "out")
    receipts.append(res.receipt() | {"purpose": f"evaluate {clause}"})
    facts.paths[path_key(clause)] = bool(res.extra.get("found"))


def atom_truth(atom: Atom, ken: Ken, obs: list[Obs], gated: set[str]) -> bool | None:
    """Truth of a ground atom from observations, then Ken attributes and edges; None if unknown."""
    if atom.pred in HYP_PREDICATES:
        return None
    ids = [a.id for a in atom.args if isinstance(a, Ref)]
    if any(i in gated for i in ids):
        return None
    if len(atom.args) == 1 and ids:
        rel = [ob for ob in obs if ob.entity == ids[0] and ob.predicate == atom.pred]
        vals = {signals.truthy(ob.value) for ob in rel}
        if len(vals) == 1:
            return vals.pop()
        if len(vals) > 1:
            return None
        v = ken.attrs(ids[0]).get(atom.pred)
        if isinstance(v, bool):
            return v
        return None
    if len(atom.args) == 2 and len(ids) == 2 and ids[0] in ken and ids[1] in ken:
        if atom.pred in ken.edge_types():
            return ken.g.has_edge(ids[0], ids[1], key=atom.pred)
    return None


def redact(span: dict[str, Any] | None, ken: Ken, entity: str | None, posture: str) -> dict[str, Any] | None:
    """A citation span as clients may see it: PII-flagged nodes' excerpts are withheld."""
    if span is None:
        return None
    if entity and ken.attrs(entity).get("pii") and posture != "off":
        return {**span, "excerpt": "[redacted: pii]"}
    return span
