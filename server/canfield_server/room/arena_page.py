"""What an arena's page is sent: the arena, its standing, the heats running.

Apart from ``room.arena`` (who follows which arena, and when they are told)
because it is the one place that shapes the ``arena`` message: the standing's
ranks (ties share one), each page's own row wherever it stands, and the few
heats a page lists. What every page shares is encoded once
(``frames.shared_frames``), only ``me`` and ``in_arena`` per page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from canfield_protocol import ArenaHeat, ArenaInfo, ArenaLeft, ArenaMsg, ArenaRow

from canfield_server.ops.clock import Clock
from canfield_server.room import frames
from canfield_server.room.arena_heats import HeatRunner, Racer
from canfield_server.room.ports import ArenaRecord, ArenaStore, HeatRecord, Peer, StandingEntry

__all__ = ["ArenaPage", "HEATS_SHOWN"]

#: the running heats an arena's page lists
HEATS_SHOWN = 12


def _shown(running: list[HeatRecord], ranks: dict[str, int]) -> list[HeatRecord]:
    """The heats a page lists (``HEATS_SHOWN``): those of the racers highest in
    the standing first, then the newest (a page of 250 heats helps nobody, and
    each tick's message would grow with the arena)."""

    def best(heat: HeatRecord) -> int:
        return min((ranks.get(r, len(ranks) + 1) for r in heat.racers), default=len(ranks) + 1)

    return sorted(running, key=lambda h: (best(h), -h.opened_ms, h.room))[:HEATS_SHOWN]


def _row(entry: StandingEntry, rank: int, racing: bool = False) -> ArenaRow:
    return ArenaRow(
        rank=rank,
        id=entry.racer,
        name=entry.name,
        points=entry.points,
        streak=entry.streak,
        heats=entry.heats,
        last=entry.last,
        racing=racing,
    )


class ArenaPage:
    def __init__(self, store: ArenaStore, heats: HeatRunner, clock: Clock, rows: int) -> None:
        self.store = store
        self.heats = heats
        self.clock = clock
        #: rows of the standing a page gets (``Settings.arena_standing_rows``)
        self.rows = rows

    def status(self, record: ArenaRecord) -> str:
        now = self.clock.now_ms()
        if record.over:
            return "over"
        if now < record.starts_at:
            return "scheduled"
        return "running" if self.heats.forming(record, now) else "closing"

    def info(self, record: ArenaRecord) -> ArenaInfo:
        return ArenaInfo(
            code=record.code,
            name=record.name,
            draw=record.draw,
            minutes=record.minutes,
            starts_at=record.starts_at,
            ends_at=record.ends_at,
            status=self.status(record),
            public=record.public,
            host=record.host,
            every=record.every,
        )

    async def send(
        self,
        record: ArenaRecord,
        peers: dict[Peer, Racer | None],
        removed: Callable[[Peer], None],
    ) -> None:
        """Each of ``peers`` gets the arena as it is now (its own row included); a
        racer the host removed gets ``arena_left`` instead (``removed`` first)."""
        code = record.code
        top, count = await self.store.standing(code, self.rows)
        running = await self.store.running(code)
        waiting = await self.store.waiting(code)
        racing = {r for heat in running for r in heat.racers}
        mine = [r.racer for r in peers.values() if r is not None]
        lines = await self.store.entries(code, mine) if mine else {}
        ranks: dict[str, int] = {}
        rows = []
        for n, entry in enumerate(top):
            rank = n + 1 if n == 0 or entry.points != top[n - 1].points else ranks[top[n - 1].racer]
            ranks[entry.racer] = rank
            rows.append(_row(entry, rank, entry.racer in racing and entry.racer not in waiting))
        heats = [
            ArenaHeat(room=h.room, names=h.names, started_at=h.opened_ms)
            for h in _shown(running, ranks)
        ]
        common = ArenaMsg(
            arena=self.info(record),
            standing=rows,
            racers=count,
            heats=heats,
            waiting=len(waiting),
            server_time=self.clock.now_ms(),
        )
        to: list[Peer] = []
        own: list[dict[str, Any]] = []
        for peer, racer in peers.items():
            me = None
            if racer is not None:
                line = lines.get(racer.racer)
                if line is None:  # removed by the host
                    removed(peer)
                    peer.send(frames.text(ArenaLeft(arena=code, by="host")))
                    continue
                me = _row(line[0], line[1], bool(racer.heat))
            to.append(peer)
            own.append({"me": me, "in_arena": racer is not None and racer.racer in waiting})
        for peer, frame in zip(to, frames.shared_frames(common, own), strict=True):
            peer.send(frame)
