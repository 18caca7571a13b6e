"""Per-connection rate limiting: a token bucket, behind a one-method hook.

The WebSocket layer asks ``allow()`` once per frame; anything with that
method can replace the default (``create_app(rate_limiter=...)``).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol

from canfield_server.ops.clock import Clock

__all__ = ["RateLimiter", "TokenBucket", "PerAddress"]


class RateLimiter(Protocol):
    def allow(self) -> bool:
        """True when one more message may pass now."""


class TokenBucket:
    """``rate`` messages a second sustained, bursts up to ``burst`` (time read
    from ``clock``)."""

    __slots__ = ("rate", "burst", "tokens", "stamp", "clock")

    def __init__(self, rate: float, burst: int, clock: Clock) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.clock = clock
        self.stamp = clock.monotonic()

    def allow(self) -> bool:
        now = self.clock.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class PerAddress:
    """A token bucket per client address, for what one address may try across
    connections (the newest ``max_addresses`` are remembered, in this process)."""

    def __init__(self, rate: float, burst: int, clock: Clock, max_addresses: int = 10_000) -> None:
        self.rate, self.burst, self.max_addresses = rate, burst, max_addresses
        self.clock = clock
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def _bucket(self, address: str) -> TokenBucket:
        bucket = self._buckets.pop(address, None) or TokenBucket(self.rate, self.burst, self.clock)
        self._buckets[address] = bucket
        if len(self._buckets) > self.max_addresses:
            self._buckets.popitem(last=False)
        return bucket

    def ready(self, address: str) -> bool:
        """True when ``address`` has a token left (none is taken)."""
        bucket = self._bucket(address)
        if not bucket.allow():
            return False
        bucket.tokens += 1.0
        return True

    def spend(self, address: str) -> None:
        self._bucket(address).allow()

    def allow(self, address: str) -> bool:
        """True when ``address`` may do one more now (and a token is taken)."""
        return self._bucket(address).allow()
