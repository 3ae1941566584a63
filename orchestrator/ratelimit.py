"""A token bucket per connection: ``rate`` messages per second with a ``burst`` (pure)."""

from __future__ import annotations

import time


class TokenBucket:
    def __init__(self, rate: float, burst: float, clock=time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.clock = clock
        self.stamp = clock()

    def take(self, n: float = 1.0) -> bool:
        """True if ``n`` tokens were available (and are now spent)."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= n:
            self.tokens -= n
            return True
        return False
