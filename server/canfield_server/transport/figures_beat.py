"""This process's figures, every beat: into Redis for the operator console
(``storage.figures_store``) and into the gauges ``/metrics`` serves.

Each beat reads the process's own histograms and counters (``ops.figures``)
and publishes what changed over the last minute: moves per second, ack and
leaderboard p50/p99, and its solver queue (waiting jobs per owner: a room,
an asker, the deal pool). It also sets the gauges that are read rather than
counted: rooms by phase, the solver queue, and Redis's memory.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Mapping
from typing import Any

from canfield_server.ops import metrics
from canfield_server.ops.clock import Clock
from canfield_server.ops.figures import Reading, figures_between, read
from canfield_server.room.session import RoomSession
from canfield_server.solving.scheduler import FairScheduler
from canfield_server.storage.figures_store import MAX_OWNERS, FiguresStore

__all__ = ["FiguresBeat", "solver_figures"]


#: the span the console's figures cover (moves/s, p50/p99): the last minute
WINDOW_S = 60.0


def _window(beat_s: float) -> int:
    """Readings kept so the oldest is about ``WINDOW_S`` before the newest."""
    return max(1, math.ceil(WINDOW_S / max(beat_s, 0.001)))


#: every phase has a gauge from the start, so a scrape shows 0 rather than nothing
PHASES = ("lobby", "racing", "finished")


def solver_figures(scheduler: FairScheduler) -> dict[str, Any]:
    """The queue at the solver workers: jobs waiting and running, and the owners
    with the longest queues."""
    queued = scheduler.queued()
    longest = sorted(queued.items(), key=lambda item: (-item[1], item[0]))[:MAX_OWNERS]
    return {
        "waiting": sum(queued.values()),
        "running": scheduler.running,
        "slots": scheduler.slots,
        "owners": [{"owner": owner, "jobs": jobs} for owner, jobs in longest],
        "owners_total": len(queued),
    }


class FiguresBeat:
    """A part of the process's ``Beat``: its figures every ``beat_s``."""

    name = "figures beat"

    def __init__(
        self,
        name: str,
        store: FiguresStore,
        sessions: Mapping[str, RoomSession],
        scheduler: FairScheduler,
        redis: Any,
        beat_s: float,
        clock: Clock,
    ) -> None:
        self.process = name
        self.store = store
        #: the rooms served here, by code (the hub's, live)
        self.sessions = sessions
        self.scheduler = scheduler
        self.redis = redis
        #: the first figures a beat after the first reading, the base
        self.every_s = self.first_s = beat_s
        self.clock = clock
        #: the readings of the last minute: the figures cover that window, so a
        #: quiet beat does not blank the console (the oldest reading is the base)
        self.readings: deque[Reading] = deque([read(clock.monotonic())], maxlen=_window(beat_s))

    async def tick(self) -> None:
        await self.beat()

    async def forget(self) -> None:
        await self.store.forget(self.process)

    async def beat(self) -> None:
        now = read(self.clock.monotonic())
        figures = figures_between(self.readings[0], now)
        self.readings.append(now)
        solver = solver_figures(self.scheduler)
        metrics.set_solver(solver["waiting"], solver["running"], solver["owners_total"])
        phases = Counter(str(s.state.phase) for s in self.sessions.values())
        metrics.set_rooms_by_phase({phase: phases.get(phase, 0) for phase in PHASES})
        await self.store.publish(self.process, {**figures, "solver": solver})
        memory = await self.redis.info("memory")
        metrics.set_redis_memory(int(memory.get("used_memory", 0)))
