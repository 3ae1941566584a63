"""cda's confidence calibration: the shipped table's shape, the PAV fit, and held-out reliability."""

from __future__ import annotations

import json
import random

import pytest

from abilities.cda import calibration, reliability, scoring

# Held-out generator seeds: 8,000,000 + services*1000 + i. The table is fitted on
# 5,000,000 + services*1000 + i (at most 7,000,039) and the benchmark uses services*1000 + i.
HELD_OUT = [(50, 40), (200, 30), (500, 10)]
HELD_OUT_BASE = 8_000_000


def test_shipped_table_is_monotone_into_unit_interval_and_loaded() -> None:
    doc = json.loads(calibration.TABLE_PATH.read_text())
    knots = [(float(x), float(y)) for x, y in doc["knots"]]
    assert knots[0][0] == 0.0 and knots[-1][0] == 1.0
    assert all(x1 > x0 and y1 >= y0 for (x0, y0), (x1, y1) in zip(knots, knots[1:], strict=False))
    assert all(0.0 <= y <= 1.0 for _, y in knots)
    assert knots != calibration.IDENTITY and scoring.CALIBRATION == knots
    grid = [i / 1000 for i in range(1001)] + [-0.5, 1.5]
    ys = [scoring.calibrate(x) for x in grid[:1001]]
    assert all(b >= a for a, b in zip(ys, ys[1:], strict=False))
    assert all(0.0 <= scoring.calibrate(x) <= 1.0 for x in grid)
    assert doc["samples"] > 1000 and doc["seeds"].startswith("5000000")


def test_check_table_refuses_bad_tables() -> None:
    for bad in ([(0.0, 0.5), (0.5, 0.4), (1.0, 0.9)], [(0.0, 0.0), (1.0, 1.2)], [(0.1, 0.0), (1.0, 1.0)],
                [(0.0, 0.0), (0.5, 0.2), (0.5, 0.3), (1.0, 1.0)]):
        with pytest.raises(ValueError):
            calibration.check_table(bad)


def test_pav_pools_violators_and_smooths() -> None:
    # 0.1 -> 1 and 0.2 -> 0 violate monotonicity: pooled to one block (x 0.15, 1 of 2), then
    # Beta(1,1): (1+1)/(2+2) = 0.5; the block at 0.3 (1 of 1) becomes 2/3.
    knots = calibration.fit_isotonic([0.1, 0.2, 0.3], [1, 0, 1])
    assert knots == [(0.0, 0.5), (0.15, 0.5), (0.3, 0.6667), (1.0, 0.6667)]
    # equal x values are one point of the map
    assert calibration.fit_isotonic([0.4, 0.4, 0.4, 0.4], [1, 0, 0, 1]) == [(0.0, 0.5), (0.4, 0.5), (1.0, 0.5)]


def test_fit_recovers_a_known_miscalibration() -> None:
    r = random.Random(3)
    xs = [r.random() for _ in range(4000)]
    ys = [int(r.random() < x ** 2) for x in xs]  # the truth is x^2: the identity is over-confident
    knots = calibration.fit_isotonic(xs, ys)
    test_x = [r.random() for _ in range(2000)]
    test_y = [int(r.random() < x ** 2) for x in test_x]
    fitted = [calibration.apply(knots, x) for x in test_x]
    assert calibration.ece(fitted, test_y) < 0.5 * calibration.ece(test_x, test_y)
    assert abs(calibration.apply(knots, 0.5) - 0.25) < 0.06


def test_ece_and_brier_definitions() -> None:
    assert calibration.ece([0.9, 0.9, 0.1, 0.1], [1, 1, 0, 0]) == pytest.approx(0.1)
    assert calibration.brier([1.0, 0.0, 0.5], [1, 0, 1]) == pytest.approx(0.25 / 3)


def test_held_out_reliability_beats_identity_and_keeps_the_order() -> None:
    s = reliability.collect(HELD_OUT, HELD_OUT_BASE)
    assert len(s.top_y) == sum(k for _, k in HELD_OUT) and 0 < sum(s.top_y) < len(s.top_y)
    # the ability ships the table's value (these problems carry no uncertainty outside the fit); the
    # traced raw value has 6 decimals and the table's slope is at most ~40, hence the tolerance
    table = calibration.load_table()
    assert all(abs(c - calibration.apply(table, r)) <= 1e-4 for r, c in zip(s.all_raw, s.all_conf, strict=True))
    # monotone: a higher raw confidence never gets a lower shipped one, so rankings (AC@k) cannot move
    pairs = sorted(zip(s.all_raw, s.all_conf, strict=True))
    assert all(b[1] >= a[1] for a, b in zip(pairs, pairs[1:], strict=False))
    for raw, conf, y in ((s.top_raw, s.top_conf, s.top_y), (s.all_raw, s.all_conf, s.all_y)):
        identity = [round(x, 4) for x in raw]
        assert calibration.ece(conf, y) < calibration.ece(identity, y)
        assert calibration.brier(conf, y) < calibration.brier(identity, y)
