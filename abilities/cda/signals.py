"""How an observation counts: the documented rules that turn a reported reading into a symptom,
a healthy reading or a fact, or refuse it. Nothing is silently dropped.

Rules, in order (the first that applies decides):
1. ``threshold`` given: a numeric value is anomalous when above it (``direction: "above"``, the
   default) or below it (``"below"``).
2. ``baseline`` given: a numeric value is anomalous when it deviates from the baseline in the
   ``direction`` by more than ``tolerance`` (relative, default 0.2 = 20 %).
3. anomaly scores (``anomaly_score``, ``outlier_score``, ...): a value in [0, 1], anomalous at
   0.5 or more.
4. status values (``status``, ``state``, ``health``, ... or a predicate ending in ``_status``):
   a word from ANOMALOUS_STATUS or HEALTHY_STATUS; any other word is refused.
5. boolean signals: a predicate naming a symptom (``alert``, ``error``, ``degraded``, or any
   predicate with a symptom word such as ``high_error_rate``, ``latency_spike``) is anomalous
   when true; a predicate naming health (``healthy``, ``up``, ``available``) when false.
6. facts: ``value``/``measured``/``metric``, and any predicate a constraint refers to, are facts
   for the constraints (not symptoms).
Anything else is refused, naming the observation and what would make it count.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

SYMPTOM_WORDS = frozenset("""alert alarm error errors anomaly anomalous degraded down failure failed failing fail
    incident latency timeout timeouts outage crash crashed crashing saturation saturated spike breach breached
    unhealthy unavailable unreachable oom throttled throttling exception exceptions flapping slow lag backlog
    dropped drops loss paging critical 5xx mentioned""".split())
HEALTH_WORDS = frozenset("ok healthy up normal available ready passing reachable".split())
STATUS_PREDICATES = frozenset("status state health condition phase availability".split())
ANOMALOUS_STATUS = frozenset("""down degraded error errored failing failed critical unhealthy unavailable outage
    partial_outage major_outage minor_outage impaired red crashloopbackoff crashing unreachable warning
    alerting firing""".split())
HEALTHY_STATUS = frozenset("up ok healthy operational green running ready normal available passing resolved".split())
SCORE_PREDICATES = frozenset("anomaly_score anomaly_probability outlier_score anomaly_likelihood".split())
FACT_PREDICATES = frozenset("value measured metric".split())
SCORE_CUT = 0.5
DEFAULT_TOLERANCE = 0.2
_FALSY = ("", "false", "no", "0", "none", "off", "ok", "healthy")


class ObservationRuleError(ValueError):
    """An observation no documented rule can read."""


@dataclass(frozen=True)
class Reading:
    """What an observation says: a symptom, a healthy reading, or a fact for the constraints."""

    role: Literal["symptom", "healthy", "fact"]
    rule: str

    @property
    def anomalous(self) -> bool:
        return self.role == "symptom"


def truthy(v: Any) -> bool:
    if isinstance(v, str):
        return v.strip().lower() not in _FALSY
    return bool(v)


def _words(predicate: str) -> set[str]:
    return set(re.split(r"[_\W]+", predicate.lower())) - {""}


def _number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    f = float(v)
    return f if math.isfinite(f) else None


def read(predicate: str, value: Any, *, threshold: float | None = None, baseline: float | None = None,
         direction: str = "above", tolerance: float | None = None,
         constraint_predicates: frozenset[str] = frozenset()) -> Reading:
    """Apply the rules above; raise ObservationRuleError naming what is missing."""
    pred = predicate.lower()
    num = _number(value)
    above = direction != "below"
    if threshold is not None or baseline is not None:
        if num is None:
            raise ObservationRuleError(f"predicate {predicate!r}: a threshold or baseline needs a numeric value, "
                                       f"got {value!r}")
        if threshold is not None:
            bad = num > threshold if above else num < threshold
            return Reading("symptom" if bad else "healthy", f"threshold:{direction}")
        assert baseline is not None
        tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
        scale = abs(baseline) if baseline else 1.0
        deviation = (num - baseline) / scale
        bad = deviation > tol if above else deviation < -tol
        return Reading("symptom" if bad else "healthy", f"baseline:{direction}")
    if pred in SCORE_PREDICATES:
        if num is None or not 0.0 <= num <= 1.0:
            raise ObservationRuleError(f"predicate {predicate!r}: an anomaly score must be a number in [0, 1], "
                                       f"got {value!r}")
        return Reading("symptom" if num >= SCORE_CUT else "healthy", "anomaly_score")
    if pred in STATUS_PREDICATES or pred.endswith(("_status", "_state", "_health")):
        word = str(value).strip().lower().replace(" ", "_").replace("-", "_") if isinstance(value, str) else None
        if word in ANOMALOUS_STATUS:
            return Reading("symptom", "status")
        if word in HEALTHY_STATUS:
            return Reading("healthy", "status")
        raise ObservationRuleError(
            f"predicate {predicate!r}: status {value!r} is not a known status; anomalous: "
            f"{', '.join(sorted(ANOMALOUS_STATUS))}; healthy: {', '.join(sorted(HEALTHY_STATUS))}")
    if pred in FACT_PREDICATES or pred in constraint_predicates:
        return Reading("fact", "constraint_fact")
    words = _words(pred)
    if num is None or isinstance(value, bool) or num in (0.0, 1.0):
        if words & SYMPTOM_WORDS:
            return Reading("symptom" if truthy(value) else "healthy", "boolean_signal")
        if words & HEALTH_WORDS:
            return Reading("healthy" if truthy(value) else "symptom", "health_signal")
    if num is not None:
        raise ObservationRuleError(
            f"predicate {predicate!r}: the numeric metric {value!r} needs a 'threshold' or a 'baseline' "
            "(with 'direction': above or below) to count as a symptom, or use an anomaly score in [0, 1]")
    raise ObservationRuleError(
        f"predicate {predicate!r} has no rule: send a boolean signal naming a symptom (e.g. alert, error, "
        "degraded, high_error_rate), a status (status: degraded), a numeric metric with a threshold or a "
        "baseline, an anomaly score, or a predicate that a constraint refers to")


def read_observation(o: Any, constraint_predicates: frozenset[str] = frozenset()) -> Reading:
    """``read`` over an inline observation (anything with predicate, value, threshold, baseline,
    direction and tolerance attributes)."""
    return read(o.predicate, o.value, threshold=o.threshold, baseline=o.baseline, direction=o.direction,
                tolerance=o.tolerance, constraint_predicates=constraint_predicates)
