"""An asyncio client for the race server, on the ``websockets`` library.

Messages are the server's own types (``canfield_protocol``), so the
shape of the wire is written once. What the messages say is folded into a
``RaceView`` (``race_view.py``, sans I/O); this module is the connection
and its requests. One reader task decodes every frame, hands it to the
view, and routes it: ``ack``/``error`` with a ``seq`` to the board action
that sent it, other replies to the one request waiting, and room, start,
leaderboard and finish news to whoever waits for them.

Board actions carry sequence numbers the client numbers itself. When the
socket drops (or the server says ``reconnect`` and goes away), the client
reconnects with backoff and resumes with its token; an action that was in
flight then learns from the ``last_seq`` in ``joined`` whether the server
applied it, and is sent again only if not. So an action is applied
exactly once either way. ``closed`` is set only when resuming fails.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any, Generic, TypeVar, overload

import msgspec
import websockets
from canfield_protocol import (
    Ack,
    AddBot,
    ArenaBerserk,
    ArenaBerserkOn,
    ArenaCreate,
    ArenaEnd,
    ArenaHistory,
    ArenaHistoryQuery,
    ArenaJoin,
    ArenaLeave,
    ArenaLeft,
    ArenaMsg,
    ArenaRemove,
    ArenaSettingsMsg,
    ArenaWatch,
    Board,
    BoardMsg,
    Countdown,
    Create,
    Daily,
    DailyFinished,
    DailyStanding,
    DailyStandingQuery,
    DailyStarted,
    DeleteHistory,
    Error,
    ErrorCode,
    Finished,
    GhostRace,
    GiveUp,
    Hello,
    Hint,
    HintMsg,
    HistoryDeleted,
    HistoryMsg,
    HistoryQuery,
    Identify,
    IdentityMsg,
    Join,
    Joined,
    Kick,
    Kicked,
    Leaderboard,
    Leave,
    Left,
    MoveMsg,
    NewRoomSettings,
    Phase,
    Ping,
    Pong,
    Quick,
    Ready,
    Resume,
    Role,
    RoomMsg,
    RoomSettings,
    RoomState,
    RttPing,
    RttPong,
    SettingsMsg,
    Start,
    Started,
    Tap,
    Undo,
    Welcome,
    decode_server,
    encode,
)
from websockets.asyncio.client import ClientConnection, connect

from .race_view import RaceView

__all__ = ["RaceClient", "ServerError", "ConnectionLost", "room_from_link", "ws_url_from_link"]


class ServerError(Exception):
    """The server refused a request; ``code`` is its error code (docs/protocol.md)."""

    def __init__(self, err: Error) -> None:
        super().__init__(f"{err.code}: {err.message}")
        self.code = err.code
        self.message = err.message
        self.rule = err.rule
        self.seq = err.seq
        self.last_seq = err.last_seq


class ConnectionLost(Exception):
    """The socket closed and could not be resumed."""


def room_from_link(text: str) -> str:
    """A room code from a code or a share link such as ``http://host/r/ABC234``."""
    text = text.strip()
    if "/r/" in text:
        text = text.rsplit("/r/", 1)[1]
    return text.strip("/").split("?")[0].split("#")[0].upper()


def ws_url_from_link(text: str) -> str | None:
    """The server's WebSocket URL from a share link, or None for a bare code."""
    text = text.strip()
    if "/r/" not in text or "://" not in text:
        return None
    base = text.split("/r/", 1)[0]
    scheme, rest = base.split("://", 1)
    return ("wss" if scheme == "https" else "ws") + "://" + rest + "/ws"


#: what a pending non-board request accepts as its answer
_Reply = type | tuple[type, ...]


def _collect(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()


T = TypeVar("T")

#: pauses before a request refused for the message rate goes again (it changed nothing)
RATE_PAUSES_S = (0.25, 0.5, 1.0, 2.0)


class _Viewed(Generic[T]):
    """A client attribute that is its ``RaceView``'s (``client.board`` is
    ``client.view.board``)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, client: None, owner: type) -> _Viewed[T]: ...

    @overload
    def __get__(self, client: RaceClient, owner: type) -> T: ...

    def __get__(self, client: RaceClient | None, owner: type) -> T | _Viewed[T]:
        if client is None:
            return self
        value: T = getattr(client.view, self.name)
        return value

    def __set__(self, client: RaceClient, value: T) -> None:
        setattr(client.view, self.name, value)


class RaceClient:
    """One connection (one player or spectator). Use ``async with``."""

    room = _Viewed[str | None]()
    player_id = _Viewed[str | None]()
    token = _Viewed[str | None]()
    is_host = _Viewed[bool]()
    state = _Viewed[RoomState | RoomMsg | None]()
    board = _Viewed[Board | None]()
    seq = _Viewed[int]()
    started = _Viewed[Started | None]()
    finished = _Viewed[Finished | None]()
    leaderboard = _Viewed[Leaderboard | None]()
    kicked = _Viewed[Kicked | None]()
    daily_finished = _Viewed[DailyFinished | None]()

    def __init__(
        self,
        url: str,
        *,
        open_timeout: float = 10.0,
        reply_timeout: float = 10.0,
        resume_attempts: int = 8,
        keepalive_s: float = 30.0,
        local_addr: tuple[str, int] | None = None,
        answer_rtt: bool = True,
    ) -> None:
        self.url = url
        #: ask the server for ``rtt_ping`` at each connect, and answer them
        self.answer_rtt = answer_rtt
        #: the local address to connect from (another loopback address is another
        #: client to the server's per-address limits; load tools use it)
        self.local_addr = local_addr
        #: a ``ping`` this often, so the server never takes a quiet client
        #: (a watcher, a bot in a lobby) for an idle one
        self.keepalive_s = keepalive_s
        self._keepalive: asyncio.Task[None] | None = None
        self.open_timeout = open_timeout
        self.reply_timeout = reply_timeout
        #: reconnect-and-resume tries after a lost connection (0: never)
        self.resume_attempts = resume_attempts
        self.ws: ClientConnection | None = None
        #: what the server's messages said so far (the attributes above read it)
        self.view = RaceView()
        self.on_leaderboard: list[Callable[[Leaderboard], Any]] = []
        self.on_message: list[Callable[[Any], Any]] = []
        self._subscribers: list[asyncio.Queue[Leaderboard | None]] = []
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._waiter: tuple[_Reply, asyncio.Future[Any]] | None = None
        self._request_lock = asyncio.Lock()
        self._action_lock = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None
        self._started_event = asyncio.Event()
        self._finished_event = asyncio.Event()
        self._room_changed = asyncio.Condition()
        self.closed = asyncio.Event()
        self._closing = False
        #: connections made so far; the revival below serves one lost connection
        self._generation = 0
        self._revival: asyncio.Task[Joined] | None = None
        self._revival_of = 0
        self._last_seq_sent: int | None = None
        #: this player's identity (``identify``): its public id and secret token
        self.identity_id: str | None = None
        self.identity_token: str | None = None
        #: the daily race this connection plays (``daily``); its end is in the view
        self.daily_started: DailyStarted | None = None
        self._daily_done = asyncio.Event()
        #: the last ``arena`` message of the arena this connection follows
        self.arena: ArenaMsg | None = None

    # ------------------------------------------------------------ connection

    async def connect(self) -> RaceClient:
        local: dict[str, Any] = {"local_addr": self.local_addr} if self.local_addr else {}
        self.ws = await connect(
            self.url, open_timeout=self.open_timeout, max_size=2**20, compression=None, **local
        )
        self._generation += 1
        self.closed.clear()
        self._reader = asyncio.create_task(self._read(self.ws))
        if self._keepalive is None or self._keepalive.done():
            self._keepalive = asyncio.create_task(self._keep_alive())
        if self.answer_rtt:
            await self._ask_for_probes()
        return self

    async def _ask_for_probes(self) -> None:
        """Say that this client answers ``rtt_ping``, so the server measures its
        round trip (a lane with no figure looks lost). Awaited: a server older
        than the field refuses the hello, and that refusal must not be taken for
        the answer to the next request."""
        try:
            await self._request(Hello(rtt_ping=True), Welcome)
        except ServerError as exc:
            if exc.code != ErrorCode.BAD_MESSAGE:
                raise

    async def _keep_alive(self) -> None:
        while not self._closing:
            await asyncio.sleep(self.keepalive_s)  # a clock, not an event
            ws = self.ws
            if ws is not None and not self._closing:
                with contextlib.suppress(websockets.ConnectionClosed):
                    await ws.send(encode(Ping(t=0)).decode())

    async def close(self) -> None:
        self._closing = True
        if self._revival is not None:
            self._revival.cancel()
        if self._keepalive is not None:
            self._keepalive.cancel()
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await asyncio.wait({self._reader})  # its end, not its error: it is closed
            if not self._reader.cancelled():
                self._reader.exception()  # taken, so never reported as unretrieved
        self._end_subscriptions()

    async def __aenter__(self) -> RaceClient:
        return await self.connect()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def drop(self) -> None:
        """Cut the socket without a closing handshake (as a network fault would)."""
        if self.ws is not None:
            self.ws.transport.abort()

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for frame in ws:
                await self._receive(ws, frame)
        except websockets.ConnectionClosed:
            pass
        finally:
            if ws is self.ws:
                lost = ConnectionLost("connection closed")
                for future in self._pending.values():
                    if not future.done():
                        future.set_exception(lost)
                if self._waiter and not self._waiter[1].done():
                    self._waiter[1].set_exception(lost)
                reviving = self._revival is not None and not self._revival.done()
                if self.token and not self._closing and self.resume_attempts > 0:
                    if not reviving:
                        self._revival_of = self._generation
                        self._revival = asyncio.create_task(self._revive())
                        # nobody may wait for it (an idle client): still collect its end
                        self._revival.add_done_callback(_collect)
                elif not reviving:
                    self._give_up()

    async def _receive(self, ws: ClientConnection, frame: str | bytes) -> None:
        """One frame from the server, decoded and dispatched (a load generator may
        read the frames it times more cheaply)."""
        msg = decode_server(frame)
        if isinstance(msg, RttPing):  # answered at once: the server times it
            await ws.send(encode(RttPong(n=msg.n)).decode())
            return
        self._dispatch(msg)

    def _give_up(self) -> None:
        self.closed.set()
        self._end_subscriptions()

    async def _revive(self) -> Joined:
        """Reconnect with backoff and resume the seat; the ``joined`` reply."""
        delay = self.view.retry_s
        for _ in range(self.resume_attempts):
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)
            board_seen = asyncio.Event()

            def on_board(msg: Any, seen: asyncio.Event = board_seen) -> None:
                if isinstance(msg, BoardMsg):
                    seen.set()

            self.on_message.append(on_board)
            try:
                await self.connect()
                joined = await self.resume()
                if joined.state.phase == Phase.RACING:
                    async with asyncio.timeout(self.reply_timeout):
                        await board_seen.wait()
                return joined
            except ServerError:
                self._give_up()  # the seat is gone (room expired, token refused)
                raise
            except (OSError, ConnectionLost, TimeoutError, websockets.WebSocketException):
                continue
            finally:
                self.on_message.remove(on_board)
        self._give_up()
        raise ConnectionLost(f"could not resume after {self.resume_attempts} attempts")

    async def _revived(self, generation: int) -> Joined:
        """The resume that follows the loss of connection ``generation``."""
        revival = self._revival
        if revival is None or self._revival_of < generation:
            # the socket still looks open (a reply timed out): cut it, so the
            # reader starts the revival
            if self.ws is not None:
                self.ws.transport.abort()
            if self._reader is not None:
                with contextlib.suppress(Exception):
                    await self._reader
            revival = self._revival
            if revival is None:
                raise ConnectionLost("connection closed")
        return await asyncio.shield(revival)

    def _dispatch(self, msg: Any) -> None:
        self.view.apply(msg)
        for callback in self.on_message:
            callback(msg)
        seq = msg.seq if isinstance(msg, Ack | Error) else None
        if isinstance(msg, Error) and seq is None and self._last_seq_sent in self._pending:
            seq = self._last_seq_sent
        if seq is not None and seq in self._pending:
            future = self._pending.pop(seq)
            if not future.done():
                future.set_result(msg)
            return
        if isinstance(msg, Leaderboard):
            for callback in self.on_leaderboard:
                callback(msg)
            for queue in self._subscribers:
                queue.put_nowait(msg)
            return
        if isinstance(msg, RoomMsg):
            self._notify_room()
        elif isinstance(msg, Started):
            self._finished_event.clear()
            self._started_event.set()
        elif isinstance(msg, DailyFinished):
            self._daily_done.set()
        elif isinstance(msg, ArenaMsg):
            self.arena = msg
        elif isinstance(msg, Finished):
            self._finished_event.set()
            self._started_event.clear()
        if self._waiter is not None:
            kinds, future = self._waiter
            if isinstance(msg, kinds) and not future.done():
                future.set_result(msg)

    def _notify_room(self) -> None:
        async def notify() -> None:
            async with self._room_changed:
                self._room_changed.notify_all()

        asyncio.get_running_loop().create_task(notify())

    def _end_subscriptions(self) -> None:
        for queue in self._subscribers:
            queue.put_nowait(None)

    async def _send(self, message: msgspec.Struct) -> None:
        if self.ws is None:
            raise ConnectionLost("not connected")
        # a refusal without seq (rate-limited) answers the frame sent last
        self._last_seq_sent = getattr(message, "seq", None)
        try:
            await self.ws.send(encode(message).decode())
        except websockets.ConnectionClosed as exc:
            raise ConnectionLost(str(exc)) from exc

    async def _request(self, message: msgspec.Struct, reply: _Reply) -> Any:
        """Send a request and wait for its answer (``reply`` or an error). A request
        refused for the connection's message rate changed nothing: it goes again
        after a pause (``RATE_PAUSES_S``), as a person would try again."""
        for pause in RATE_PAUSES_S:
            answer = await self._ask(message, reply)
            if not isinstance(answer, Error) or answer.code != ErrorCode.RATE_LIMITED:
                break
            await asyncio.sleep(pause)
        else:
            answer = await self._ask(message, reply)  # the last try: its answer stands
        if isinstance(answer, Error):
            raise ServerError(answer)
        return answer

    async def _ask(self, message: msgspec.Struct, reply: _Reply) -> Any:
        async with self._request_lock:
            future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._waiter = ((reply, Error) if isinstance(reply, type) else (*reply, Error), future)
            try:
                await self._send(message)
                async with asyncio.timeout(self.reply_timeout):
                    return await future
            finally:
                self._waiter = None

    # ------------------------------------------------------------ lobby

    async def hello(self) -> Welcome:
        return await self._request(Hello(), Welcome)

    async def create(self, name: str, settings: RoomSettings | None = None) -> Joined:
        strict = NewRoomSettings(**msgspec.structs.asdict(settings)) if settings else None
        return await self._request(Create(name=name, settings=strict), Joined)

    async def join(
        self, room: str, name: str, role: Role = Role.PLAYER, bot: bool = False
    ) -> Joined:
        """Take a seat; ``bot``: this client is a program (always ready, never host)."""
        join = Join(room=room_from_link(room), name=name, role=role, bot=bot)
        return await self._request(join, Joined)

    async def quick(self, name: str, draw: int = 3) -> Joined:
        """A seat in the next public race of a draw mode (after ``identify``)."""
        return await self._request(Quick(name=name, draw=draw), Joined)  # type: ignore[arg-type]

    async def ghost_race(self, name: str, replay: str, racers: list[str] | None = None) -> Joined:
        """Race a finished race's racers (``replay``'s ids; none: its first) as
        ghosts, in a room of one's own that counts down at once."""
        msg = GhostRace(name=name, replay=replay, racers=racers or [])
        return await self._request(msg, Joined)

    async def resume(self, room: str | None = None, token: str | None = None) -> Joined:
        """Rejoin with the secret token; afterwards ``seq`` continues from ``last_seq``."""
        joined: Joined = await self._request(
            Resume(room=room or self.room or "", token=token or self.token or ""), Joined
        )
        self.seq = joined.last_seq
        if joined.state.phase == Phase.RACING:
            self._started_event.set()
        return joined

    async def settings(self, **changes: Any) -> RoomMsg:
        return await self._request(SettingsMsg(**changes), RoomMsg)

    async def ready(self, ready: bool = True) -> RoomMsg:
        return await self._request(Ready(ready=ready), RoomMsg)

    async def add_bot(self, strength: str | None = None, pace_s: float | None = None) -> RoomMsg:
        """Host, in the lobby: the server starts a bot that joins the room."""
        return await self._request(AddBot(strength=strength, pace_s=pace_s), RoomMsg)

    async def leave(self) -> Left:
        """Leave the room for good (mid-race, the player gives up first)."""
        return await self._request(Leave(), Left)

    async def kick(self, player_id: str) -> RoomMsg:
        """Host: remove a member; the answer is the room without them."""
        return await self._request(Kick(player_id=player_id), RoomMsg)

    async def start(self, force: bool = False) -> Countdown | Started:
        """Host: start the race; ``force``: without waiting for players not ready."""
        return await self._request(Start(force=force), (Countdown, Started))

    async def ping(self, t: float = 0) -> Pong:
        return await self._request(Ping(t=t), Pong)

    async def wait_started(self, timeout: float | None = None) -> Started:
        async with asyncio.timeout(timeout):
            await self._started_event.wait()
        assert self.started is not None or self.board is not None
        return self.started  # type: ignore[return-value]

    async def wait_finished(self, timeout: float | None = None) -> Finished:
        async with asyncio.timeout(timeout):
            await self._finished_event.wait()
        assert self.finished is not None
        return self.finished

    async def wait_room(self, predicate: Callable[[Any], bool], timeout: float = 10.0) -> Any:
        """Wait until the room state satisfies ``predicate``."""

        async def until() -> Any:
            async with self._room_changed:
                await self._room_changed.wait_for(lambda: self.state and predicate(self.state))
            return self.state

        async with asyncio.timeout(timeout):
            return await until()

    # ------------------------------------------------------------ identity, history, daily

    async def identify(self, token: str | None = None) -> IdentityMsg:
        """Say who this player is (``token``), or get a new identity (no token):
        the reply carries the new token once; keep it (``identity_token``)."""
        reply: IdentityMsg = await self._request(Identify(token=token), IdentityMsg)
        self.identity_id = reply.id
        self.identity_token = reply.token or token
        return reply

    async def history(self, limit: int = 20) -> HistoryMsg:
        """This identity's last ``limit`` races (newest first) and its stats."""
        return await self._request(HistoryQuery(limit=limit), HistoryMsg)

    async def delete_history(self) -> HistoryDeleted:
        return await self._request(DeleteHistory(), HistoryDeleted)

    async def daily(self, name: str, draw: int = 3) -> DailyStarted:
        """Start (or resume) today's daily race; then ``move``/``tap``/... as in a room."""
        started: DailyStarted = await self._request(Daily(name=name, draw=draw), DailyStarted)  # type: ignore[arg-type]
        self.daily_started, self.daily_finished = started, None
        self._daily_done.clear()
        self.board, self.seq = started.board, started.last_seq
        return started

    async def daily_standing(
        self, draw: int = 3, date: str | None = None, limit: int = 10
    ) -> DailyStanding:
        """A day's daily standing (default today); a past day's shows its deal."""
        query = DailyStandingQuery(draw=draw, date=date, limit=limit)  # type: ignore[arg-type]
        return await self._request(query, DailyStanding)

    async def wait_daily_finished(self, timeout: float | None = None) -> DailyFinished:
        async with asyncio.timeout(timeout):
            await self._daily_done.wait()
        assert self.daily_finished is not None
        return self.daily_finished

    # ------------------------------------------------------------ racing

    # ------------------------------------------------------------ arenas (docs/protocol.md)

    async def arena_create(
        self, name: str, player_name: str, draw: int = 3, minutes: int = 30, starts_in_s: int = 0
    ) -> ArenaMsg:
        """A private arena (after ``identify``), raced in by its creator."""
        message = ArenaCreate(
            name=name,
            player_name=player_name,
            draw=draw,  # type: ignore[arg-type]
            minutes=minutes,
            starts_in_s=starts_in_s,
        )
        return await self._request(message, ArenaMsg)

    async def arena_join(self, code: str, name: str) -> ArenaMsg:
        return await self._request(ArenaJoin(arena=code, name=name), ArenaMsg)

    async def arena_watch(self, code: str) -> ArenaMsg:
        return await self._request(ArenaWatch(arena=code), ArenaMsg)

    async def arena_berserk(self) -> ArenaBerserkOn:
        return await self._request(ArenaBerserk(), ArenaBerserkOn)

    async def arena_settings(self, minutes: int | None = None, draw: int | None = None) -> None:
        """The host's change; the pages hear it at the next tick (``arena``)."""
        await self._send(ArenaSettingsMsg(minutes=minutes, draw=draw))  # type: ignore[arg-type]

    async def arena_end(self) -> None:
        await self._send(ArenaEnd())

    async def arena_remove(self, racer: str) -> None:
        await self._send(ArenaRemove(racer=racer))

    async def arena_leave(self) -> ArenaLeft:
        return await self._request(ArenaLeave(), ArenaLeft)

    async def arena_history(self, limit: int = 20) -> ArenaHistory:
        """This identity's places in the arenas it raced, newest first."""
        return await self._request(ArenaHistoryQuery(limit=limit), ArenaHistory)

    async def move(self, move: str) -> Ack:
        return await self._action(lambda seq: MoveMsg(seq=seq, move=move))

    async def tap(self, card: str, double_click: bool = True) -> Ack:
        return await self._action(lambda seq: Tap(seq=seq, card=card, double_click=double_click))

    async def undo(self) -> Ack:
        return await self._action(lambda seq: Undo(seq=seq))

    async def give_up(self) -> Ack:
        return await self._action(lambda seq: GiveUp(seq=seq))

    async def hint(self) -> HintMsg:
        """The solver's next move for my board (practice rooms only; it changes nothing)."""
        return await self._request(Hint(), HintMsg)

    async def send_action(self, build: Callable[[int], msgspec.Struct]) -> asyncio.Future[Any]:
        """Send one board action now and return the future of its ack or error
        (no retry): for load generators that keep several in flight."""
        self.seq += 1
        seq = self.seq
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[seq] = future
        await self._send(build(seq))
        return future

    async def _action(self, build: Callable[[int], msgspec.Struct], retries: int = 3) -> Ack:
        async with self._action_lock:
            # a resume under way sets ``seq`` from its ``joined``: an action sent on
            # the new connection before that could see its ack undone by it
            revival = self._revival
            if revival is not None and not revival.done():
                await asyncio.wait({revival})  # its failure shows on the send
            self.seq += 1
            seq = self.seq
            message = build(seq)
            for attempt in range(retries + 1):
                future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
                self._pending[seq] = future
                generation = self._generation
                try:
                    await self._send(message)
                    async with asyncio.timeout(self.reply_timeout):
                        answer = await future
                except (ConnectionLost, TimeoutError):
                    self._pending.pop(seq, None)
                    if attempt == retries or self.token is None or not self.resume_attempts:
                        raise
                    joined = await self._revived(generation)
                    if joined.last_seq >= seq:  # it was applied: do not send it again
                        assert self.board is not None
                        return Ack(seq=seq, move="", board=self.board, duplicate=True)
                    self.seq = seq
                    continue
                if isinstance(answer, Error):
                    if answer.code == ErrorCode.SEQ_GAP and answer.last_seq is not None:
                        self.seq = answer.last_seq
                    else:
                        self.seq = seq - 1 if self.seq == seq else self.seq
                    raise ServerError(answer)
                return answer
            raise ConnectionLost("unreachable")  # pragma: no cover

    # ------------------------------------------------------------ leaderboard

    async def leaderboards(self) -> AsyncIterator[Leaderboard]:
        """Every leaderboard from now on, until the connection closes."""
        queue: asyncio.Queue[Leaderboard | None] = asyncio.Queue()
        self._subscribers.append(queue)
        try:
            while True:
                item = await queue.get()
                if item is None:
                    return
                yield item
        finally:
            self._subscribers.remove(queue)
