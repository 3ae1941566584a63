"""The per-connection token bucket (orchestrator/ratelimit.py) with an injected clock."""

from __future__ import annotations

from orchestrator.ratelimit import TokenBucket


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_burst_then_refusal():
    clock = Clock()
    b = TokenBucket(rate=10, burst=5, clock=clock)
    assert [b.take() for _ in range(7)] == [True] * 5 + [False] * 2


def test_refill_at_rate():
    clock = Clock()
    b = TokenBucket(rate=10, burst=5, clock=clock)
    for _ in range(5):
        assert b.take()
    assert not b.take()
    clock.t += 0.1  # one token
    assert b.take() and not b.take()
    clock.t += 0.25  # two and a half tokens
    assert b.take() and b.take() and not b.take()


def test_refill_is_capped_at_burst():
    clock = Clock()
    b = TokenBucket(rate=100, burst=3, clock=clock)
    clock.t += 3600
    assert [b.take() for _ in range(5)] == [True, True, True, False, False]


def test_take_n_and_refused_take_spends_nothing():
    clock = Clock()
    b = TokenBucket(rate=1, burst=10, clock=clock)
    assert b.take(8)
    assert not b.take(3)  # refused: only 2 left, and they stay
    assert b.take(2)
    assert not b.take(0.5)


def test_sustained_rate_over_simulated_time():
    clock = Clock()
    b = TokenBucket(rate=50, burst=10, clock=clock)
    granted = 0
    for _ in range(10_000):  # 10 s of a 1 kHz flood
        clock.t += 0.001
        granted += b.take()
    assert 500 <= granted <= 510  # rate * time (+ the initial burst)


def test_clock_is_read_once_per_take():
    calls = []

    def clock() -> float:
        calls.append(1)
        return 5.0

    b = TokenBucket(rate=1, burst=1, clock=clock)
    b.take()
    b.take()
    assert len(calls) == 3  # construction + one per take
