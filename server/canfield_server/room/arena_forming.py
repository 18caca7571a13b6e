"""An arena's heats formed: by the process that holds the arena's lock, from the
racers waiting (``arena_rules.form_heats``), and the heats that a formation left
half done rescued.

The lock's holder forms at its tick, and at once when it hears racers were put
in the waiting (``arena_signals.Waited``), or when the gather of those waiting
ends: each heat's racers are taken out of the waiting in one script
(``ArenaStore.take``: atomic across processes, never a heat of one), their
processes told to seat them (``arena_signals.Formed``), and then its deal is
found (a proven one none of them has raced) while they sit down; it starts
once all are seated (``HeatRunner.start``), or ``arena_seat_wait_s`` after it
formed with whoever came. One formation runs at a time per arena; a signal
heard meanwhile forms again as soon as it ends.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

import msgspec
from canfield.dealcode import DealCode
from canfield_protocol import Phase, ProtocolError, RoomSettings

from canfield_server.ops.logs import event
from canfield_server.room import arena_rules, identifiers, public, rules
from canfield_server.room.arena_signals import ArenaBus, Formed
from canfield_server.room.ports import (
    ArenaRecord,
    ArenaStore,
    HeatRecord,
    RoomSave,
    SolverService,
    StandingEntry,
)
from canfield_server.room.registry import Rooms

__all__ = ["HeatFormer", "DEAL_TRIES"]

log = logging.getLogger(__name__)

#: proven deals drawn for a heat before one none of its racers has raced is found
DEAL_TRIES = 4
#: a gather's end is looked at this long after it (a timer may fire a little early)
GATHER_SLACK_MS = 5

#: starts a heat on its deal (``HeatRunner.start``: once, whichever process is first)
Start = Callable[[str, str, str], Coroutine[Any, Any, None]]
#: a racer's standing line and rank, by racer
Lines = dict[str, tuple[StandingEntry, int]]


class HeatFormer:
    def __init__(
        self,
        rooms: Rooms,
        store: ArenaStore,
        solver: SolverService | None,
        signals: ArenaBus,
        start: Start,
    ) -> None:
        self.rooms = rooms
        self.store = store
        self.solver = solver
        self.signals = signals
        self.start = start
        settings = rooms.settings
        self.clock = rooms.clock
        self.gather_ms = round(settings.arena_gather_s * 1000)
        self.last_ms = round(settings.arena_last_heat_s * 1000)
        self.seat_wait_s = settings.arena_seat_wait_s
        self.heat_limit_s = settings.arena_heat_limit_s
        self.proven_wait_s = settings.proven_deal_wait_s
        #: a heat still forming this long after it formed is rescued (``_rescue``):
        #: its deal, the seat wait and a few ticks, with room to spare
        self.rescue_ms = round(
            (DEAL_TRIES * self.proven_wait_s + self.seat_wait_s + 3 * settings.arena_tick_s) * 2000
        )
        #: arenas whose lock this process held at its last tick
        self.holding: set[str] = set()
        #: arenas whose heats this process is forming now (one formation at a time),
        #: and those to form again once it ends
        self.forming_now: set[str] = set()
        self.again: set[str] = set()
        #: arena -> when its waiting's gather ends (a timer set for then)
        self.gathering: dict[str, int] = {}
        #: heats this process is rescuing now
        self.rescuing: set[str] = set()

    def forming(self, record: ArenaRecord, now: int) -> bool:
        """Heats form now: it has started, is not over, and its last minute is not here."""
        return (
            record.starts_at <= now < record.ends_at - self.last_ms
            and record.ended_at is None
            and not record.over
        )

    # ------------------------------------------------------------ when

    def at_tick(self, record: ArenaRecord, now: int) -> None:
        """The lock holder's tick: a formation, unless one runs."""
        if record.code not in self.forming_now:
            self.forming_now.add(record.code)
            self.rooms.spawn(self._form(record, now))

    def soon(self, code: str) -> None:
        """Racers were put in the waiting, or their gather ended: form now if this
        process holds the arena's lock (else its holder does), or again once the
        formation running now ends."""
        if code not in self.holding:
            return
        if code in self.forming_now:
            self.again.add(code)
            return
        self.forming_now.add(code)
        self.rooms.spawn(self._form_fresh(code))

    async def _form_fresh(self, code: str) -> None:
        """A formation on the arena as it is now (the host may have ended it)."""
        try:
            found = await self.store.load(code)
        except self.rooms.storage_errors as exc:
            log.warning("arena %s: not formed: %s", code, exc)
            found = None
        now = self.clock.now_ms()
        if found is None or not self.forming(found[0], now):
            self._formed(code)
            return
        await self._form(found[0], now)

    def _formed(self, code: str) -> None:
        self.forming_now.discard(code)
        if code in self.again:
            self.again.discard(code)
            self.soon(code)

    def _gather_ends(self, code: str, at_ms: int) -> None:
        """Form again when the gather of those waiting ends (one timer per arena)."""
        if self.gathering.get(code, at_ms + 1) <= at_ms:
            return
        self.gathering[code] = at_ms
        delay_s = (at_ms + GATHER_SLACK_MS - self.clock.now_ms()) / 1000
        self.clock.call_later(max(0.0, delay_s), self._gathered, code, at_ms)

    def _gathered(self, code: str, at_ms: int) -> None:
        if self.gathering.get(code) == at_ms:
            del self.gathering[code]
            self.soon(code)

    # ------------------------------------------------------------ a formation

    async def _form(self, record: ArenaRecord, now: int) -> None:
        """The heats the waiting racers make now: each heat's racers taken and told
        to sit down at once, then each heat's deal found on its own."""
        code = record.code
        try:
            waiting = await self.store.waiting(code)
            if not arena_rules.heats_due(waiting, now, self.gather_ms):
                if len(waiting) >= arena_rules.HEAT_LEAST:  # alone: the next makes a pair
                    self._gather_ends(code, min(waiting.values()) + self.gather_ms)
                return  # read no standing for nothing (a formation per waiting racer)
            lines = await self.store.entries(code, list(waiting))
            points = {r: line.points for r, (line, _) in lines.items()}
            groups = arena_rules.form_heats(waiting, points, now, self.gather_ms)
            taken = await asyncio.gather(
                *(self._take(record, group) for group in groups), return_exceptions=True
            )
            for outcome in taken:
                if isinstance(outcome, BaseException):
                    log.warning("arena %s: a heat not formed: %r", code, outcome)
                elif outcome is not None:
                    self.rooms.spawn(self._open(record, *outcome, lines, now))
        finally:
            self._formed(code)

    async def _take(
        self, record: ArenaRecord, group: Sequence[str]
    ) -> tuple[str, list[str]] | None:
        """One heat's room, then its racers taken out of the waiting and their
        processes told (the heat, its racers); None: another formation took them."""
        code, now = record.code, self.clock.now_ms()
        heat = ""
        for _ in range(4):
            heat = identifiers.new_room_code()
            state = msgspec.structs.replace(
                public.create_public_room(heat, record.draw),
                arena=code,
                rated=record.public,
                settings=RoomSettings(
                    draw=1 if record.draw == 1 else 3, time_limit_s=self.heat_limit_s
                ),
            )
            if await self.rooms.store.save_room(RoomSave(0, state)) is not None:
                break
        until = now + self.rescue_ms
        taken = await self.store.take(code, group, heat, arena_rules.HEAT_LEAST, until)
        if not taken:
            return None
        try:
            await self.signals.send(code, Formed(heat=heat, racers=taken))
        except self.rooms.storage_errors as exc:  # their ticks seat them
            log.warning("arena %s: heat %s formed unsignalled: %s", code, heat, exc)
        return heat, taken

    async def _open(
        self, record: ArenaRecord, heat: str, taken: list[str], lines: Lines, now: int
    ) -> None:
        """The heat's deal, then it is listed; it starts once all are seated (or
        ``seat_wait_s`` after it formed)."""
        code = record.code
        deal = await self._deal(record, taken)
        names = [lines[r][0].name if r in lines else "" for r in taken]
        await self.store.open_heat(
            code, HeatRecord(room=heat, racers=taken, deal=deal, opened_ms=now, names=names)
        )
        event(log, "arena.heat_formed", arena=code, heat=heat, racers=len(taken))
        found = await self.rooms.store.load_room(heat)
        if found is not None and len(rules.players(found.state)) >= len(taken):
            await self.start(code, heat, deal)  # all seated while the deal was found
        else:
            wait_s = max(0.0, self.seat_wait_s - (self.clock.now_ms() - now) / 1000)
            self.clock.call_later(wait_s, self.start_later, code, heat, deal)

    def start_later(self, code: str, heat: str, deal: str) -> None:
        self.rooms.spawn(self.start(code, heat, deal))

    async def _deal(self, record: ArenaRecord, racers: Sequence[str]) -> str:
        """A proven deal (the solver's pool) none of ``racers`` has raced here; a
        random one when the solver has none in time."""
        draw, code = record.draw, record.code
        aside = []
        try:
            for _ in range(DEAL_TRIES):
                proven = None
                if self.solver is not None:
                    try:
                        async with asyncio.timeout(self.proven_wait_s):
                            proven = await self.solver.take(draw, f"arena:{code}")
                    except (TimeoutError, ProtocolError) as exc:
                        log.warning("arena %s: no proven deal: %s", code, exc or "slow")
                deal = proven.code if proven is not None else str(DealCode.random(draw))
                if not await self.store.raced(code, racers, deal):
                    return deal
                if proven is not None:
                    aside.append(proven)
            return str(DealCode.random(draw))
        finally:
            if self.solver is not None:
                for proven in aside:
                    await self.solver.put_back(draw, proven)

    # ------------------------------------------------------------ rescue

    def rescue(self, record: ArenaRecord, heat: str) -> None:
        if heat not in self.rescuing:
            self.rescuing.add(heat)
            self.rooms.spawn(self._rescue(record, heat))

    async def _rescue(self, record: ArenaRecord, heat: str) -> None:
        """A heat still forming past its time: whoever formed it went, or failed
        on the way. It starts with whoever sat down (on its deal, or one found
        now); one nobody sat down in is given up. Either way it is settled, so its
        racers not seated wait again and the arena can end."""
        code = record.code
        try:
            found = await self.rooms.store.load_room(heat)
            lobby = found is None or found.state.phase == Phase.LOBBY
            if found is not None and lobby and rules.players(found.state):
                opened = await self.store.heat(code, heat)
                if opened is None:
                    racers = list(dict.fromkeys((await self.store.seats(code, heat)).values()))
                    lines = await self.store.entries(code, racers)
                    opened = HeatRecord(
                        room=heat,
                        racers=racers,
                        deal=await self._deal(record, racers),
                        opened_ms=self.clock.now_ms(),
                        names=[lines[r][0].name if r in lines else "" for r in racers],
                    )
                    await self.store.open_heat(code, opened)
                await self.start(code, heat, opened.deal)
                outcome = "started"
            elif lobby:
                await self.store.heat_over(code, heat, [])
                outcome = "given up"
            else:
                outcome = "running"
            await self.store.settle(code, heat)
            event(log, "arena.heat_rescued", arena=code, heat=heat, outcome=outcome)
        finally:
            self.rescuing.discard(heat)
