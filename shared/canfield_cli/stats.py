"""Figures the commands on every side report: one percentile for all of them."""

from __future__ import annotations

import math
from collections.abc import Iterable

__all__ = ["percentile"]


def percentile(samples: Iterable[float], pct: float) -> float | None:
    """Nearest-rank percentile (``pct`` from 0 to 100), or None without samples."""
    ordered = sorted(samples)
    if not ordered:
        return None
    rank = max(1, min(len(ordered), math.ceil(pct / 100 * len(ordered))))
    return ordered[rank - 1]
