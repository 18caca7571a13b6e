"""An arena's heats on this process: formed by whoever holds the arena's lock,
each racer seated by the process that holds their connection, finishers
back in the waiting, and each heat scored once at its end.

Every process with arena pages open ticks (``Settings.arena_tick_s``):
for each such arena it

1. takes its racers who finished (won, gave up, stuck, or their heat ended)
   out of their heat's room (``left``) and back into the waiting;
2. seats its racers who were put in a heat (``ArenaStore.take``, by any
   process) in that heat's room (``joined``), and starts the heat once all
   are seated (or ``arena_seat_wait_s`` after it formed, by any of them);
3. if it holds the arena's lock, forms the heats from the waiting
   (``arena_rules.form_heats``: no heat in the last ``arena_last_heat_s``),
   each on a fresh proven deal none of its racers has raced, and ends the
   arena once its time is up and its last heat is over.

A heat is a public race of the arena's draw mode, marked with the arena
(``RoomState.arena``): no host, started by the server; a public arena's
heats are rated as public races are (``RoomState.rated``), a private arena's
are not (room races among friends). A racer holds one arena heat at a time,
across arenas and processes (``ArenaStore.hold_racer``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence

import msgspec
from canfield.dealcode import DealCode
from canfield_protocol import ErrorCode as E
from canfield_protocol import (
    Leave,
    MemberStatus,
    Phase,
    ProtocolError,
    RoomSettings,
    RoomState,
    Row,
)

from canfield_server.ops import metrics
from canfield_server.ops.logs import event
from canfield_server.room import arena_rules, identifiers, public, rules
from canfield_server.room.arena_results import ArenaResults
from canfield_server.room.ports import (
    ArenaRecord,
    ArenaStore,
    HeatRecord,
    Peer,
    RoomSave,
    SolverService,
    StandingEntry,
)
from canfield_server.room.registry import Rooms
from canfield_server.room.seating import Seating

__all__ = ["HeatRunner", "Racer"]

log = logging.getLogger(__name__)

#: the store's calls that score a heat: its seats, its berserks, the scoring script
SCORE_CALLS = 3
#: proven deals drawn for a heat before one none of its racers has raced is found
DEAL_TRIES = 4


class Racer(msgspec.Struct):
    """A connection racing in an arena: its arena, its racer id (public identity
    id) and name; the heat it is seated in now ("" none)."""

    arena: str
    racer: str
    name: str
    heat: str = ""


class HeatRunner:
    def __init__(
        self,
        rooms: Rooms,
        seating: Seating,
        store: ArenaStore,
        solver: SolverService | None,
        owner: str,
    ) -> None:
        self.rooms = rooms
        self.seating = seating
        self.store = store
        self.solver = solver
        #: this process, as the arena's lock names its holder
        self.owner = owner
        settings = rooms.settings
        self.clock = rooms.clock
        self.tick_s = settings.arena_tick_s
        self.gather_ms = round(settings.arena_gather_s * 1000)
        self.last_ms = round(settings.arena_last_heat_s * 1000)
        self.seat_wait_s = settings.arena_seat_wait_s
        self.heat_limit_s = settings.arena_heat_limit_s
        self.countdown_s = settings.countdown_s
        self.proven_wait_s = settings.proven_deal_wait_s
        #: each racer's place kept in their history at the arena's end
        self.results = ArenaResults(store, self.clock, settings)
        #: arenas whose heats this process is forming now (one formation at a time)
        self.forming_now: set[str] = set()
        #: a heat still forming this long after it formed is rescued (``_rescue``):
        #: its deal, the seat wait and a few ticks, with room to spare
        self.rescue_ms = round(
            (DEAL_TRIES * self.proven_wait_s + self.seat_wait_s + 3 * self.tick_s) * 2000
        )
        #: heats this process is rescuing now
        self.rescuing: set[str] = set()

    def forming(self, record: ArenaRecord, now: int) -> bool:
        """Heats form now: it has started, is not over, and its last minute is not here."""
        return (
            record.starts_at <= now < record.ends_at - self.last_ms
            and record.ended_at is None
            and not record.over
        )

    async def tick(self, record: ArenaRecord, racers: dict[Peer, Racer]) -> None:
        """One look at the arena from this process (the module's steps). Racers are
        taken out of their heats and seated side by side, and the heats are formed
        in a task of their own: a tick never waits on one racer or one deal, so a
        crowd is seated within a tick or two."""
        code, now = record.code, self.clock.now_ms()
        forming = self.forming(record, now)
        racing = [(peer, racer) for peer, racer in racers.items() if racer.heat]
        await asyncio.gather(*(self._maybe_done(p, r, forming) for p, r in racing))
        idle: dict[str, tuple[Peer, Racer]] = {}
        for peer, racer in racers.items():
            if not racer.heat and peer.room is None:
                idle.setdefault(racer.racer, (peer, racer))
        if idle:
            assigned = await self.store.assigned(code, list(idle))
            if assigned:
                running = {h.room: h for h in await self.store.running(code)}
                await asyncio.gather(
                    *(
                        self._seat(*idle[racer_id], heat, running.get(heat))
                        for racer_id, heat in assigned.items()
                    )
                )
            since = max(now, record.starts_at)
            rest = [racer_id for racer_id in idle if racer_id not in assigned]
            if rest and self.forming(record, since):
                await self._wait_again(code, rest, since)
        if await self.store.lock(code, self.owner, round(self.tick_s * 3000)):
            for heat in await self.store.stale(code, now):
                if heat not in self.rescuing:
                    self.rescuing.add(heat)
                    self.rooms.spawn(self._rescue(record, heat))
            if forming and code not in self.forming_now:
                self.forming_now.add(code)
                self.rooms.spawn(self._form(record, now))
            elif now >= record.ends_at and not record.over:
                await self._maybe_over(record)

    # ------------------------------------------------------------ a racer

    async def _maybe_done(self, peer: Peer, racer: Racer, forming: bool) -> None:
        """A racer whose race in the heat is over leaves its room and waits again."""
        session = self.rooms.get(racer.heat)
        if peer.room != racer.heat or session is None:  # gone (closed, kicked): waits again
            racer.heat = ""
        else:
            row = session.rows.get(peer.member_id or "")
            done = row is not None and row.status not in (
                MemberStatus.PLAYING,
                MemberStatus.DISCONNECTED,
            )
            # a racer still in the race stays until its results are written: taken
            # out between the race's end and its results, one with no move yet
            # would be in no row of them, and score nothing
            if not done and (session.state.phase != Phase.FINISHED or session.final is None):
                return
            try:
                await self.seating.leave(peer, Leave())
            except ProtocolError as exc:
                log.info(
                    "arena %s: %s leaves heat %s: %s", racer.arena, racer.racer, racer.heat, exc
                )
            left, racer.heat = racer.heat, ""
            await self.store.free_racer(racer.racer, f"{racer.arena}/{left}")
            event(log, "arena.finished", arena=racer.arena, heat=left, racer=racer.racer)
        if forming:
            await self.store.wait(racer.arena, racer.racer, self.clock.now_ms())

    async def _wait_again(self, code: str, racers: list[str], since: int) -> None:
        """Racers here in no heat who neither wait nor are put in one wait again:
        their place in a heat was given up (``ArenaStore.settle``) or its seat
        refused. Not one who holds a heat (another page of theirs races it)."""
        for racer in await self.store.unplaced(code, racers):
            if await self.released(racer):
                await self.store.wait(code, racer, since)

    async def released(self, racer: str) -> bool:
        """The racer holds no arena heat now: none held, or the race they held one
        for is over (raced on a page that follows no arena, as the web's race page:
        nobody took them out of it, so their hold ends here)."""
        held = await self.store.racer_heat(racer)
        if held is None:
            return True
        code, _, heat = held.partition("/")
        member = next(
            (m for m, r in (await self.store.seats(code, heat)).items() if r == racer), ""
        )
        found = await self.rooms.store.load_room(heat)
        if found is not None and found.state.phase != Phase.FINISHED:
            seat = rules.member(found.state, member) if member else None
            if seat is None and found.state.phase == Phase.LOBBY:
                return False  # being seated in it now
            row = (await self.rooms.store.rows(heat)).get(member) if seat else None
            if seat and (
                row is None or row.status in (MemberStatus.PLAYING, MemberStatus.DISCONNECTED)
            ):
                return False
        await self.store.free_racer(racer, held)
        return True

    async def _seat(self, peer: Peer, racer: Racer, heat: str, record: HeatRecord | None) -> None:
        """The racer takes their seat in the heat they were put in (``joined``);
        a heat that takes nobody more sends them back to the waiting."""
        if not await self.store.claim(racer.arena, racer.racer, heat):
            return
        hold_ms = round((self.heat_limit_s + self.seat_wait_s + self.countdown_s) * 1000) + 60_000
        if not await self.store.hold_racer(racer.racer, f"{racer.arena}/{heat}", hold_ms):
            log.info("arena %s: %s races another heat: not in %s", racer.arena, racer.racer, heat)
            return
        member_id, token = identifiers.new_member_id(), identifiers.new_token()
        now = self.clock.now_ms()

        def seat(state: RoomState) -> RoomState:
            if state.arena != racer.arena:
                raise ProtocolError(E.NOT_ALLOWED, "not a heat of this arena")
            return public.seat_public(state, member_id, racer.name, now, arena_rules.HEAT_MOST)

        try:
            saved = await self.rooms.take_seat(
                heat, seat, member_id, identifiers.token_hash(token), new_race=True
            )
            await self.store.seat(racer.arena, heat, member_id, racer.racer)
            await self.seating.enter(peer, saved, member_id, token, counted=True)
        except ProtocolError as exc:
            log.info("arena %s: no seat in heat %s: %s", racer.arena, heat, exc.message)
            await self.store.free_racer(racer.racer, f"{racer.arena}/{heat}")
            await self.store.wait(racer.arena, racer.racer, now)
            return
        racer.heat = heat
        if record is not None:
            seated = len(rules.players(saved.state))
            if seated >= len(record.racers):
                self.rooms.spawn(self.start(racer.arena, heat, record.deal))
            else:  # someone's process may be gone: the heat starts without them
                self.clock.call_later(
                    self.seat_wait_s, self._start_later, racer.arena, heat, record.deal
                )

    # ------------------------------------------------------------ heats

    def _start_later(self, code: str, heat: str, deal: str) -> None:
        self.rooms.spawn(self.start(code, heat, deal))

    async def start(self, code: str, heat: str, deal: str) -> None:
        """The heat starts on its deal (once, whichever process is first); one
        nobody sat down in is over before it began. Either way it is settled:
        forming no more, its racers not seated yet wait again."""
        now = self.clock.now_ms()
        try:
            await self.rooms.mutate(
                heat,
                lambda s: rules.start_race(
                    s, rules.NO_HOST, now, self.countdown_s, deal, force=True
                ),
                new_race=True,
            )
        except ProtocolError as exc:
            if exc.code == E.WRONG_PHASE:  # started already, or nobody came
                record = await self.rooms.store.load_room(heat)
                if record is not None and not rules.players(record.state):
                    await self.store.heat_over(code, heat, [])
                    await self.store.settle(code, heat)
                return
            log.warning("arena %s: heat %s not started: %s", code, heat, exc.message)
            return
        await self.store.settle(code, heat)
        event(log, "arena.heat_started", arena=code, heat=heat)

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
                opened = {h.room: h for h in await self.store.running(code)}.get(heat)
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

    async def _form(self, record: ArenaRecord, now: int) -> None:
        """The heats the waiting racers make now, all opened at once (each waits
        for its deal on its own)."""
        code = record.code
        try:
            waiting = await self.store.waiting(code)
            if not waiting:
                return
            lines = await self.store.entries(code, list(waiting))
            points = {r: line.points for r, (line, _) in lines.items()}
            groups = arena_rules.form_heats(waiting, points, now, self.gather_ms)
            opened = await asyncio.gather(
                *(self._open(record, group, lines) for group in groups), return_exceptions=True
            )
            for outcome in opened:
                if isinstance(outcome, Exception):
                    log.warning("arena %s: a heat not opened: %r", code, outcome)
        finally:
            self.forming_now.discard(code)

    async def _open(
        self,
        record: ArenaRecord,
        group: Sequence[str],
        lines: dict[str, tuple[StandingEntry, int]],
    ) -> None:
        """One heat: its room, then its racers taken out of the waiting (their
        processes seat them at once), then its deal; it starts once all are
        seated or ``seat_wait_s`` after it formed."""
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
        if not taken:  # another formation took some of them: they race there
            return
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
            self.clock.call_later(wait_s, self._start_later, code, heat, deal)

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

    async def heat_over(
        self, code: str, heat: str, standings: Sequence[Row]
    ) -> dict[str, int] | None:
        """A heat's results are written (once, on one process): its places scored."""
        began = time.perf_counter()
        racer_of = await self.store.seats(code, heat)
        berserk = await self.store.berserks(code, heat)
        places = arena_rules.heat_places(standings, racer_of, berserk)
        given = await self.store.heat_over(code, heat, places)
        metrics.arena_heat_scored(time.perf_counter() - began, SCORE_CALLS)
        event(log, "arena.heat_over", arena=code, heat=heat, scored=given)
        return given

    async def _maybe_over(self, record: ArenaRecord) -> None:
        """The arena's time is up and its last heat over: it is over, once."""
        if await self.store.running(record.code):
            return
        if not await self.store.finish(record.code):
            return
        for _ in range(4):
            found = await self.store.load(record.code)
            if found is None:
                return
            latest, ver = found
            if await self.store.save(msgspec.structs.replace(latest, over=True), ver) is not None:
                event(log, "arena.over", arena=record.code)
                await self.results.keep(latest)
                return
