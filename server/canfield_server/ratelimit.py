"""Per-connection rate limiting: a token bucket, behind a one-method hook.

The WebSocket layer asks ``allow()`` once per frame; anything with that
method can replace the default (``create_app(rate_limiter=...)``).
"""

from __future__ import annotations

import time
from typing import Protocol

__all__ = ["RateLimiter", "TokenBucket"]


class RateLimiter(Protocol):
    def allow(self) -> bool:
        """True when one more message may pass now."""


class TokenBucket:
    """``rate`` messages a second sustained, bursts up to ``burst``."""

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False
