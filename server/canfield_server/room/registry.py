"""The rooms this process serves, and the one way to change a room.

``Rooms`` keeps a ``RoomSession`` per room that has a connection here,
subscribes it to the room bus, and changes rooms by compare-and-set
(``mutate``: apply a pure rule from ``rules``, save it if nobody saved
first, else load and try again). Room events from other processes come
in through ``on_event``. Redis stays the authority: a session adopts
only newer versions, and a resync reloads everything.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol, TypeVar

from canfield import DealCode
from canfield_protocol import ErrorCode as E
from canfield_protocol import Phase, ProtocolError, RoomState

from canfield_server.ops import metrics
from canfield_server.ops.clock import Clock
from canfield_server.ops.config import Settings
from canfield_server.room import departures, rules
from canfield_server.room.events import FinishedEvent, RoomEvent, RowEvent, unpack
from canfield_server.room.leaderboard import Pace
from canfield_server.room.ports import Peer, RoomBus, RoomRecord, RoomSave, RoomStore, StorageErrors
from canfield_server.room.race import PlayerRace, replay
from canfield_server.room.session import RoomSession, SessionHooks

__all__ = ["Rooms", "RoomChange", "RoomOwner"]

log = logging.getLogger(__name__)

#: compare-and-set attempts before a change is refused as "too busy" (from the
#: fourth on, each waits a random moment, longer each time: about 1 s in all)
MUTATE_ATTEMPTS = 32


async def retry_pause(attempt: int, clock: Clock) -> None:
    """Before compare-and-set attempt ``attempt`` (0, 1, ...): from the fourth on,
    a random moment on ``clock``, longer each time, so a crowd changing one room
    spreads out."""
    if attempt >= 3:
        await clock.sleep(random.uniform(0, 0.002 * attempt))


T = TypeVar("T")


async def compare_and_set(attempts: int, attempt: Callable[[int], Awaitable[T | None]]) -> T | None:
    """The one retry loop of a compare-and-set of stored room data: ``attempt(n)``
    reads, decides and saves if nobody saved first, returning its result, or
    None when someone did (read again); None after ``attempts`` tries. (A
    board's numbered actions have their own, allocation-free loop: ``numbered``.)"""
    for n in range(attempts):
        result = await attempt(n)
        if result is not None:
            return result
    return None


#: a room rule: the new state, or the new state and the race's deal
RoomChange = Callable[[RoomState], RoomState | tuple[RoomState, DealCode]]


class RoomOwner(SessionHooks, Protocol):
    """What the rooms hand back to the hub, which owns the rest of a room's life."""

    async def finalize(self, code: str, race_no: int) -> None:
        """Write a finished race's results (found finished without them)."""

    async def member_gone(self, code: str, member_id: str) -> None:
        """A member has no connection left on any process."""

    def end_now(self, code: str, race_no: int) -> None:
        """End a race at once (its first winner, in a room where that ends it)."""

    def seat_moved(self, session: RoomSession, member_id: str) -> None:
        """A racer acted on another process, and has a connection here too: send it
        their board (read from the store)."""


class Rooms:
    def __init__(
        self,
        store: RoomStore,
        settings: Settings,
        storage_errors: StorageErrors,
        *,
        clock: Clock,
        owner: RoomOwner,
        bus: RoomBus | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.storage_errors = storage_errors
        self.clock = clock
        self.owner = owner
        #: room events across processes (None: this process is alone)
        self.bus = bus
        interval = 1.0 / settings.leaderboard_hz if settings.leaderboard_hz > 0 else 0.0
        self.pace = Pace(interval)
        hz = settings.room_updates_hz
        self.room_interval_s = 1.0 / hz if hz > 0 else 0.0
        self.sessions: dict[str, RoomSession] = {}
        self.tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    def get(self, code: str | None) -> RoomSession | None:
        return self.sessions.get(code) if code else None

    def session_of(self, peer: Peer) -> RoomSession:
        """The room a connection sits in, or ``not-in-room``."""
        session = self.get(peer.room)
        if session is None:
            raise ProtocolError(E.NOT_IN_ROOM, "create or join a room first")
        return session

    async def load(self, code: str) -> RoomRecord:
        record = await self.store.load_room(code)
        if record is None:
            raise ProtocolError(E.UNKNOWN_ROOM, f"no room {code} (it may have expired)")
        return record

    # ------------------------------------------------------------ sessions

    async def open(self, record: RoomRecord) -> RoomSession:
        """This process's session of a room, subscribed to its events."""
        code = record.state.room
        session = self.sessions.get(code)
        if session is not None:
            session.adopt(record.ver, record.state, record.deal, record.final)
            return session
        session = self.sessions[code] = RoomSession(
            record, self.pace, self.owner, self.clock, self.room_interval_s
        )
        metrics.set_rooms(len(self.sessions))
        try:
            if self.bus:
                await self.bus.subscribe(code)
            await self.store.serve_room(code)
            await self.sync(session, record)
        except BaseException:
            del self.sessions[code]
            if self.bus:
                await self.bus.unsubscribe(code)
            raise
        return session

    async def sync(self, session: RoomSession, record: RoomRecord) -> None:
        """Bring a session up to Redis (first use, or after the bus reconnected)."""
        session.adopt(record.ver, record.state, record.deal, record.final, force=True)
        if record.state.phase in (Phase.RACING, Phase.FINISHED):
            session.adopt_rows(await self.store.rows(session.code))
        watchers = session.watchers()
        if record.state.phase == Phase.RACING and watchers and rules.boards_shown(session.state):
            # the bus came back: boards moved meanwhile are read again, all of them
            session.boards.clear()
            await self.fill_boards(session)
            frame = session.boards_frame()
            for peer in watchers:
                peer.send(frame)
        if record.state.phase == Phase.FINISHED and not record.final:
            # the race ended but its results were never written (a crash): write them
            self.spawn(self.owner.finalize(session.code, record.state.race))

    async def fill_boards(self, session: RoomSession) -> None:
        """Every racer's board the session does not hold for its spectators
        (``room.watching``), from their logs (one round trip for all of them);
        nothing in a room that does not show boards."""
        if not rules.boards_shown(session.state):
            return
        missing = session.boards.missing(session.rows)
        if not missing:
            return
        if session.deal is None:
            record = await self.store.load_room(session.code)
            session.deal = record.deal if record else None
        deal = session.deal
        if deal is None:
            return
        for pid, actions in (await self.store.logs(session.code, missing)).items():
            # one log entry per action: its length is the board's action number
            session.boards.adopt(pid, len(actions), PlayerRace(replay(deal, actions)).view_json())

    async def resync(self) -> None:
        for session in list(self.sessions.values()):
            await self.store.serve_room(session.code)
            held = session.ver
            record = await self.store.load_room(session.code)
            if record is not None:
                if record.ver < held:  # Redis went back (restored): it is the truth
                    session.ver = record.ver
                await self.sync(session, record)

    async def drop_if_empty(self, session: RoomSession) -> None:
        """Forget a room no connection here needs any more."""
        if session.peers or self.sessions.get(session.code) is not session:
            return
        session.close()
        del self.sessions[session.code]
        metrics.set_rooms(len(self.sessions))
        if self.bus:
            await self.bus.unsubscribe(session.code)
        try:
            await self.store.serve_room(session.code, False)
        except self.storage_errors:
            pass  # the next beat of the room's other processes forgets us

    # ------------------------------------------------------------ changes

    async def mutate(
        self,
        code: str,
        change: RoomChange,
        *,
        new_race: bool = False,
        revoke: str | None = None,
        kicked: str | None = None,
    ) -> RoomState:
        """Apply a room rule and compare-and-set it in Redis, retrying on conflict.

        ``revoke``: a member whose seat the change removes (their tokens go
        with it, in the same script); ``kicked``: the host removed them."""
        record = await self._save(code, change, new_race=new_race, revoke=revoke, kicked=kicked)
        return record.state

    async def take_seat(
        self,
        code: str,
        change: RoomChange,
        member_id: str,
        token_hash: str,
        *,
        new_race: bool = False,
    ) -> RoomRecord:
        """``mutate`` for a change that seats ``member_id`` (``change`` adds it): its
        token (by hash) is kept and its connection here counted in the same save (no
        heartbeat can see the seat without its connection); the whole record saved."""
        return await self._save(
            code, change, new_race=new_race, token=(token_hash, member_id), present=member_id
        )

    async def _save(
        self,
        code: str,
        change: RoomChange,
        *,
        new_race: bool = False,
        revoke: str | None = None,
        kicked: str | None = None,
        token: tuple[str, str] | None = None,
        present: str | None = None,
    ) -> RoomRecord:
        """Apply ``change`` and save it (``RoomSave``), retrying on conflict; the record saved.

        Changes made in this process go one at a time, each from the state the
        process holds (the save checks it is current), so a crowd changing a
        room here never races itself; after a conflict, from Redis."""
        session = self.sessions.get(code)
        async with session.changing if session else contextlib.nullcontext():
            held = (
                RoomRecord(session.state, session.ver, session.deal, session.final)
                if session
                else None
            )

            async def attempt(n: int) -> RoomRecord | None:
                nonlocal held
                record, held = held, None  # the state held here serves the first try only
                if record is None:
                    await retry_pause(n, self.clock)
                    record = await self.load(code)
                result = change(record.state)
                state, deal = result if isinstance(result, tuple) else (result, None)
                if state is record.state:
                    return record
                racers = [m.id for m in rules.players(state)] if new_race else None
                ver = await self.store.save_room(
                    RoomSave(
                        record.ver,
                        state,
                        deal=str(deal) if deal else None,
                        new_race=racers,
                        revoke=revoke,
                        kicked=kicked,
                        token=token,
                        present=present,
                    )
                )
                if ver is None:
                    return None
                if session is not None:
                    session.adopt(ver, state, str(deal) if deal else None, kicked=kicked)
                due = departures.next_due(state)
                if due is not None and due != departures.next_due(record.state):
                    # a new timer (a time limit, a grace): any process's sweep runs
                    # it, should nobody be connected by then (room/presence.py)
                    await self.store.schedule(code, due, earlier=True)
                return RoomRecord(state, ver, str(deal) if deal else record.deal, record.final)

            saved = await compare_and_set(MUTATE_ATTEMPTS, attempt)
            if saved is not None:
                return saved
        raise ProtocolError(E.UNAVAILABLE, "the room is too busy; try again")

    async def set_connected(self, code: str, member_id: str, connected: bool) -> None:
        """Show a member as connected or gone (the presence heartbeat's verdict)."""
        if not connected:
            await self.owner.member_gone(code, member_id)
        else:
            await self.mutate(code, lambda s: rules.set_connected(s, member_id, connected))

    # ------------------------------------------------------------ events

    def on_event(self, code: str, payload: bytes) -> None:
        """A room event from the bus (other processes); our own were applied already."""
        if payload.startswith(self.store.origin + b" "):
            return
        session = self.sessions.get(code)
        if session is None:
            return
        _, event = unpack(payload)
        if isinstance(event, RowEvent):
            session.rows[event.row.id] = event.row
            session.mark_dirty()
            if event.board:
                session.board_moved(event.row.id, event.seq, bytes(event.board))
            if session.seat_peers(event.row.id):  # a second tab of theirs is here
                self.owner.seat_moved(session, event.row.id)
        elif isinstance(event, FinishedEvent):
            session.adopt(event.ver, event.state, None, bytes(event.final))
        elif isinstance(event, RoomEvent):
            session.adopt(event.ver, event.state, event.deal, kicked=event.kicked)
