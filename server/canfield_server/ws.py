"""The WebSocket endpoint: a thin layer between frames and the hub.

Per connection: check the Origin at the handshake, then for each frame
enforce the size cap and the rate limit, decode it with the protocol
schema, and hand the typed message to the hub. Outgoing frames go
through a queue drained by one writer task, so a broadcast never waits
on a slow socket and frames never interleave.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable

from starlette.websockets import WebSocket, WebSocketDisconnect

from . import metrics
from .hub import Hub
from .protocol import Error, ProtocolError, decode_client, encode, error
from .protocol import ErrorCode as E
from .ratelimit import RateLimiter

__all__ = ["WsPeer", "websocket_endpoint"]

log = logging.getLogger(__name__)

#: frames queued for one connection before it counts as too slow and is dropped
MAX_QUEUED = 512


class WsPeer:
    """One connection: identity in the room, and its outgoing queue."""

    __slots__ = ("ws", "room", "member_id", "role", "_queue", "_wake", "_closing")

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.room: str | None = None
        self.member_id: str | None = None
        self.role: str | None = None
        self._queue: deque[str] = deque()
        self._wake = asyncio.Event()
        self._closing: tuple[int, str] | None = None

    def send(self, text: str) -> None:
        if self._closing:
            return
        if len(self._queue) >= MAX_QUEUED:
            self.close(1008, "too slow: messages piled up")
            return
        self._queue.append(text)
        self._wake.set()

    def close(self, code: int, reason: str) -> None:
        self._closing = (code, reason)
        self._wake.set()

    async def writer(self) -> None:
        send = self.ws.send
        queue = self._queue
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while queue:
                    await send({"type": "websocket.send", "text": queue.popleft()})
                if self._closing:
                    code, reason = self._closing
                    await send({"type": "websocket.close", "code": code, "reason": reason})
                    return
        except (OSError, RuntimeError, WebSocketDisconnect):
            self._closing = self._closing or (1006, "gone")  # the client went away


def _origin_allowed(ws: WebSocket, allowed: tuple[str, ...]) -> bool:
    if not allowed:
        return True
    return ws.headers.get("origin", "") in allowed


def _err(code: str, message: str) -> str:
    return encode(Error(code=code, message=message)).decode()


async def websocket_endpoint(
    ws: WebSocket,
    hub: Hub,
    *,
    max_frame_bytes: int,
    allowed_origins: tuple[str, ...],
    limiter_factory: Callable[[], RateLimiter],
) -> None:
    if not _origin_allowed(ws, allowed_origins):
        await ws.close(code=1008, reason="origin not allowed")
        return
    await ws.accept()
    metrics.client_connected()
    peer = WsPeer(ws)
    writer = asyncio.create_task(peer.writer())
    limiter = limiter_factory()
    receive = ws.receive
    try:
        while not writer.done():
            message = await receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if text is None:
                peer.send(_err(E.BINARY, "frames must be JSON text, not binary"))
                continue
            if len(text) > max_frame_bytes or (
                len(text) * 4 > max_frame_bytes
                and not text.isascii()
                and len(text.encode()) > max_frame_bytes
            ):
                peer.send(_err(E.TOO_LARGE, f"a message has at most {max_frame_bytes} bytes"))
                continue
            if not limiter.allow():
                peer.send(_err(E.RATE_LIMITED, "too many messages; slow down"))
                continue
            try:
                msg = decode_client(text)
            except ProtocolError as exc:
                peer.send(encode(error(exc)).decode())
                continue
            try:
                await hub.handle(peer, msg)
            except Exception:  # never let one message kill the connection
                log.exception("handler failed for %s", type(msg).__name__)
                peer.send(_err(E.INTERNAL, "the server failed on that message; nothing applied"))
    except WebSocketDisconnect:
        pass
    finally:
        metrics.client_disconnected()
        try:
            await hub.detach(peer)
        finally:
            if not writer.done():
                peer.close(1000, "bye")
                try:
                    await asyncio.wait_for(writer, 1.0)
                except (TimeoutError, Exception):  # the socket is gone anyway
                    writer.cancel()
