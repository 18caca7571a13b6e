"""Who is connected, and the timers that run with nobody connected.

**The heartbeat.** Each process counts its own connections in each room's
presence hash (``member|origin``) and beats every ``presence_s`` for all
the rooms it serves in one round trip. A member counts as connected while
some process with a fresh beat holds a connection of theirs; a process
that was SIGKILLed stops beating, so after three periods its members show
``disconnected`` (unless they resumed elsewhere) and its counts go.

The verdict is safe against joins: a join counts its connection in the
same script that saves the new seat, and a beat judges only the members
this process knew *before* it read the counts - so no beat can find a
member who just joined in the room and not yet connected.

**The sweep.** A room's next timer - its time limit, the earliest grace
time of a member away, or a serving process's watchdog (renewed by every
beat, so it comes due only when nobody serves the room any more) - is
kept in Redis (``cf:due``). Every process sweeps it every
``timer_sweep_s``: a due room is claimed by one process, which settles
it (counts out the connections of dead processes, ends the race whose
time ran out, gives up the seats whose grace ran out, writes results a
crash left unwritten) even with nobody connected anywhere, and then
writes the room's next due time.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from functools import partial
from typing import Any

from canfield_protocol import Phase, ProtocolError, RoomState

from canfield_server.ops.supervise import Supervised
from canfield_server.room import departures, rules
from canfield_server.room.registry import Rooms
from canfield_server.room.results import Results
from canfield_server.room.seating import Seating

__all__ = ["Presence"]

log = logging.getLogger(__name__)

#: a claimed room is someone else's to settle again after this long (its
#: settler died mid-way, or is very slow)
CLAIM_LEASE_MS = 30_000
#: due rooms one sweep takes, and settles at once
SWEEP_BATCH = 200
SWEEP_PARALLEL = 16


def _connected(state: RoomState, member_ids: list[str]) -> RoomState:
    for member_id in member_ids:
        state = rules.set_connected(state, member_id, True)
    return state


class Presence:
    def __init__(self, rooms: Rooms, seating: Seating, results: Results) -> None:
        self.rooms = rooms
        self.store = rooms.store
        self.clock = rooms.clock
        self.seating = seating
        self.results = results
        settings = rooms.settings
        self.period_s = settings.presence_s
        #: the store judges heartbeats stale by the same limit (given at its construction)
        self.stale_ms = self.store.presence_stale_ms
        self.sweep_s = settings.timer_sweep_s
        self.heartbeat = Supervised("presence", self._beat_forever)
        self.sweeper = Supervised("timers", self._sweep_forever)

    def start(self) -> None:
        self.heartbeat.start()
        if self.sweep_s > 0:
            self.sweeper.start()

    async def stop(self) -> None:
        await self.heartbeat.stop()
        await self.sweeper.stop()

    # ------------------------------------------------------------ the heartbeat

    async def _beat_forever(self) -> None:
        while True:
            await self.clock.sleep(self.period_s)  # a heartbeat is a clock, not an event
            await self.beat()

    async def beat(self, codes: list[str] | None = None) -> None:
        """One heartbeat for every room served here (or ``codes``), one round trip."""
        sessions = self.rooms.sessions
        codes = [c for c in (list(sessions) if codes is None else codes) if c in sessions]
        if not codes:
            return
        # the members known before the counts are read: only they can be judged gone
        before = {code: {m.id for m in sessions[code].state.members} for code in codes}
        watchdog = self.clock.now_ms() + self.stale_ms
        live = await self.store.beat(dict.fromkeys(codes, watchdog))
        for code, members in live.items():
            # one room's trouble (a room too busy to change) never stops the others
            await self._for_room("presence", code, self._judge(code, members, before[code]))

    async def _judge(self, code: str, live: set[str], before: set[str]) -> None:
        session = self.rooms.sessions.get(code)
        if session is None:
            return
        # a ghost has no connection: the server plays it, it is never away
        members = [m for m in session.state.members if not m.ghost]
        back = [m.id for m in members if not m.connected and m.id in live]
        gone = [m.id for m in members if m.connected and m.id in before and m.id not in live]
        if back:  # one compare-and-set for all of them
            await self.rooms.mutate(code, partial(_connected, member_ids=back))
        if gone:
            # recorded together: Seating batches departures into one change
            await asyncio.gather(*(self.rooms.owner.member_gone(code, m) for m in gone))

    # ------------------------------------------------------------ the sweep

    async def _sweep_forever(self) -> None:
        while True:
            await self.clock.sleep(self.sweep_s)  # the sweep is a clock, not an event
            try:
                await self.sweep()
            except self.rooms.storage_errors as exc:
                log.warning("timer sweep paused: %s", exc)

    async def sweep(self) -> int:
        """Settle every room whose timer is due (claimed by this process); how many."""
        now = self.clock.now_ms()
        mine = [
            code
            for code in await self.store.due_rooms(now, SWEEP_BATCH)
            if await self.store.claim_due(code, now, CLAIM_LEASE_MS)
        ]
        for start in range(0, len(mine), SWEEP_PARALLEL):
            await asyncio.gather(
                *(self._settle_claimed(c) for c in mine[start : start + SWEEP_PARALLEL])
            )
        return len(mine)

    async def _settle_claimed(self, code: str) -> None:
        await self._for_room("timers", code, self.settle(code))

    async def _for_room(self, what: str, code: str, work: Coroutine[Any, Any, None]) -> None:
        """One room's part of a loop: whatever fails is logged and the loop goes on."""
        try:
            await work
        except ProtocolError as exc:
            log.warning("%s of %s not updated: %s", what, code, exc.message)
        except self.rooms.storage_errors as exc:
            log.warning("%s of %s not updated: %s", what, code, exc)
        except Exception:
            log.exception("%s of %s failed", what, code)

    async def settle(self, code: str) -> None:
        """Bring a room's timers up to now, here, whoever else is connected."""
        record = await self.store.load_room(code)
        if record is None:  # expired: nothing left to time
            await self.store.schedule(code, None)
            return
        session = self.rooms.sessions.get(code)
        opened = session is None
        if session is None:
            session = await self.rooms.open(record)
        try:
            await self.beat([code])  # counts first: a member who is back keeps the seat
            await self.seating.give_up_away(code)
            state, now = session.state, self.clock.now_ms()
            if state.phase == Phase.RACING and state.ends_at and state.ends_at <= now:
                await self.results.end(code, state.race)
            elif state.phase == Phase.FINISHED and not session.final:
                await self.results.finalize(code, state.race)
            due = departures.next_due(session.state)
        finally:
            if opened:
                await self.rooms.drop_if_empty(session)
        await self.store.schedule(code, due)

    async def grace_over(self, code: str) -> None:
        """Some member's grace time ran out: give up the seats of those still away
        (after a look at the counts: a member who is back keeps the seat)."""
        session = self.rooms.sessions.get(code)
        if session is None:
            return
        if departures.away_too_long(session.state, self.clock.now_ms()):
            await self.beat([code])
        await self.seating.give_up_away(code)
