"""Arenas that no page follows still end: their last heats, their end, their results.

A process ticks the arenas its pages follow (``Arenas``). An arena whose
every page closed (a private one its friends left, a public one at night)
would then never be looked at again: its end never claimed, its places never
kept in its racers' histories. So each process's beat (``ArenaDriver.tick``,
every ``arena_tick_s``) looks once at every arena that started within the
longest an arena runs (public ones from their listing, private ones from
``ArenaStore.tracked``) and that no page here follows: the arena lock's
holder forms its heats (nobody waits in it, so none) and, once its time is
up and its last heat is over, ends it and keeps its results, once across
processes (``ArenaStore.finish``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from canfield_protocol import ARENA_MINUTES_MOST

from canfield_server.ops.clock import Clock
from canfield_server.room.arena_heats import HeatRunner
from canfield_server.room.ports import ArenaStore

__all__ = ["ArenaDriver", "DRIVEN_MS"]

log = logging.getLogger(__name__)

#: how long after its start an arena is driven: the longest an arena runs, and
#: ten minutes for its last heats (a heat's time limit is five)
DRIVEN_MS = (ARENA_MINUTES_MOST + 10) * 60_000


class ArenaDriver:
    """A beat part (``transport.beat``): the arenas no page here follows, driven."""

    name = "arenas"

    def __init__(
        self,
        store: ArenaStore,
        heats: HeatRunner,
        clock: Clock,
        followed: Callable[[], set[str]],
        every_s: float,
    ) -> None:
        self.store = store
        self.heats = heats
        self.clock = clock
        self.followed = followed
        self.every_s = self.first_s = every_s

    async def tick(self) -> None:
        """One look at each arena running (or just over) that no page here follows."""
        now = self.clock.now_ms()
        since = now - DRIVEN_MS
        codes = await self.store.publics(since, now) + await self.store.tracked(since, now)
        mine = self.followed()
        for code in codes:
            if code in mine:
                continue
            try:
                found = await self.store.load(code)
                if found is not None and not found[0].over:
                    await self.heats.tick(found[0], {})
            except Exception:  # noqa: BLE001 - one arena's trouble stops no other
                log.exception("arena %s: not driven", code)

    async def forget(self) -> None:
        """Nothing to strike: the arenas stand on their own."""
