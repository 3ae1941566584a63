"""The confidence calibration map: load, apply, fit (isotonic), and reliability figures.

Raw confidence (posterior shrunk by uncertainty) is mapped to the empirical probability that the
hypothesis is the true root cause by a monotone piecewise-linear table, fitted by
pool-adjacent-violators on generated problems whose seeds are disjoint from the benchmark's
(``bench/cda_calibrate.py`` writes ``calibration.json``). Monotone means the ranking, and so
AC@k, cannot change. Pure functions only: no engine imports, so ``scoring`` can load it.
"""

from __future__ import annotations

import json
from pathlib import Path

TABLE_PATH = Path(__file__).with_name("calibration.json")
IDENTITY: list[tuple[float, float]] = [(0.0, 0.0), (1.0, 1.0)]


def check_table(knots: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Refuse a table that is not a monotone map of [0, 1] into [0, 1] (it would reorder or overflow)."""
    if len(knots) < 2 or knots[0][0] != 0.0 or knots[-1][0] != 1.0:
        raise ValueError("calibration table must span x = 0 .. 1 with at least two knots")
    for (x0, y0), (x1, y1) in zip(knots, knots[1:], strict=False):
        if not (x1 > x0 and y1 >= y0):
            raise ValueError(f"calibration table is not monotone at x={x1}")
    if any(not 0.0 <= y <= 1.0 for _, y in knots):
        raise ValueError("calibration table maps outside [0, 1]")
    return knots


def load_table(path: Path = TABLE_PATH) -> list[tuple[float, float]]:
    """The shipped table (package data); a missing or broken file is an error, never a silent identity."""
    data = json.loads(path.read_text())
    return check_table([(float(x), float(y)) for x, y in data["knots"]])


def apply(knots: list[tuple[float, float]], raw: float) -> float:
    """Piecewise-linear interpolation of ``raw`` (clamped to [0, 1]) through the knots."""
    raw = min(1.0, max(0.0, raw))
    for (x0, y0), (x1, y1) in zip(knots, knots[1:], strict=False):
        if raw <= x1:
            return y0 + (y1 - y0) * (raw - x0) / (x1 - x0)
    return knots[-1][1]


def _pav(blocks: list[list[float]]) -> list[list[float]]:
    """Pool adjacent violators over blocks ``[sum_x, sum_y, n]`` sorted by x (means non-decreasing)."""
    out: list[list[float]] = []
    for b in blocks:
        out.append(list(b))
        while len(out) > 1 and out[-2][1] / out[-2][2] > out[-1][1] / out[-1][2]:
            b2 = out.pop()
            out[-1] = [out[-1][0] + b2[0], out[-1][1] + b2[1], out[-1][2] + b2[2]]
    return out


def fit_isotonic(xs: list[float], ys: list[int], prior: float = 1.0, digits: int = 4) -> list[tuple[float, float]]:
    """Isotonic fit of 0/1 outcomes on raw confidences, as knots at the pooled blocks' mean x.

    Equal x values are pooled first (one x, one y). Each block's rate is smoothed with a
    Beta(prior, prior) so a small block cannot say 0 or 1, then PAV runs again to restore
    monotonicity. The ends are held flat to x = 0 and x = 1.
    """
    if len(xs) != len(ys) or not xs:
        raise ValueError("need paired, non-empty samples")
    grouped: dict[float, list[float]] = {}
    for x, y in zip(xs, ys, strict=True):
        g = grouped.setdefault(x, [0.0, 0.0, 0.0])
        g[0], g[1], g[2] = g[0] + x, g[1] + y, g[2] + 1
    blocks = _pav([grouped[x] for x in sorted(grouped)])
    smoothed = [[sx, n * (sy + prior) / (n + 2 * prior), n] for sx, sy, n in blocks]
    blocks = _pav(smoothed)
    knots: list[tuple[float, float]] = []
    for sx, sy, n in blocks:
        x, y = round(sx / n, digits), round(sy / n, digits)
        if knots and x <= knots[-1][0]:
            continue
        knots.append((x, y))
    if knots[0][0] > 0.0:
        knots.insert(0, (0.0, knots[0][1]))
    if knots[-1][0] < 1.0:
        knots.append((1.0, knots[-1][1]))
    return check_table(knots)


def ece(probs: list[float], labels: list[int], bins: int = 10) -> float:
    """Expected calibration error: bin-weighted |mean confidence - accuracy| over equal-width bins."""
    if not probs:
        return 0.0
    acc: dict[int, list[float]] = {}
    for p, y in zip(probs, labels, strict=True):
        b = acc.setdefault(min(bins - 1, int(p * bins)), [0.0, 0.0, 0.0])
        b[0], b[1], b[2] = b[0] + p, b[1] + y, b[2] + 1
    return sum(abs(sp - sy) for sp, sy, _ in acc.values()) / len(probs)


def brier(probs: list[float], labels: list[int]) -> float:
    """Mean squared error of the probability against the 0/1 outcome."""
    return sum((p - y) ** 2 for p, y in zip(probs, labels, strict=True)) / len(probs) if probs else 0.0


def reliability(probs: list[float], labels: list[int], bins: int = 10) -> dict[str, dict[str, float]]:
    """Per-bin count, mean confidence and accuracy (bin lower bound as key), for the report."""
    acc: dict[int, list[float]] = {}
    for p, y in zip(probs, labels, strict=True):
        b = acc.setdefault(min(bins - 1, int(p * bins)), [0.0, 0.0, 0.0])
        b[0], b[1], b[2] = b[0] + p, b[1] + y, b[2] + 1
    return {f"{k / bins:.1f}": {"n": int(n), "mean_confidence": round(sp / n, 3), "accuracy": round(sy / n, 3)}
            for k, (sp, sy, n) in sorted(acc.items())}
