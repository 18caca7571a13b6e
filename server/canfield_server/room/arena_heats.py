"""An arena's heats on this process: each racer seated by the process that
holds their connection, finishers back in the waiting, and each heat scored
once at its end (the heats themselves are formed by the arena lock's holder:
``room.arena_forming``).

Every process with arena pages open ticks (``Settings.arena_tick_s``):
for each such arena it

1. takes its racers who finished (won, gave up, stuck, or their heat ended)
   out of their heat's room (``left``) and back into the waiting;
2. seats its racers who were put in a heat (``ArenaStore.take``, by any
   process) in that heat's room (``joined``), and starts the heat once all
   are seated (or ``arena_seat_wait_s`` after it formed, by any of them);
3. if it holds the arena's lock, forms the heats from the waiting
   (``HeatFormer``: no heat in the last ``arena_last_heat_s``), and ends the
   arena once its time is up and its last heat is over.

Steps 1 and 2 are also done the moment they can be, without a tick: a racer
whose race here is over is taken out at once (``finish``, after their last
action), and racers put in a heat are seated at once when its forming is
heard (``arena_signals.Formed``). The tick does what those missed. A racer
moved by one of them is left alone by the others until it is done (``busy``).

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
from canfield_protocol import ErrorCode as E
from canfield_protocol import (
    Leave,
    MemberStatus,
    Phase,
    ProtocolError,
    RoomState,
    Row,
)

from canfield_server.ops import metrics
from canfield_server.ops.logs import event
from canfield_server.room import arena_rules, identifiers, public, rules
from canfield_server.room.arena_forming import HeatFormer
from canfield_server.room.arena_results import ArenaResults
from canfield_server.room.arena_signals import ArenaBus, Waited
from canfield_server.room.ports import (
    ArenaRecord,
    ArenaStore,
    HeatRecord,
    Peer,
    SolverService,
)
from canfield_server.room.registry import Rooms
from canfield_server.room.seating import Seating

__all__ = ["HeatRunner", "Racer"]

log = logging.getLogger(__name__)

#: the store's calls that score a heat: its seats, its berserks, the scoring script
SCORE_CALLS = 3


class Racer(msgspec.Struct):
    """A connection racing in an arena: its arena, its racer id (public identity
    id) and name; the heat it is seated in now ("" none); ``gone``: the page
    follows the arena no more (it closed), so it waits for no heat."""

    arena: str
    racer: str
    name: str
    heat: str = ""
    gone: bool = False


class HeatRunner:
    def __init__(
        self,
        rooms: Rooms,
        seating: Seating,
        store: ArenaStore,
        solver: SolverService | None,
        owner: str,
        signals: ArenaBus,
    ) -> None:
        self.rooms = rooms
        self.seating = seating
        self.store = store
        self.signals = signals
        #: this process, as the arena's lock names its holder
        self.owner = owner
        settings = rooms.settings
        self.clock = rooms.clock
        self.tick_s = settings.arena_tick_s
        self.seat_wait_s = settings.arena_seat_wait_s
        self.heat_limit_s = settings.arena_heat_limit_s
        self.countdown_s = settings.countdown_s
        #: each racer's place kept in their history at the arena's end
        self.results = ArenaResults(store, self.clock, settings)
        #: the heats formed, when this process holds an arena's lock
        self.former = HeatFormer(rooms, store, solver, signals, self.start)
        #: racers (ids) being taken out of a heat or seated in one now, and the seat
        #: each of them was told of meanwhile (taken once they are done)
        self.busy: set[str] = set()
        self.seat_after: dict[str, tuple[Peer, Racer, str]] = {}

    def forming(self, record: ArenaRecord, now: int) -> bool:
        """Heats form now: it has started, is not over, and its last minute is not here."""
        return self.former.forming(record, now)

    async def tick(self, record: ArenaRecord, racers: dict[Peer, Racer]) -> None:
        """One look at the arena from this process (the module's steps). Racers are
        taken out of their heats and seated side by side, and the heats are formed
        in a task of their own: a tick never waits on one racer or one deal, so a
        crowd is seated within a tick or two."""
        code, now = record.code, self.clock.now_ms()
        forming = self.forming(record, now)
        racing = [(peer, racer) for peer, racer in racers.items() if racer.heat]
        done = await asyncio.gather(*(self._maybe_done(p, r, forming) for p, r in racing))
        idle: dict[str, tuple[Peer, Racer]] = {}
        for peer, racer in racers.items():
            if not racer.heat and peer.room is None and racer.racer not in self.busy:
                idle.setdefault(racer.racer, (peer, racer))
        waited = any(done)
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
                waited = await self._wait_again(code, rest, since) or waited
        if waited:
            await self.waited(code)
        if await self.store.lock(code, self.owner, round(self.tick_s * 3000)):
            self.former.holding.add(code)
            for heat in await self.store.stale(code, now):
                self.former.rescue(record, heat)
            if forming:
                self.former.at_tick(record, now)
            elif now >= record.ends_at and not record.over:
                await self._maybe_over(record)
        else:
            self.former.holding.discard(code)

    async def waited(self, code: str) -> None:
        """Racers were put in the waiting: the lock's holder is told to form heats."""
        try:
            await self.signals.send(code, Waited())
        except self.rooms.storage_errors as exc:  # its tick forms them
            log.warning("arena %s: waiting unsignalled: %s", code, exc)

    # ------------------------------------------------------------ a racer

    def acted(self, peer: Peer, racer: Racer, record: ArenaRecord) -> None:
        """After the racer's board action: if it ended their race in the heat (won,
        gave up, stuck), they are out of it and waiting again now, not at a tick."""
        session = self.rooms.get(racer.heat) if racer.heat == peer.room else None
        row = session.rows.get(peer.member_id or "") if session is not None else None
        if row is not None and row.status not in (MemberStatus.PLAYING, MemberStatus.DISCONNECTED):
            self.rooms.spawn(self._finish(peer, racer, record))

    async def _finish(self, peer: Peer, racer: Racer, record: ArenaRecord) -> None:
        if await self._maybe_done(peer, racer, self.forming(record, self.clock.now_ms())):
            await self.waited(racer.arena)

    async def _maybe_done(self, peer: Peer, racer: Racer, forming: bool) -> bool:
        """A racer whose race in the heat is over leaves its room and waits again
        (True: they wait now)."""
        if racer.racer in self.busy:
            return False
        self.busy.add(racer.racer)
        try:
            return await self._done(peer, racer, forming)
        finally:
            self.busy.discard(racer.racer)
            told = self.seat_after.pop(racer.racer, None)
            if told is not None:  # their next heat formed while they were taken out
                self.seat_now(*told)

    async def _done(self, peer: Peer, racer: Racer, forming: bool) -> bool:
        if not racer.heat:  # taken out already (by ``finish``, or the tick before)
            return False
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
                return False
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
            await self._wait(racer, self.clock.now_ms())
        return forming and not racer.gone

    async def _wait(self, racer: Racer, since: int) -> None:
        """The racer waits for a heat, unless their page went meanwhile (taken out
        of a heat after their last action, their page may close before they wait:
        its leaving took them out of a waiting they were not in yet)."""
        await self.store.wait(racer.arena, racer.racer, since)
        if racer.gone:
            await self.store.unwait(racer.arena, racer.racer)

    async def _wait_again(self, code: str, racers: list[str], since: int) -> bool:
        """Racers here in no heat who neither wait nor are put in one wait again:
        their place in a heat was given up (``ArenaStore.settle``) or its seat
        refused. Not one who holds a heat (another page of theirs races it), nor
        one being seated now. True: some wait again."""
        again = False
        for racer in await self.store.unplaced(code, racers):
            if racer not in self.busy and await self.released(racer):
                await self.store.wait(code, racer, since)
                again = True
        return again

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

    def seat_now(self, peer: Peer, racer: Racer, heat: str) -> None:
        """The racer was put in ``heat`` (its forming heard): seated now, or as soon
        as they are out of the heat they finished (put in the waiting on the way
        out, they can be put in the next heat before that way ends)."""
        if racer.racer in self.busy:
            self.seat_after[racer.racer] = (peer, racer, heat)
        elif not racer.heat and peer.room is None:
            self.rooms.spawn(self._seat(peer, racer, heat, None))

    async def _seat(self, peer: Peer, racer: Racer, heat: str, record: HeatRecord | None) -> None:
        """The racer takes their seat in the heat they were put in (``joined``);
        a heat that takes nobody more sends them back to the waiting."""
        if racer.racer in self.busy:
            return
        self.busy.add(racer.racer)
        try:
            await self._take_seat(peer, racer, heat, record)
        finally:
            self.busy.discard(racer.racer)

    async def _take_seat(
        self, peer: Peer, racer: Racer, heat: str, record: HeatRecord | None
    ) -> None:
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
            if state.phase != Phase.LOBBY:
                # started without them (the seat wait): a seat now, in its countdown
                # by a time read before the save, would be a new race's seat, which
                # clears the boards of those racing already; they wait again
                raise ProtocolError(E.WRONG_PHASE, "this heat has started")
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
            await self._wait(racer, now)
            await self.waited(racer.arena)
            return
        racer.heat = heat
        # seated while its deal was still being found: the heat is read now, after
        # the seat (its former reads the seats after listing it: one of the two
        # sees both, and starts it once all are seated)
        record = record or await self.store.heat(racer.arena, heat)
        if record is not None:
            seated = len(rules.players(saved.state))
            if seated >= len(record.racers):
                self.rooms.spawn(self.start(racer.arena, heat, record.deal))
            else:  # someone's process may be gone: the heat starts without them
                self.clock.call_later(
                    self.seat_wait_s, self.former.start_later, racer.arena, heat, record.deal
                )

    # ------------------------------------------------------------ heats

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
