"""The process's rooms: protocol messages in, Redis and room events out.

One ``Hub`` per server process. It keeps a local view of every room that
has a connection here (state, leaderboard rows, each local player's
board), applies room rules (``rooms``) and board actions (``race``),
persists through ``RedisStore`` (one Lua round trip per move) and learns
what other processes did from the room bus. Redis stays the authority:
a local board whose sequence number no longer matches Redis is reloaded.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

import msgspec
from canfield import DealCode
from canfield_protocol import (
    CLOSE_KICKED,
    VERSION,
    Ack,
    AddBot,
    BoardMsg,
    Countdown,
    Create,
    Finished,
    GiveUp,
    Hello,
    Hint,
    HintMsg,
    Join,
    Joined,
    Kick,
    Kicked,
    Leaderboard,
    Leave,
    Left,
    Member,
    MoveMsg,
    Ping,
    Pong,
    ProtocolError,
    Ready,
    Reconnect,
    Rematch,
    Resume,
    RoomMsg,
    RoomState,
    Row,
    SettingsMsg,
    Start,
    Started,
    Tap,
    Undo,
    Welcome,
    encode,
    error,
)
from canfield_protocol import ErrorCode as E
from redis.exceptions import RedisError

from canfield_server.ops import metrics
from canfield_server.ops.logs import event
from canfield_server.room import rules as R
from canfield_server.room.events import FinishedEvent, RoomEvent, RowEvent, unpack
from canfield_server.room.leaderboard import Pace, ranked
from canfield_server.room.race import PlayerRace, StoredRow
from canfield_server.solving.deal_pool import DealPool
from canfield_server.storage.store import RedisStore, RoomRecord
from canfield_server.transport.ratelimit import PerAddress

__all__ = ["Peer", "Hub", "now_ms"]

log = logging.getLogger(__name__)

#: joins naming a room that does not exist, per client address: a burst for
#: typos, then one every 5 s, so codes cannot be enumerated by guessing
ROOM_MISSES_BURST = 20
ROOM_MISSES_PER_S = 0.2

_row_encoder = msgspec.json.Encoder()


def now_ms() -> int:
    return int(time.time() * 1000)


class Peer(Protocol):
    """One client connection, as the hub sees it (the WebSocket layer implements it)."""

    room: str | None
    member_id: str | None
    role: str | None

    def send(self, text: str) -> None:
        """Queue one text frame; never blocks."""

    def close(self, code: int, reason: str) -> None:
        """Close after the queued frames."""


class _Slot:
    """A local player's board and the lock that serialises their actions here."""

    __slots__ = ("race", "lock")

    def __init__(self) -> None:
        self.race: PlayerRace | None = None
        self.lock = asyncio.Lock()


class LocalRoom:
    """What this process knows of one room."""

    def __init__(self, record: RoomRecord) -> None:
        self.code = record.state.room
        self.state = record.state
        self.ver = record.ver
        self.deal = record.deal
        self.final = record.final
        self.peers: set[Peer] = set()
        self.slots: dict[str, _Slot] = {}
        self.rows: dict[str, StoredRow] = {}
        self.last_flush = 0.0
        self.flush_handle: asyncio.TimerHandle | None = None
        #: loop time the pending flush is due (its lateness paces the next ones)
        self.flush_due = 0.0
        #: the rows the last leaderboard showed (an unchanged one is not sent again)
        self.shown: list[Row] | None = None
        self.timers: list[asyncio.TimerHandle] = []
        self.bot_names: set[str] = set()

    def slot(self, member_id: str) -> _Slot:
        slot = self.slots.get(member_id)
        if slot is None:
            slot = self.slots[member_id] = _Slot()
        return slot

    def cancel_timers(self) -> None:
        for handle in self.timers:
            handle.cancel()
        self.timers.clear()

    def broadcast(self, text: str) -> None:
        for peer in self.peers:
            peer.send(text)
        metrics.broadcast(len(self.peers))


class Hub:
    def __init__(
        self,
        store: RedisStore,
        *,
        countdown_s: float = 3.0,
        leaderboard_hz: float = 10.0,
        limits: R.Limits = R.DEFAULT_LIMITS,
        bot_url: str = "",
        max_rooms_per_ip: int = 0,
        pool: DealPool | None = None,
    ) -> None:
        self.store = store
        #: the solver's workers: winnable-only deals, par, hints (None: none of them)
        self.pool = pool
        #: rooms one client address may create per room lifetime (0: no limit)
        self.max_rooms_per_ip = max_rooms_per_ip
        self.room_misses = PerAddress(ROOM_MISSES_PER_S, ROOM_MISSES_BURST)
        self.countdown_s = countdown_s
        self.pace = Pace(1.0 / leaderboard_hz if leaderboard_hz > 0 else 0.0)
        self.limits = limits
        self.bot_url = bot_url
        self.rooms: dict[str, LocalRoom] = {}
        self.bus: Any = None  # set by attach_bus; None in single-process unit use
        self.tasks: set[asyncio.Task[Any]] = set()
        self.moves_applied = 0
        self._handlers: dict[type, Callable[[Peer, Any], Any]] = {
            Hello: self._hello,
            Ping: self._ping,
            Create: self._create,
            Join: self._join,
            Resume: self._resume,
            SettingsMsg: self._settings,
            Ready: self._ready,
            Start: self._start,
            Rematch: self._rematch,
            AddBot: self._add_bot,
            MoveMsg: self._action,
            Tap: self._action,
            Undo: self._action,
            GiveUp: self._action,
            Hint: self._hint,
            Leave: self._leave,
            Kick: self._kick,
        }

    # ------------------------------------------------------------ plumbing

    def attach_bus(self, bus: Any) -> None:
        self.bus = bus

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    async def handle(self, peer: Peer, msg: Any) -> None:
        """Answer one decoded client message; errors go back to this peer only."""
        seq = getattr(msg, "seq", None)
        started = time.perf_counter()
        accepted = False
        try:
            await self._handlers[type(msg)](peer, msg)
            accepted = True
        except ProtocolError as exc:
            ip = getattr(peer, "ip", None)
            if exc.code == E.UNKNOWN_ROOM and isinstance(msg, Join) and ip:
                self.room_misses.spend(ip)
            peer.send(_error(exc, seq))
        except (RedisError, OSError) as exc:
            metrics.redis_error(type(msg).__name__)
            event(
                log,
                "storage.unavailable",
                logging.WARNING,
                room=peer.room,
                player=peer.member_id,
                message=type(msg).__name__,
                error=str(exc),
            )
            unavailable = ProtocolError(E.UNAVAILABLE, "storage unavailable; nothing applied")
            peer.send(_error(unavailable, seq))
        if seq is not None:  # a board action: move, tap, undo, give up
            metrics.move_done(accepted, time.perf_counter() - started)

    async def detach(self, peer: Peer) -> None:
        """A connection ended: drop it locally, count it out of the room's presence."""
        local = self.rooms.get(peer.room) if peer.room else None
        if local is None:
            return
        local.peers.discard(peer)
        member_id = peer.member_id
        event(log, "member.left", room=local.code, player=member_id)
        await self._count_out(local, member_id)

    async def _count_out(self, local: LocalRoom, member_id: str | None) -> None:
        """One connection of a member is gone from this process: presence, then the room."""
        try:
            if member_id and await self.store.presence(local.code, member_id, -1) <= 0:
                await self._mutate(local.code, lambda s: R.set_connected(s, member_id, False))
        except (RedisError, OSError) as exc:
            log.warning("presence update lost: %s", exc)
        await self._drop_if_empty(local)

    async def _drop_if_empty(self, local: LocalRoom) -> None:
        """Forget a room no connection here needs any more."""
        if local.peers or self.rooms.get(local.code) is not local:
            return
        local.cancel_timers()
        if local.flush_handle:
            local.flush_handle.cancel()
        del self.rooms[local.code]
        metrics.set_rooms(len(self.rooms))
        if self.bus:
            await self.bus.unsubscribe(local.code)
        try:
            await self.store.serve_room(local.code, False)
        except (RedisError, OSError):
            pass  # the next beat of the room's other processes forgets us

    async def set_connected(self, code: str, member_id: str, connected: bool) -> None:
        """Show a member as connected or not (the presence heartbeat's verdict)."""
        await self._mutate(code, lambda s: R.set_connected(s, member_id, connected))

    async def shutdown(self, message: str = "server restarting") -> None:
        text = encode(Reconnect(message=message)).decode()
        for local in list(self.rooms.values()):
            for peer in list(local.peers):
                peer.send(text)
                peer.close(1012, message)
        for task in list(self.tasks):
            task.cancel()

    # ------------------------------------------------------------ simple messages

    async def _hello(self, peer: Peer, msg: Hello) -> None:
        if msg.v != VERSION:
            raise ProtocolError(
                E.UNSUPPORTED_VERSION, f"this server speaks protocol {VERSION}, not {msg.v}"
            )
        peer.send(encode(Welcome(v=VERSION, server_time=now_ms())).decode())

    async def _ping(self, peer: Peer, msg: Ping) -> None:
        peer.send(encode(Pong(t=msg.t, server_time=now_ms())).decode())

    # ------------------------------------------------------------ joining

    def _not_in_room(self, peer: Peer) -> None:
        if peer.room is not None:
            raise ProtocolError(E.ALREADY_IN_ROOM, f"this connection is in room {peer.room}")

    async def _create(self, peer: Peer, msg: Create) -> None:
        self._not_in_room(peer)
        ip = getattr(peer, "ip", None)  # in-process peers (tests, bots) may have none
        if self.max_rooms_per_ip and ip:
            if await self.store.count_room_created(ip) > self.max_rooms_per_ip:
                raise ProtocolError(
                    E.RATE_LIMITED,
                    f"this address created {self.max_rooms_per_ip} rooms lately; try again later",
                )
        for _ in range(8):
            code, member_id, token = R.new_room_code(), R.new_member_id(), R.new_token()
            state = R.create_room(code, member_id, msg.name, msg.settings)
            ver = await self.store.save_room(0, state, token=(R.token_hash(token), member_id))
            if ver is not None:
                break
        else:  # pragma: no cover - 8 collisions in a space of 887 million
            raise ProtocolError(E.UNAVAILABLE, "could not find a free room code")
        await self._enter(peer, RoomRecord(state, ver), member_id, token)

    async def _join(self, peer: Peer, msg: Join) -> None:
        self._not_in_room(peer)
        ip = getattr(peer, "ip", None)
        if ip and not self.room_misses.ready(ip):  # refused before looking: no hint either way
            raise ProtocolError(
                E.RATE_LIMITED, "too many unknown room codes from this address; wait a little"
            )
        code = R.normalize_room_code(msg.room)
        member_id, token = R.new_member_id(), R.new_token()
        local = self.rooms.get(code)
        bot = local is not None and msg.name.strip() in local.bot_names  # one we launched
        for _ in range(16):
            record = await self._load(code)
            state = R.add_member(record.state, member_id, msg.name, msg.role, self.limits, bot)
            ver = await self.store.save_room(
                record.ver, state, token=(R.token_hash(token), member_id)
            )
            if ver is not None:
                record = RoomRecord(state, ver, record.deal, record.final)
                break
        else:
            raise ProtocolError(E.UNAVAILABLE, "the room is too busy; try again")
        if bot and local is not None:
            local.bot_names.discard(msg.name.strip())
        await self._enter(peer, record, member_id, token)

    async def _resume(self, peer: Peer, msg: Resume) -> None:
        self._not_in_room(peer)
        code = R.normalize_room_code(msg.room)
        member_id = await self.store.member_for_token(code, R.token_hash(msg.token))
        record = await self._load(code) if member_id else None
        if member_id is None or record is None or R.member(record.state, member_id) is None:
            raise ProtocolError(E.BAD_TOKEN, "that token does not open a seat in this room")
        await self._enter(peer, record, member_id, msg.token)

    async def _load(self, code: str) -> RoomRecord:
        record = await self.store.load_room(code)
        if record is None:
            raise ProtocolError(E.UNKNOWN_ROOM, f"no room {code} (it may have expired)")
        return record

    async def _enter(self, peer: Peer, record: RoomRecord, member_id: str, token: str) -> None:
        """Seat a connection: local room, presence, ``joined`` and what it missed."""
        local = await self._local(record)
        local.peers.add(peer)  # at once: a leaving connection must not drop the room meanwhile
        try:
            await self._seat(peer, local, record, member_id, token)
        except BaseException:
            # nothing half-done: the connection is in no room, the room not kept for it
            local.peers.discard(peer)
            peer.room = peer.member_id = peer.role = None
            await self._drop_if_empty(local)
            raise

    async def _seat(
        self, peer: Peer, local: LocalRoom, record: RoomRecord, member_id: str, token: str
    ) -> None:
        code = local.code
        me = R.member(local.state, member_id) or R.member(record.state, member_id)
        assert me is not None
        count = await self.store.presence(code, member_id, +1)
        try:
            await self._seated(peer, local, me, count, token)
        except BaseException:
            try:
                await self.store.presence(code, member_id, -1)
            except (RedisError, OSError):
                pass  # Redis unreachable: this count may stay one too high
            raise

    async def _seated(
        self, peer: Peer, local: LocalRoom, me: Member, count: int, token: str
    ) -> None:
        code, member_id = local.code, me.id
        if count >= 1 and not me.connected:
            await self._mutate(code, lambda s: R.set_connected(s, member_id, True))
        if R.member(local.state, member_id) is None:
            # the seat was removed (leave, kick) while this connection was taking it
            raise ProtocolError(E.BAD_TOKEN, "that seat was removed from the room")
        peer.room, peer.member_id, peer.role = code, member_id, me.role
        event(log, "member.joined", room=code, player=member_id, role=me.role)
        last_seq = 0
        race = None
        state = local.state
        if state.phase == "racing" and me.role == "player":
            slot = local.slot(member_id)
            async with slot.lock:
                race = await self._load_race(local, member_id, slot)
            last_seq = race.seq
        joined = Joined(
            room=code,
            player_id=member_id,
            token=token,
            role=me.role,
            is_host=state.host_id == member_id,
            last_seq=last_seq,
            state=_public(state),
        )
        peer.send(encode(joined).decode())
        if state.phase == "racing":
            if state.starts_at and now_ms() < state.starts_at:
                peer.send(
                    encode(Countdown(starts_at=state.starts_at, server_time=now_ms())).decode()
                )
            else:
                if race is not None:
                    peer.send(encode(BoardMsg(board=race.board(), last_seq=race.seq)).decode())
                peer.send(self._leaderboard_text(local))
        elif state.phase == "finished" and local.final:
            peer.send(local.final.decode())

    async def _local(self, record: RoomRecord) -> LocalRoom:
        """This process's view of a room, subscribed to its events."""
        code = record.state.room
        local = self.rooms.get(code)
        if local is None:
            local = self.rooms[code] = LocalRoom(record)
            metrics.set_rooms(len(self.rooms))
            try:
                if self.bus:
                    await self.bus.subscribe(code)
                await self.store.serve_room(code)
                await self._sync(local, record)
            except BaseException:
                del self.rooms[code]
                if self.bus:
                    await self.bus.unsubscribe(code)
                raise
        else:
            self._apply_room(local, record.ver, record.state, record.deal, record.final)
        return local

    async def _sync(self, local: LocalRoom, record: RoomRecord) -> None:
        """Bring a local room up to Redis (first use, or after the bus reconnected)."""
        self._apply_room(local, record.ver, record.state, record.deal, record.final, force=True)
        if record.state.phase in ("racing", "finished"):
            local.rows.update(await self.store.rows(local.code))
            self._fill_rows(local)
            self._mark_dirty(local)
        if record.state.phase == "finished" and not record.final:
            # the race ended but its results were never written (a crash): write them
            self.spawn(self._finalize(local.code, record.state.race))

    async def resync(self) -> None:
        for local in list(self.rooms.values()):
            await self.store.serve_room(local.code)
            record = await self.store.load_room(local.code)
            if record is not None:
                await self._sync(local, record)

    # ------------------------------------------------------------ room changes

    def _room_of(self, peer: Peer) -> LocalRoom:
        local = self.rooms.get(peer.room) if peer.room else None
        if local is None:
            raise ProtocolError(E.NOT_IN_ROOM, "create or join a room first")
        return local

    async def _mutate(
        self,
        code: str,
        change: Callable[[RoomState], RoomState | tuple[RoomState, DealCode]],
        *,
        new_race: bool = False,
        revoke: str | None = None,
        kicked: str | None = None,
    ) -> RoomState:
        """Apply a room rule and compare-and-set it in Redis, retrying on conflict.

        ``revoke``: a member whose seat the change removes (their tokens go
        with it, in the same script); ``kicked``: the host removed them."""
        local = self.rooms.get(code)
        record = RoomRecord(local.state, local.ver, local.deal) if local else None
        for _ in range(16):
            if record is None:
                record = await self._load(code)
            result = change(record.state)
            state, deal = result if isinstance(result, tuple) else (result, None)
            if state is record.state:
                return state
            racers = [m.id for m in R.players(state)] if new_race else None
            ver = await self.store.save_room(
                record.ver,
                state,
                deal=str(deal) if deal else None,
                new_race=racers,
                revoke=revoke,
                kicked=kicked,
            )
            if ver is not None:
                if local is not None:
                    self._apply_room(local, ver, state, str(deal) if deal else None, kicked=kicked)
                return state
            record = None
        raise ProtocolError(E.UNAVAILABLE, "the room is too busy; try again")

    async def _settings(self, peer: Peer, msg: SettingsMsg) -> None:
        local = self._room_of(peer)
        await self._mutate(local.code, lambda s: R.update_settings(s, peer.member_id or "", msg))

    async def _ready(self, peer: Peer, msg: Ready) -> None:
        local = self._room_of(peer)
        await self._mutate(local.code, lambda s: R.set_ready(s, peer.member_id or "", msg.ready))

    async def _start(self, peer: Peer, msg: Start) -> None:
        local = self._room_of(peer)
        settings, proven = local.state.settings, None
        if (
            self.pool is not None
            and settings.winnable_only
            and settings.deal == "random"
            and local.state.host_id == peer.member_id
            and local.state.phase == "lobby"
        ):
            proven = await self.pool.take(settings.draw)
        code = proven.code if proven else None
        try:
            await self._mutate(
                local.code,
                lambda s: R.start_race(s, peer.member_id or "", now_ms(), self.countdown_s, code),
                new_race=True,
            )
        except ProtocolError:
            if proven is not None and self.pool is not None:
                await self.pool.put_back(settings.draw, proven)
            raise
        if self.pool is not None and proven is None and local.deal:
            self.pool.solve_par(local.deal)  # usually ready by the end of the race

    async def _rematch(self, peer: Peer, msg: Rematch) -> None:
        local = self._room_of(peer)
        await self._mutate(local.code, lambda s: R.rematch(s, peer.member_id or ""), new_race=True)

    async def _add_bot(self, peer: Peer, msg: AddBot) -> None:
        local = self._room_of(peer)
        if local.state.host_id != peer.member_id:
            raise ProtocolError(E.NOT_HOST, "only the host can add bots")
        if local.state.phase != "lobby":
            raise ProtocolError(E.WRONG_PHASE, "bots join in the lobby")
        try:
            from canfield_client.bot import run_bot
        except ImportError:
            raise ProtocolError(E.UNAVAILABLE, "bots are not installed on this server") from None
        taken = {m.name.casefold() for m in local.state.members} | {
            n.casefold() for n in local.bot_names
        }
        name = next(f"Bot {i}" for i in range(1, 1000) if f"bot {i}" not in taken)
        options = {"pace_s": msg.pace_s, "strength": msg.strength}
        try:
            coro = run_bot(
                self.bot_url,
                local.code,
                name,
                **{k: v for k, v in options.items() if v is not None},
            )
        except (TypeError, ValueError) as exc:
            raise ProtocolError(E.BAD_MESSAGE, f"add_bot: {exc}") from None
        local.bot_names.add(name)
        self.spawn(coro)

    # ------------------------------------------------------------ leaving for good

    async def _leave(self, peer: Peer, msg: Leave) -> None:
        """The member goes for good; their connections here get ``left`` (``_apply_room``)."""
        local = self._room_of(peer)
        member_id = peer.member_id or ""
        await self._remove(local, member_id, lambda s: R.remove_member(s, member_id))

    async def _kick(self, peer: Peer, msg: Kick) -> None:
        """The host removes another member; their connections get ``kicked``, then close."""
        local = self._room_of(peer)
        host_id = peer.member_id or ""
        target = R.check_kick(local.state, host_id, msg.player_id)  # refused before any change
        await self._remove(local, target.id, lambda s: R.kick(s, host_id, target.id), kicked=True)

    async def _remove(
        self,
        local: LocalRoom,
        member_id: str,
        change: Callable[[RoomState], RoomState],
        kicked: bool = False,
    ) -> None:
        """A racer first gives up (the race can end without them), then the seat and
        its tokens go in one compare-and-set; every process drops its connections."""
        me = R.member(local.state, member_id)
        if me is not None and me.role == "player" and local.state.phase == "racing":
            await self._give_up_for(local, member_id)
        event(log, "member.removed", room=local.code, player=member_id, kicked=kicked)
        await self._mutate(
            local.code, change, revoke=member_id, kicked=member_id if kicked else None
        )

    # ------------------------------------------------------------ board actions

    async def _action(self, peer: Peer, msg: MoveMsg | Tap | Undo | GiveUp) -> None:
        local = self._room_of(peer)
        member_id = peer.member_id or ""
        if peer.role != "player":
            raise ProtocolError(E.NOT_PLAYER, "spectators watch; only players move")
        state = local.state
        now = now_ms()
        if state.phase != "racing":
            raise ProtocolError(E.WRONG_PHASE, f"no race is on (the room is in {state.phase})")
        if state.starts_at and now < state.starts_at:
            raise ProtocolError(E.WRONG_PHASE, "the race has not started yet")
        if state.ends_at and now >= state.ends_at:
            raise ProtocolError(E.WRONG_PHASE, "time is up")
        slot = local.slot(member_id)
        async with slot.lock:
            for _ in range(4):
                race = slot.race or await self._load_race(local, member_id, slot)
                if msg.seq <= race.seq:
                    entry = await self.store.log_entry(local.code, member_id, msg.seq)
                    ack = Ack(seq=msg.seq, move=entry, board=race.board(), duplicate=True)
                    peer.send(encode(ack).decode())
                    return
                if msg.seq > race.seq + 1:
                    raise ProtocolError(
                        E.SEQ_GAP,
                        f"expected seq {race.seq + 1}, got {msg.seq}",
                        last_seq=race.seq,
                    )
                entry = await self._commit(local, member_id, slot, race, msg, now)
                if entry is not None:
                    peer.send(encode(Ack(seq=msg.seq, move=entry, board=race.board())).decode())
                    return
                # another connection of this player moved first: reload and look again
            raise ProtocolError(E.UNAVAILABLE, "your board is busy; try again")

    async def _commit(
        self,
        local: LocalRoom,
        member_id: str,
        slot: _Slot,
        race: PlayerRace,
        msg: MoveMsg | Tap | Undo | GiveUp,
        now: int,
    ) -> str | None:
        """Apply one action to ``race`` and store it (the MOVE script, under the slot's
        lock): its log entry, or None when Redis holds a newer board (reload, retry)."""
        state = local.state
        base = race.seq
        entry = race.apply(msg, now - (state.starts_at or now))
        me = R.member(state, member_id)
        row = race.row(member_id, me.name if me else "?")
        row_json = _row_encoder.encode(row)
        event = self.store.origin + b' {"k":"row","row":' + row_json + b"}"
        slot.race = None  # until Redis confirms, the local board is not trusted
        status, value = await self.store.apply(
            local.code,
            member_id,
            state.race,
            base,
            entry,
            race.snapshot(),
            row_json,
            race.done,
            event,
        )
        if status == 1:
            slot.race = race
            self.moves_applied += 1
            local.rows[member_id] = row
            self._mark_dirty(local)
            if value == 1:
                self.spawn(self._finalize(local.code, state.race))
            return entry
        if status == -1:
            raise ProtocolError(E.WRONG_PHASE, "this race is over")
        return None

    async def _give_up_for(self, local: LocalRoom, member_id: str) -> None:
        """Lock a racer's result as given up (they leave, or the host removes them):
        ``give_up`` at their next seq, counted done like any give up. Nothing to do
        when no race is on or their race is over already."""
        slot = local.slot(member_id)
        async with slot.lock:
            for _ in range(4):
                if local.state.phase != "racing":
                    return
                race = slot.race or await self._load_race(local, member_id, slot)
                if race.done:
                    return
                try:
                    give_up = GiveUp(seq=race.seq + 1)
                    if await self._commit(local, member_id, slot, race, give_up, now_ms()):
                        return
                except ProtocolError as exc:
                    if exc.code == E.WRONG_PHASE:
                        return  # the race ended meanwhile: nothing left to lock
                    raise
            raise ProtocolError(E.UNAVAILABLE, "that board is busy; try again")

    async def _hint(self, peer: Peer, msg: Hint) -> None:
        """The solver's next move for this player's board: practice rooms only."""
        local = self._room_of(peer)
        state = local.state
        if not state.settings.practice:
            raise ProtocolError(E.NOT_ALLOWED, "hints are for practice rooms, not races")
        if peer.role != "player":
            raise ProtocolError(E.NOT_PLAYER, "spectators have no board to hint")
        if state.phase != "racing" or (state.starts_at and now_ms() < state.starts_at):
            raise ProtocolError(E.WRONG_PHASE, "hints come once the deal is out")
        if self.pool is None:
            raise ProtocolError(E.UNAVAILABLE, "this server has no solver workers")
        member_id = peer.member_id or ""
        slot = local.slot(member_id)
        async with slot.lock:
            race = slot.race or await self._load_race(local, member_id, slot)
            position = race.game.to_dict()
        move = await self.pool.hint(f"{local.code}:{member_id}", position)
        peer.send(encode(HintMsg(move=move)).decode())

    async def _load_race(self, local: LocalRoom, member_id: str, slot: _Slot) -> PlayerRace:
        snap, log = await self.store.load_player(local.code, member_id)
        if local.deal is None:
            record = await self._load(local.code)
            local.deal = record.deal
        if snap is not None:
            race = PlayerRace.from_snapshot(snap, local.deal or "", log)
        else:
            race = PlayerRace.fresh(local.deal or "")
        slot.race = race
        return race

    # ------------------------------------------------------------ end of a race

    async def _time_up(self, code: str, race_no: int) -> None:
        try:
            if await self.store.finish(code, race_no):
                await self._finalize(code, race_no)
        except (RedisError, OSError) as exc:
            log.warning("time limit of %s not applied: %s", code, exc)

    async def _finalize(self, code: str, race_no: int) -> None:
        """Write and announce the results of a finished race, once; retried while
        Redis is unreachable (the race is over in Redis already, the results must follow)."""
        for attempt in range(8):
            try:
                await self._write_results(code, race_no)
                return
            except (RedisError, OSError) as exc:
                log.warning("results of %s not written yet: %s", code, exc)
                await asyncio.sleep(min(0.2 * 2**attempt, 5.0))  # back off: Redis is down

    async def _write_results(self, code: str, race_no: int) -> None:
        for _ in range(16):
            record = await self.store.load_room(code)
            if record is None or record.state.race != race_no or record.final:
                return
            rows = await self.store.rows(code)
            # a racer who left mid-race has a row (their give up) but no seat
            racers = list(dict.fromkeys([*rows, *(m.id for m in R.players(record.state))]))
            deal = record.deal or ""
            for m in R.players(record.state):
                if m.id not in rows:
                    rows[m.id] = PlayerRace.fresh(deal).row(m.id, m.name)
            finished = Finished(
                standings=ranked(rows.values()),
                deal=deal,
                replays=await self.store.logs(code, racers),
                par=await self.pool.par(deal) if self.pool and deal else None,
                server_time=now_ms(),
            )
            final = encode(finished)
            state = R.finish_race(record.state)
            ver = await self.store.save_room(record.ver, state, final=final)
            if ver is not None:
                local = self.rooms.get(code)
                if local is not None:
                    self._apply_room(local, ver, state, None, final)
                return

    # ------------------------------------------------------------ events

    def on_event(self, code: str, payload: bytes) -> None:
        """A room event from the bus (other processes); our own were applied already."""
        if payload.startswith(self.store.origin + b" "):
            return
        local = self.rooms.get(code)
        if local is None:
            return
        _, event = unpack(payload)
        if isinstance(event, RowEvent):
            local.rows[event.row.id] = event.row
            self._mark_dirty(local)
        elif isinstance(event, FinishedEvent):
            self._apply_room(local, event.ver, event.state, None, bytes(event.final))
        elif isinstance(event, RoomEvent):
            self._apply_room(local, event.ver, event.state, event.deal, kicked=event.kicked)

    def _apply_room(
        self,
        local: LocalRoom,
        ver: int,
        state: RoomState,
        deal: str | None,
        final: bytes | None = None,
        *,
        force: bool = False,
        kicked: str | None = None,
    ) -> None:
        """Adopt a newer room state and tell every local connection what changed.

        ``kicked``: the member the host removed by this change."""
        if ver <= local.ver and not force:
            return
        old = local.state
        local.state, local.ver = state, max(ver, local.ver)
        if deal:
            local.deal = deal
        self._unseat_removed(local, kicked)
        local.broadcast(encode(_room_msg(state)).decode())
        new_race = state.race != old.race or (force and state.phase == "racing")
        if state.phase == "racing" and new_race:
            self._begin(local, fresh=state.race != old.race)
        elif state.phase == "lobby" and old.phase != "lobby":
            local.cancel_timers()
            local.slots.clear()
            local.rows.clear()
            local.final = None
        if state.phase == "finished":
            local.cancel_timers()
            if final and final != local.final:
                local.final = final
                self._flush(local)
                local.broadcast(final.decode())
        elif state.phase == "racing" and _presence(old) != _presence(state):
            self._mark_dirty(local)

    def _unseat_removed(self, local: LocalRoom, kicked: str | None) -> None:
        """Connections whose seat is gone leave the room: ``left``, or ``kicked`` and
        closed. Synchronous, so the socket's own detach finds no room to count out."""
        seated = {m.id for m in local.state.members}
        gone = [p for p in local.peers if p.member_id and p.member_id not in seated]
        for peer in gone:
            member_id = peer.member_id
            local.peers.discard(peer)
            peer.room = peer.member_id = peer.role = None
            event(log, "member.unseated", room=local.code, player=member_id)
            if member_id == kicked:
                text = "the host removed you from the room"
                peer.send(encode(Kicked(room=local.code, message=text)).decode())
                peer.close(CLOSE_KICKED, "removed by the host")
            else:
                peer.send(encode(Left(room=local.code)).decode())
            self.spawn(self._count_out(local, member_id))

    def _begin(self, local: LocalRoom, fresh: bool) -> None:
        """A race was started: countdown now, the deal at ``starts_at``, the end timer."""
        state = local.state
        local.cancel_timers()
        if fresh:
            local.slots.clear()
            local.rows.clear()
            local.final = None
        self._fill_rows(local)
        loop = asyncio.get_running_loop()
        now = now_ms()
        starts_at = state.starts_at or now
        if now < starts_at:
            local.broadcast(encode(Countdown(starts_at=starts_at, server_time=now)).decode())
            local.timers.append(loop.call_later((starts_at - now) / 1000, self._deal, local))
        if state.ends_at:
            delay = max(0.0, (state.ends_at - now) / 1000)
            local.timers.append(
                loop.call_later(delay, lambda: self.spawn(self._time_up(local.code, state.race)))
            )

    def _deal(self, local: LocalRoom) -> None:
        """The start: every player here gets the same deal, spectators the clock."""
        state = local.state
        if state.phase != "racing" or local.deal is None:
            return
        now = now_ms()
        first = PlayerRace.fresh(local.deal)
        board = first.board()
        # boards start fresh (the start cleared Redis), so skip loading them; if
        # another process's connection moves first, the seq check reloads
        for peer in local.peers:
            if peer.role == "player" and peer.member_id:
                slot = local.slot(peer.member_id)
                if slot.race is None and not slot.lock.locked():
                    slot.race = PlayerRace(first.game.copy())
        started_at = state.starts_at or now
        for_players = encode(
            Started(started_at=started_at, ends_at=state.ends_at, board=board, server_time=now)
        ).decode()
        for_others = encode(
            Started(started_at=started_at, ends_at=state.ends_at, board=None, server_time=now)
        ).decode()
        for peer in local.peers:
            peer.send(for_players if peer.role == "player" else for_others)
        metrics.broadcast(len(local.peers))
        self._flush(local)

    def _fill_rows(self, local: LocalRoom) -> None:
        """Every racer has a row from the start, even before their first move."""
        if local.deal is None:
            return
        base: PlayerRace | None = None
        for m in R.players(local.state):
            if m.id not in local.rows:
                base = base or PlayerRace.fresh(local.deal)
                local.rows[m.id] = base.row(m.id, m.name)

    # ------------------------------------------------------------ leaderboard

    def _mark_dirty(self, local: LocalRoom) -> None:
        """Coalesce: at most ``leaderboard_hz`` broadcasts a second per room (fewer
        while the event loop runs late, see ``Pace``)."""
        if local.flush_handle is not None:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        delay = max(0.0, local.last_flush + self.pace.interval - now)
        local.flush_due = now + delay
        local.flush_handle = loop.call_later(delay, self._flush, local, True)

    def _flush(self, local: LocalRoom, timed: bool = False) -> None:
        """Broadcast the leaderboard now; ``timed`` (the coalescing timer) skips one
        whose rows are those shown last."""
        now = asyncio.get_running_loop().time()
        if local.flush_handle is not None:
            if timed:
                self.pace.late(now - local.flush_due)
            local.flush_handle.cancel()
            local.flush_handle = None
        local.last_flush = now
        if local.rows and local.peers:
            rows = self._ranked(local)
            if timed and rows == local.shown:
                return
            local.shown = rows
            local.broadcast(encode(Leaderboard(rows=rows, server_time=now_ms())).decode())

    def _ranked(self, local: LocalRoom) -> list[Row]:
        connected = {m.id for m in local.state.members if m.connected}
        return ranked(local.rows.values(), connected)

    def _leaderboard_text(self, local: LocalRoom) -> str:
        """Ranked rows, encoded once for every connection of the room."""
        return encode(Leaderboard(rows=self._ranked(local), server_time=now_ms())).decode()


def _presence(state: RoomState) -> tuple[bool, ...]:
    return tuple(m.connected for m in state.members)


def _public(state: RoomState) -> RoomState:
    """A room as clients see it: the server clock, a typed-in deal hidden, the countdown."""
    now = now_ms()
    phase = state.phase
    if phase == "racing" and state.starts_at and now < state.starts_at:
        phase = "countdown"
    return msgspec.structs.replace(
        state, phase=phase, settings=R.public_settings(state.settings), server_time=now
    )


def _room_msg(state: RoomState) -> RoomMsg:
    public = _public(state)
    return RoomMsg(**{f: getattr(public, f) for f in public.__struct_fields__})


def _error(exc: ProtocolError, seq: int | None) -> str:
    return encode(error(exc, seq)).decode()
