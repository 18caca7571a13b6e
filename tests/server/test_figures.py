"""The console's per-process figures, sans I/O: quantiles from two readings of a
histogram, and the solver queue as the console shows it."""

from __future__ import annotations

import asyncio
import math

import pytest
from canfield_server.ops.figures import Reading, figures_between, quantile
from canfield_server.solving.scheduler import POOL, FairScheduler
from canfield_server.transport.figures_beat import solver_figures

INF = math.inf


def buckets(*counts: float) -> tuple[tuple[float, float], ...]:
    return tuple(zip((0.01, 0.1, 1.0, INF), counts, strict=True))


def test_quantiles_cover_only_what_was_observed_between_the_readings() -> None:
    before = buckets(100, 100, 100, 100)  # an old burst of fast acks must not count
    after = buckets(100, 150, 200, 200)  # then 50 acks under 0.1 s, 50 under 1 s
    assert quantile(0.5, before, after) == pytest.approx(0.1)
    assert quantile(0.99, before, after) == pytest.approx(0.1 + 0.9 * 49 / 50)
    assert quantile(0.5, before, before) is None  # nothing observed: no figure, not 0
    # past the last finite bucket, its bound is all a histogram knows
    assert quantile(0.99, buckets(0, 0, 0, 0), buckets(0, 0, 1, 10)) == 1.0


def test_figures_are_per_second_and_in_milliseconds() -> None:
    start = Reading(10.0, 40, buckets(0, 0, 0, 0), buckets(0, 0, 0, 0))
    later = Reading(12.0, 50, buckets(10, 10, 10, 10), buckets(0, 0, 0, 0))
    figures = figures_between(start, later)
    assert figures["moves_per_s"] == 5.0
    assert figures["ack_p50_ms"] == 5.0 and figures["ack_p99_ms"] == pytest.approx(9.9)
    assert figures["board_p50_ms"] is None and figures["board_p99_ms"] is None


async def test_the_solver_queue_names_the_owners_with_the_longest_queues() -> None:
    scheduler = FairScheduler(slots=1)
    gate = asyncio.Event()

    async def job() -> None:
        await gate.wait()

    owners = [POOL, "ROOMA", "ROOMA", "ROOMA", "ROOMB"]
    tasks = [asyncio.create_task(scheduler.run(owner, job, wait_s=30)) for owner in owners]
    while scheduler.running < 1 or sum(scheduler.queued().values()) < 4:
        await asyncio.sleep(0)
    shown = solver_figures(scheduler)
    assert shown["running"] == 1 and shown["slots"] == 1 and shown["waiting"] == 4
    # the pool took the one worker first; the room with three jobs leads the queue
    assert shown["owners"][0] == {"owner": "ROOMA", "jobs": 3}
    assert shown["owners_total"] == len(scheduler.queued())
    gate.set()
    await asyncio.gather(*tasks)
    assert solver_figures(scheduler)["waiting"] == 0
