"""Scoring of candidate explanations: likelihood, posterior, score, bands, information gain.

Model (documented in docs/abilities/cda.md): a fault at candidate ``c`` makes a node at
propagation distance ``k`` anomalous with probability ``p_k = P0 * RHO**k``; any node is
anomalous by noise with probability ``EPS``. The log-likelihood ratio of ``c`` against "all
noise" sums, over anomalies reachable from ``c`` and not earlier than its onset,
``log((1 - (1 - p_k)(1 - EPS)) / EPS)``, and over monitored quiet nodes reachable from ``c``,
``log(1 - p_k)``. Posteriors are a softmax of LLR + log prior over the candidates and a null
hypothesis ("noise only"). Score = salience + posterior_support - penalties - uncertainty.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from abilities.cda import calibration

P0 = 0.9
RHO = 0.6  # tuned on generator seeds 9,000,000+ (disjoint from the benchmark seeds)
EPS = 0.02
TOLERANCE_S = 60
MAX_REACH = 5_000
# Raw confidence -> empirical probability of being the true root cause: a monotone
# piecewise-linear table fitted by bench/cda_calibrate.py on seeds disjoint from the benchmark's
# and shipped as package data (abilities/cda/calibration.json); loaded once at import.
CALIBRATION: list[tuple[float, float]] = calibration.load_table()
BANDS = (("high", 0.8), ("medium", 0.5), ("low", 0.0))


@dataclass
class Anomaly:
    entity: str
    ts: int | None
    weight: float
    obs: list[int] = field(default_factory=list)


@dataclass
class Candidate:
    """A scored candidate explanation (internal; only ids and rounded numbers leave the core)."""

    hid: str
    target: str
    kind: str
    onset: int | None
    reach: dict[str, int] = field(default_factory=dict)
    explained: list[str] = field(default_factory=list)
    early: list[str] = field(default_factory=list)
    llr: float = 0.0
    prior: float = 0.0
    posterior: float = 0.0
    salience: float = 0.0
    penalties: float = 0.0
    uncertainty: float = 0.0
    fitted_uncertainty: float = 0.0  # the part of ``uncertainty`` the calibration data contains (early anomalies)
    score: float = 0.0
    refuted: bool = False
    core: list[str] = field(default_factory=list)
    soft: list[str] = field(default_factory=list)
    citations: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        return {"hypothesis_id": self.hid, "target": self.target, "kind": self.kind,
                "score": round(self.score, 4), "posterior": round(self.posterior, 4),
                "salience": round(self.salience, 4), "penalties": round(self.penalties, 4),
                "uncertainty": round(self.uncertainty, 4), "explains": len(self.explained)}


def p_at(k: int) -> float:
    return P0 * RHO ** max(0, k)


def reach(down: dict[str, list[str]], start: str, depth: int, offset: int = 0) -> dict[str, int]:
    """Breadth-first distances along fault propagation from ``start`` (capped)."""
    dist = {start: 0}
    frontier = [start]
    for d in range(1, depth + 1):
        nxt = []
        for cur in frontier:
            for nb in down.get(cur, ()):
                if nb not in dist:
                    dist[nb] = d
                    nxt.append(nb)
        if len(dist) > MAX_REACH or not nxt:
            break
        frontier = nxt
    if offset:
        dist = {n: max(0, k - offset) for n, k in dist.items()}
    return dist


def likelihood(c: Candidate, anomalies: dict[str, Anomaly], quiet: set[str]) -> None:
    """Fill ``llr``, ``explained`` and ``early`` of a candidate from its reach set."""
    llr = 0.0
    explained, early = [], []
    for ent in sorted(c.reach):
        k = c.reach[ent]
        pk = p_at(k)
        a = anomalies.get(ent)
        if a is not None:
            if c.onset is not None and a.ts is not None and a.ts < c.onset - TOLERANCE_S:
                early.append(ent)
                continue
            explained.append(ent)
            llr += a.weight * math.log((1 - (1 - pk) * (1 - EPS)) / EPS)
        elif ent in quiet:
            llr += math.log(max(1e-9, 1 - pk))
    c.llr, c.explained, c.early = llr, explained, early


def posteriors(cands: list[Candidate]) -> None:
    """Softmax of LLR + log prior over the candidates and the null hypothesis (LLR 0)."""
    if not cands:
        return
    logits = [c.llr + c.prior for c in cands]
    m = max(max(logits), 0.0)
    z = math.exp(-m) + sum(math.exp(v - m) for v in logits)
    for c, v in zip(cands, logits, strict=True):
        c.posterior = math.exp(v - m) / z


def calibrate(raw: float) -> float:
    """The shipped calibration map (monotone, so it never changes a ranking)."""
    return calibration.apply(CALIBRATION, raw)


def band(confidence: float) -> str:
    for name, lo in BANDS:
        if confidence >= lo:
            return name
    return "low"


def raw_confidence(c: Candidate) -> float:
    """Posterior shrunk by the uncertainty the calibration was fitted with: the map's input."""
    return max(0.0, min(1.0, c.posterior * (1.0 - min(0.9, c.fitted_uncertainty))))


def confidence(c: Candidate) -> float:
    """An estimate of the probability that ``c`` is the true explanation.

    The calibration map was fitted on problems without undetermined clauses, conflicting reports
    or withheld evidence. When any of those is present the map may only lower the raw confidence
    (it has no evidence that such a case is under-confident), and the rest of the uncertainty
    shrinks the result as before.
    """
    raw = raw_confidence(c)
    conf = calibrate(raw)
    other = max(0.0, c.uncertainty - c.fitted_uncertainty)
    if other > 1e-9:
        conf = min(conf, raw) * (1.0 - min(0.9, other))
    return round(max(0.0, min(1.0, conf)), 4)


def entropy(ps: list[float]) -> float:
    return -sum(p * math.log2(p) for p in ps if p > 0)


def information_gain(prior: list[float], p_yes: list[float]) -> float:
    """Expected entropy reduction of a yes/no test over hypotheses with ``prior`` mass."""
    total = sum(prior)
    if total <= 0:
        return 0.0
    pr = [p / total for p in prior]
    py = sum(p * q for p, q in zip(pr, p_yes, strict=True))
    gain = entropy(pr)
    for outcome, po in ((True, py), (False, 1 - py)):
        if po <= 1e-12:
            continue
        post = [p * (q if outcome else 1 - q) / po for p, q in zip(pr, p_yes, strict=True)]
        gain -= po * entropy(post)
    return max(0.0, gain)
