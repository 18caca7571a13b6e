"""The server's clock: every timestamp on the wire and in Redis is epoch ms."""

from __future__ import annotations

import time

__all__ = ["now_ms"]


def now_ms() -> int:
    return int(time.time() * 1000)
