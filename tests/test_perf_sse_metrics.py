"""The SSE delivery lag histogram (``LoopHistogram``, orchestrator/observe.py) is exposed exactly
like prometheus_client's ``Histogram`` with the same buckets: same bucket counts (values on a
bound fall in that bucket), count and sum; only the ``_created`` sample is left out."""

from __future__ import annotations

import random

from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from orchestrator.observe import FAST_BUCKETS, LoopHistogram


def test_loop_histogram_is_exposed_like_a_prometheus_histogram() -> None:
    rng = random.Random(7)
    values = [*FAST_BUCKETS, 0.0, 1e-9, 1e6, *(rng.choice(FAST_BUCKETS) * rng.choice((1, 1 + 1e-12, 1 - 1e-12))
                                              for _ in range(300)), *(rng.random() * 20 for _ in range(700))]
    reference, ours = CollectorRegistry(), CollectorRegistry()
    hist = Histogram("metis_x_seconds", "lag", buckets=FAST_BUCKETS, registry=reference)
    loop_hist = LoopHistogram("metis_x_seconds", "lag", FAST_BUCKETS, ours)
    for v in values:
        hist.observe(v)
        loop_hist.observe(v)
    expected = [line for line in generate_latest(reference).decode().splitlines() if "_created" not in line]
    assert generate_latest(ours).decode().splitlines() == expected
    family = next(iter(text_string_to_metric_families(generate_latest(ours).decode())))
    assert family.type == "histogram"
    count = next(s.value for s in family.samples if s.name == "metis_x_seconds_count")
    assert count == len(values)


def test_a_count_of_observations_is_exposed_like_that_many_observations() -> None:
    one_by_one, counted = CollectorRegistry(), CollectorRegistry()
    a = LoopHistogram("metis_x_seconds", "lag", FAST_BUCKETS, one_by_one)
    b = LoopHistogram("metis_x_seconds", "lag", FAST_BUCKETS, counted)
    for value, count in ((0.0004, 64), (0.003, 7), (0.25, 1), (30.0, 3)):
        for _ in range(count):
            a.observe(value)
        b.observe(value, count)
    assert generate_latest(counted) == generate_latest(one_by_one)
    assert sum(b.counts) == 75
