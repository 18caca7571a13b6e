"""Figures the commands on every side report: one percentile and one share's interval for all."""

from __future__ import annotations

import math
from collections.abc import Iterable

__all__ = ["percentile", "wilson"]


def percentile(samples: Iterable[float], pct: float) -> float | None:
    """Nearest-rank percentile (``pct`` from 0 to 100), or None without samples."""
    ordered = sorted(samples)
    if not ordered:
        return None
    rank = max(1, min(len(ordered), math.ceil(pct / 100 * len(ordered))))
    return ordered[rank - 1]


def wilson(hits: int, count: int, z: float = 1.96) -> tuple[float, float]:
    """A 95% Wilson score interval for a share ``hits / count``."""
    if count == 0:
        return 0.0, 1.0
    p = hits / count
    centre = (p + z * z / (2 * count)) / (1 + z * z / count)
    half = z * math.sqrt(p * (1 - p) / count + z * z / (4 * count * count)) / (1 + z * z / count)
    return centre - half, centre + half
