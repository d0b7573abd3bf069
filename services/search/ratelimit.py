"""Per-caller request budgets: a token bucket per key, in this process.

Each replica of the search service keeps its own buckets, so with N replicas behind a balancer a caller
gets up to N times the budget; the point is to stop one runaway script or a password-guessing loop from
starving everyone else, not to meter exactly.
"""

import math
import time
from dataclasses import dataclass


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    def __init__(self, per_minute: float, burst: int, max_keys: int = 100_000) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(max(burst, 1))
        self.max_keys = max_keys
        self.buckets: dict[str, _Bucket] = {}

    def take(self, key: str, now: float | None = None) -> float:
        """Spend one request of `key`'s budget: 0 when allowed, else the seconds until one is available."""
        if self.rate <= 0:
            return 0.0  # limiting turned off
        now = time.monotonic() if now is None else now
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= self.max_keys:
                self._forget_full(now)
            bucket = self.buckets[key] = _Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.rate)
        bucket.updated = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return 0.0
        return (1 - bucket.tokens) / self.rate

    def _forget_full(self, now: float) -> None:
        """Drop the buckets that have refilled: a caller with a full bucket is the same as a new one."""
        for key in [k for k, b in self.buckets.items() if b.tokens + (now - b.updated) * self.rate >= self.burst]:
            del self.buckets[key]
        if len(self.buckets) >= self.max_keys:  # still full under a flood of distinct keys: start over
            self.buckets.clear()


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))
