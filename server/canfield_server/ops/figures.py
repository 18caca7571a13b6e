"""This process's figures for the operator console, sans I/O: moves per second
and the p50/p99 of move acks and leaderboards over the last beat.

Prometheus works these out from the scraped histograms; the console has no
Prometheus, so each process reads its own histograms at every beat and
publishes the difference (``transport.figures_beat``). A quantile is
interpolated within its bucket, as ``histogram_quantile`` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from prometheus_client import Histogram

from canfield_server.ops import metrics

__all__ = ["Reading", "read", "quantile", "figures_between"]


@dataclass(frozen=True)
class Reading:
    """The counters at one moment (``at``: monotonic seconds)."""

    at: float
    moves: float
    #: (upper bound, cumulative count) per bucket, the last bound +Inf
    acks: tuple[tuple[float, float], ...]
    leaderboards: tuple[tuple[float, float], ...]


def _buckets(histogram: Histogram) -> tuple[tuple[float, float], ...]:
    return tuple(
        (float(sample.labels["le"]), sample.value)
        for family in histogram.collect()
        for sample in family.samples
        if sample.name.endswith("_bucket")
    )


def read(at: float) -> Reading:
    moves = sum(
        sample.value
        for family in metrics.MOVES.collect()
        for sample in family.samples
        if sample.name.endswith("_total")
    )
    return Reading(at, moves, _buckets(metrics.MOVE_LATENCY), _buckets(metrics.LEADERBOARD_LATENCY))


def quantile(
    q: float,
    before: tuple[tuple[float, float], ...],
    after: tuple[tuple[float, float], ...],
) -> float | None:
    """The ``q`` quantile (seconds) of what was observed between two readings of
    one histogram; None when nothing was."""
    counts = [(bound, now - then) for (bound, now), (_, then) in zip(after, before, strict=True)]
    total = counts[-1][1] if counts else 0
    if total <= 0:
        return None
    rank = q * total
    lower_bound, lower_count = 0.0, 0.0
    for bound, count in counts:
        if count >= rank:
            if math.isinf(bound):
                return lower_bound  # past the last finite bucket: its bound is all we know
            share = (rank - lower_count) / (count - lower_count) if count > lower_count else 1
            return lower_bound + (bound - lower_bound) * share
        lower_bound, lower_count = bound, count
    return lower_bound


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


def figures_between(before: Reading, after: Reading) -> dict[str, Any]:
    """Moves per second, and ack and leaderboard p50/p99 in milliseconds (None
    when there were none), between two readings."""
    span = after.at - before.at
    return {
        "moves_per_s": round((after.moves - before.moves) / span, 2) if span > 0 else 0.0,
        "ack_p50_ms": _ms(quantile(0.5, before.acks, after.acks)),
        "ack_p99_ms": _ms(quantile(0.99, before.acks, after.acks)),
        "board_p50_ms": _ms(quantile(0.5, before.leaderboards, after.leaderboards)),
        "board_p99_ms": _ms(quantile(0.99, before.leaderboards, after.leaderboards)),
    }
