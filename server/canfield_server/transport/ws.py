"""The WebSocket endpoint: a thin layer between frames and the hub.

Per connection: check the Origin at the handshake, then for each frame
enforce the size cap and the rate limit, decode it with the protocol
schema, and hand the typed message to the hub. A connection that sends
nothing for the idle limit (``ws_idle_s`` outside a room,
``ws_idle_member_s`` in one) is closed with 1008 by the process's one idle
sweep. Outgoing frames are written at once when nothing waits before them
(the server's own protocol, ws_protocol.py ``GuardedWebSocket.write_texts``), else queued
and drained by one writer task (or the reader, for its replies, all in one
write), so a broadcast never waits on a slow socket and frames never
interleave. It speaks raw ASGI (no
Starlette ``WebSocket`` wrapper): this is the per-frame hot path.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Protocol

from canfield_protocol import Error, ProtocolError, Role, decode_client, encode, error
from canfield_protocol import ErrorCode as E
from starlette.types import Receive, Scope, Send

from canfield_server.ops import metrics
from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.ops.logs import Tally
from canfield_server.ops.ratelimit import PerAddress, RateLimiter, TokenBucket
from canfield_server.room.hub import Hub
from canfield_server.storage.errors import STORAGE_ERRORS
from canfield_server.transport.lean import Flag

__all__ = ["WsPeer", "WebSocketEndpoint", "Blocks"]


class Blocks(Protocol):
    """The operator's blocks as the handshake asks them (``ConsoleStore``)."""

    async def is_blocked(self, address: str) -> bool: ...


log = logging.getLogger(__name__)


class WsPeer:
    """One connection: identity in the room, and its outgoing queue."""

    __slots__ = (
        "asgi_send",
        "write_now",
        "ip",
        "room",
        "member_id",
        "role",
        "_queue",
        "_wake",
        "_closing",
        "_sending",
        "replying",
        "max_queued",
        "heard",
    )

    def __init__(self, asgi_send: Send, ip: str | None = None, max_queued: int = 512) -> None:
        self.asgi_send = asgi_send
        #: the server's own way to write text frames at once, when it has one (our
        #: uvicorn protocol's ``write_texts``: True when written; False, or None,
        #: and frames go the ASGI way)
        self.write_now: Callable[[list[str]], bool] | None = getattr(
            getattr(asgi_send, "__self__", None), "write_texts", None
        )
        #: frames queued before this connection counts as too slow and is dropped
        self.max_queued = max_queued
        #: the client's address (X-Forwarded-For when uvicorn trusts the proxy)
        self.ip = ip
        self.room: str | None = None
        self.member_id: str | None = None
        self.role: Role | None = None
        #: frames waiting for the socket: a list (a deque would allocate its first
        #: block on every idle connection)
        self._queue: list[str] = []
        self._wake = Flag()
        self._closing: tuple[int, str] | None = None
        #: a drain is writing to the socket (the writer task or ``flush``)
        self._sending = False
        #: the reader is answering a message and will ``flush`` the replies itself
        self.replying = False
        #: when the client last sent a frame (the loop's clock; the idle sweep reads it)
        self.heard = 0.0

    def send(self, text: str) -> None:
        if self._closing:
            return
        if len(self._queue) >= self.max_queued:
            self.close(1008, "too slow: messages piled up")
            return
        queue = self._queue
        if not (self.replying or queue or self._sending):
            # nothing before it: written now, no writer task woken for it
            write = self.write_now
            queue.append(text)
            if write is not None and write(queue):
                queue.clear()
                return
            self._wake.set()
            return
        queue.append(text)
        if not self.replying:
            self._wake.set()

    async def flush(self) -> None:
        """Send what is queued from the reader itself: a reply costs no task switch."""
        self.replying = False
        if self._sending or self._closing:
            self._wake.set()
            return
        await self._drain()

    async def _drain(self) -> None:
        send = self.asgi_send
        queue = self._queue
        write = self.write_now
        if queue and write is not None and write(queue):  # all of them, one write
            queue.clear()
            return
        self._sending = True
        try:
            while queue:  # short: a list's pop(0) costs less than a deque's block
                await send({"type": "websocket.send", "text": queue.pop(0)})
        except (OSError, RuntimeError):
            self._closing = self._closing or (1006, "gone")  # the client went away
        finally:
            self._sending = False
            if self._closing:
                self._wake.set()  # the writer sends the close, after every frame

    def close(self, code: int, reason: str) -> None:
        self._closing = self._closing or (code, reason)  # the first reason is the one sent
        self._wake.set()

    async def writer(self) -> None:
        send = self.asgi_send
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                if self._sending:  # a flush is draining; it wakes us again if needed
                    continue
                await self._drain()
                if self._closing:
                    code, reason = self._closing
                    await send({"type": "websocket.close", "code": code, "reason": reason})
                    return
        except (OSError, RuntimeError):
            self._closing = self._closing or (1006, "gone")  # the client went away


def _origin_allowed(scope: Scope, allowed: tuple[str, ...]) -> bool:
    """Browsers always send Origin; a listed one passes. Without Origin the client
    is not a browser (a bot, the Python client), which could claim any Origin
    anyway, so the check - against other sites' pages - lets it through."""
    if not allowed:
        return True
    for name, value in scope.get("headers", ()):
        if name == b"origin":
            return value.decode("latin-1") in allowed
    return True


#: the idle sweep looks at every connection at least this often (s), and at
#: least four times per idle limit
IDLE_SWEEP_MAX_S = 10.0


class _IdleSweep:
    """Closes each connection whose client sends nothing for its idle limit.

    One timer for the process, not one per connection: it looks at every open
    connection a few times per limit (the reader only notes on its peer when
    each frame came), so a silent one goes between its limit and a quarter
    of it (at most ``IDLE_SWEEP_MAX_S``) later.
    """

    __slots__ = ("peers", "idle_s", "idle_member_s", "every_s", "timer")

    def __init__(self, peers: set[WsPeer], idle_s: float, idle_member_s: float) -> None:
        self.peers = peers
        self.idle_s = idle_s
        self.idle_member_s = idle_member_s
        limits = [limit for limit in (idle_s, idle_member_s) if limit > 0]
        self.every_s = min(min(limits) / 4, IDLE_SWEEP_MAX_S) if limits else 0.0
        self.timer: asyncio.TimerHandle | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Sweep while connections are open (called as each one opens)."""
        if self.every_s and self.timer is None:
            self.timer = loop.call_later(self.every_s, self._sweep, loop)

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        self.timer = None
        now = loop.time()
        for peer in list(self.peers):
            limit = self.idle_member_s if peer.room is not None else self.idle_s
            if limit > 0 and now - peer.heard >= limit:
                peer.close(1008, f"idle: nothing received for {limit:g} s")
        if self.peers:
            self.start(loop)


async def _refuse_http(send: Send, status: int, reason: str) -> None:
    """Answer the upgrade with a plain HTTP response (a proxy may retry it elsewhere)."""
    body = json.dumps({"ok": False, "error": reason}).encode()
    headers = [(b"content-type", b"application/json"), (b"retry-after", b"1")]
    await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
    await send({"type": "websocket.http.response.body", "body": body})


def _err(code: str, message: str) -> str:
    return encode(Error(code=code, message=message)).decode()


class WebSocketEndpoint:
    """The raw ASGI app behind ``/ws``; the hub is found on the app's state."""

    def __init__(
        self,
        hub: Hub,
        *,
        max_frame_bytes: int,
        allowed_origins: tuple[str, ...],
        limiter_factory: Callable[[], RateLimiter],
        max_queued_frames: int,
        abuse_refusals: int,
        accept_headers: tuple[tuple[bytes, bytes], ...] = (),
        idle_s: float | None = None,
        idle_member_s: float | None = None,
        handshakes: PerAddress | None = None,
        handshakes_exempt: frozenset[str] = frozenset(),
        clock: Clock = SYSTEM,
        blocks: Blocks | None = None,
    ) -> None:
        self.hub = hub
        #: the operator's blocks (None: nobody is blocked)
        self.blocks = blocks
        self.clock = clock
        self.max_frame_bytes = max_frame_bytes
        self.max_queued_frames = max_queued_frames
        self.abuse_refusals = abuse_refusals
        self.allowed_origins = allowed_origins
        self.limiter_factory = limiter_factory
        #: headers of the handshake's answer (the app may serve ``/ws`` outside
        #: the middleware that would add them)
        self.accept_headers = list(accept_headers)
        #: WebSocket handshakes per client address (a burst, then a rate): past it
        #: the upgrade is refused before it is accepted (HTTP 403), costing the
        #: server no WebSocket, no task and no room work
        self.handshakes = handshakes
        self.handshakes_exempt = handshakes_exempt
        self.refusals = Tally(log)
        #: every open connection of this process (the operator's notice reaches them all)
        self.peers: set[WsPeer] = set()
        #: closes the connections that send nothing for their idle limit: seconds
        #: without a frame outside a room and in one (0: never; None: the hub's
        #: settings, ``ws_idle_s`` and ``ws_idle_member_s``)
        self.idle = _IdleSweep(
            self.peers,
            hub.settings.ws_idle_s if idle_s is None else idle_s,
            hub.settings.ws_idle_member_s if idle_member_s is None else idle_member_s,
        )
        #: the operator's notice as a frame, sent to each new connection while it lasts
        #: (``show_notice``); None: no notice
        self.notice: str | None = None
        #: why new connections are refused (HTTP 503, the proxy tries another
        #: process; ``refuse``): "draining" while ``transport.drain`` empties it
        self.refusing: str | None = None

    def tell_all(self, text: str) -> None:
        """Send one frame to every open connection of this process."""
        for peer in list(self.peers):
            peer.send(text)

    def refuse(self, why: str) -> None:
        """Refuse every new connection from now on (HTTP 503 with ``why``: the
        proxy tries another process), as a drain does."""
        self.refusing = why

    def show_notice(self, frame: str | None) -> None:
        """The operator's notice (a ``notice`` frame; None: none): a new one goes
        to every open connection now, and to each new one while it lasts."""
        if frame is not None and frame != self.notice:
            self.tell_all(frame)
        self.notice = frame

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (await receive())["type"] != "websocket.connect":
            return
        if self.refusing is not None:
            await _refuse_http(send, 503, self.refusing)
            return
        if not _origin_allowed(scope, self.allowed_origins):
            await send({"type": "websocket.close", "code": 1008, "reason": "origin not allowed"})
            return
        client = scope.get("client")
        ip = client[0] if client else None
        if not self._handshake_allowed(ip):
            await send({"type": "websocket.close", "code": 1013, "reason": "too many connections"})
            return
        if ip is not None and await self._blocked(ip):
            self.refusals.note("websocket handshakes refused: address blocked", ip)
            await send({"type": "websocket.close", "code": 1008, "reason": "address blocked"})
            return
        await send({"type": "websocket.accept", "headers": self.accept_headers})
        # the handshake's headers are read by now (the origin, the proxy's
        # address): not kept for the connection's life (about 1 KB each)
        scope["headers"] = []
        await self._serve(self.hub, receive, send, ip)

    async def _blocked(self, ip: str) -> bool:
        """Has the operator blocked this address (``cf:block:ADDRESS``, every process
        sees it)? Redis out of reach: not blocked - a block must not lock everyone out."""
        if self.blocks is None:
            return False
        try:
            return await self.blocks.is_blocked(ip)
        except STORAGE_ERRORS as exc:
            log.warning("block list not read: %s", exc)
            return False

    def _handshake_allowed(self, ip: str | None) -> bool:
        if self.handshakes is None or ip is None or ip in self.handshakes_exempt:
            return True
        if self.handshakes.allow(ip):
            return True
        self.refusals.note("websocket handshakes refused", ip)
        return False

    async def _serve(self, hub: Hub, receive: Receive, send: Send, ip: str | None) -> None:
        metrics.client_connected()
        loop = asyncio.get_running_loop()
        peer = WsPeer(send, ip, self.max_queued_frames)
        peer.heard = loop.time()
        writer = asyncio.create_task(peer.writer())
        self.peers.add(peer)
        self.idle.start(loop)
        if self.notice is not None:
            peer.send(self.notice)
        limiter = self.limiter_factory()
        abuse = TokenBucket(1.0, self.abuse_refusals, self.clock)
        cap = self.max_frame_bytes
        try:
            while not writer.done():
                message = await receive()
                peer.heard = loop.time()
                if message["type"] != "websocket.receive":
                    break
                text = message.get("text")
                if text is None:
                    peer.send(_err(E.BINARY, "frames must be JSON text, not binary"))
                    continue
                if len(text) > cap or (
                    len(text) * 4 > cap and not text.isascii() and len(text.encode()) > cap
                ):
                    peer.send(_err(E.TOO_LARGE, f"a message has at most {cap} bytes"))
                    continue
                if not limiter.allow():
                    if not abuse.allow():
                        peer.close(1008, "rate limit exceeded: too many messages")
                        break
                    peer.send(_err(E.RATE_LIMITED, "too many messages; slow down"))
                    continue
                try:
                    msg = decode_client(text)
                except ProtocolError as exc:
                    peer.send(encode(error(exc)).decode())
                    continue
                peer.replying = True
                try:
                    await hub.handle(peer, msg)
                except Exception:  # never let one message kill the connection
                    log.exception("handler failed for %s", type(msg).__name__)
                    peer.send(
                        _err(E.INTERNAL, "the server failed on that message; nothing applied")
                    )
                await peer.flush()
        finally:
            self.peers.discard(peer)
            metrics.client_disconnected()
            try:
                await hub.detach(peer)
            finally:
                if not writer.done():
                    peer.close(1000, "bye")
                    try:
                        async with asyncio.timeout(1.0):
                            await writer
                    except Exception:  # noqa: BLE001 - the socket is gone anyway
                        writer.cancel()
