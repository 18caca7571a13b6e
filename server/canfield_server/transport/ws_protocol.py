"""uvicorn's WebSocket protocol (websockets' sans-I/O implementation) as this
server runs it, once the HTTP protocol (``transport/guard.py``) has upgraded
a connection:

* **its address's count** (``transport/admission.py``) is handed over at the
  upgrade and released when the connection closes;
* **one keepalive timer per process**: every connection's ping on one
  ``KeepaliveWheel``, not two timers per connection;
* **frames written at once**: ``write_texts`` writes queued text frames
  (``text_frame_head`` and the UTF-8 bytes) in one write, past the ASGI
  ``send`` (``transport/ws.py`` ``WsPeer``);
* **bad bytes, quietly**: a text frame that is not UTF-8 closes its
  connection with 1007, as uvicorn does, but is logged as one warning line
  now and then (with the count), not a traceback per frame.
"""

from __future__ import annotations

import asyncio
import random
import struct
from typing import Any, ClassVar

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from canfield_server.transport.admission import ConnectionGuard
from canfield_server.transport.lean import Flag, Inbox

__all__ = ["KEEPALIVE_TURN_S", "GuardedWebSocket", "KeepaliveWheel", "text_frame_head"]


def text_frame_head(size: int) -> bytes:
    """The head of an unmasked, final WebSocket text frame of ``size`` payload bytes
    (RFC 6455 5.2: a server's frames are never masked)."""
    if size < 126:
        return bytes((0x81, size))
    if size < 0x10000:
        return struct.pack("!BBH", 0x81, 126, size)
    return struct.pack("!BBQ", 0x81, 127, size)


#: how far apart the keepalive wheel's turns are (s): each turn pings the
#: connections of one slot, so a turn is a few hundred pings at most
KEEPALIVE_TURN_S = 0.25


class KeepaliveWheel:
    """Every WebSocket's keepalive ping on one timer, instead of uvicorn's two
    timers per connection (a ping timer, then a pong deadline).

    The connections sit in slots around a wheel that turns once a ping
    interval; each turn visits one slot: a connection whose last ping is
    still unanswered (a whole interval later) is closed as uvicorn would
    close it (1011, keepalive ping timeout), the others are pinged. A new
    connection goes in the slot just visited, so its first ping comes one
    interval after its handshake, as before.
    """

    def __init__(self) -> None:
        self.slots: list[set[GuardedWebSocket]] = []
        self.turn = 0
        self.count = 0
        self.timer: asyncio.TimerHandle | None = None

    def add(self, ws: GuardedWebSocket) -> None:
        interval = ws.ping_interval or 0.0
        if not self.slots:
            self.slots = [set() for _ in range(max(1, round(interval / KEEPALIVE_TURN_S)))]
        slot = (self.turn - 1) % len(self.slots)
        self.slots[slot].add(ws)
        ws.keepalive_slot = slot
        self.count += 1
        if self.timer is None:
            self.timer = ws.loop.call_later(
                interval / len(self.slots), self._turn, ws.loop, interval
            )

    def discard(self, ws: GuardedWebSocket) -> None:
        slot = ws.keepalive_slot
        if slot is None:
            return
        ws.keepalive_slot = None
        self.slots[slot].discard(ws)
        self.count -= 1

    def _turn(self, loop: asyncio.AbstractEventLoop, interval: float) -> None:
        self.timer = None
        for ws in list(self.slots[self.turn]):
            ws.keepalive_turn()
        self.turn = (self.turn + 1) % len(self.slots)
        if self.count > 0:
            self.timer = loop.call_later(interval / len(self.slots), self._turn, loop, interval)


class GuardedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol; releases its address's count when it closes,
    and keeps its connection alive on the process's one ``KeepaliveWheel``."""

    guard: ClassVar[ConnectionGuard]
    keepalive: ClassVar[KeepaliveWheel]
    counted: str | None = None
    #: its slot on the keepalive wheel (None: not on it)
    keepalive_slot: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # one waiter at most on each: lean stand-ins for asyncio's Queue and Event
        # (about 3 KB a connection less; transport/lean.py)
        self.queue = Inbox()  # type: ignore[assignment]
        self.writable = Flag(True)  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.release(self.counted)
        self.counted = None
        super().connection_lost(exc)

    def start_keepalive(self) -> None:
        """Called once, as the handshake's answer (101) goes out: the handshake's
        request and answer (every header, parsed) are never read again, so they
        are not kept for the connection's life (websockets' parser still holds
        the request: its headers are emptied). Then the wheel takes it."""
        if self.response is not None:
            self.request.headers.clear()
            self.request = self.response = None  # type: ignore[assignment]
        if self.ping_interval is not None and self.ping_interval > 0:
            self.keepalive.add(self)

    def stop_keepalive(self) -> None:
        self.keepalive.discard(self)
        super().stop_keepalive()

    def keepalive_turn(self) -> None:
        """Its turn on the wheel: closed if the last ping is unanswered (with a
        ping timeout set, as uvicorn's default is), else pinged."""
        if self.close_sent or self.transport.is_closing():
            return
        if self.pending_ping_payload is not None and self.ping_timeout is not None:
            self.keepalive_timeout()
            return
        # as uvicorn's ping: a random payload, so a stale pong is told apart
        self.pending_ping_payload = struct.pack("!I", random.getrandbits(32))
        self.ping_sent_at = self.loop.time()
        self.conn.send_ping(self.pending_ping_payload)
        self.transport.write(b"".join(self.conn.data_to_send()))

    def write_texts(self, texts: list[str]) -> bool:
        """Write ``texts`` as text frames now, in one write, and say True; False
        when they must go the ASGI way (``send``), which waits for a full socket
        buffer to drain and raises on a closed connection.

        ``send`` costs a coroutine, a message dict and websockets' ``Frame`` per
        frame, and a system call each; with no extension (compression is off) a
        server's text frame is just a head and the UTF-8 bytes, so several queued
        frames (an ack and a leaderboard) go out together. Whatever websockets
        queued itself (a pong) goes first, as ``send`` would have written it."""
        conn = self.conn
        if (
            self.close_sent
            or self.disconnected
            or not self.writable.is_set()
            or conn.state is not State.OPEN
            or conn.extensions
            or self.transport.is_closing()
        ):
            return False
        out = conn.data_to_send()
        for text in texts:
            data = text.encode()
            out.append(text_frame_head(len(data)))
            out.append(data)
        self.transport.write(b"".join(out))
        return True

    def send_receive_event_to_app(self) -> None:
        """uvicorn's, decoding a text frame once: one that is not UTF-8 is noted,
        not logged with its traceback, and closed with 1007 all the same."""
        if self.curr_msg_data_type != "text" or self.close_sent:
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        try:
            text = data.decode()
        except UnicodeDecodeError:
            self.guard.note("closed for invalid UTF-8", self.client[0] if self.client else None)
            self.conn.send_close(1007, "invalid UTF-8")
            self.handle_parser_exception()
            return
        self.queue.put_nowait({"type": "websocket.receive", "text": text})
        if not self.read_paused:  # as uvicorn does: the app reads one message at a time
            self.read_paused = True
            self.transport.pause_reading()
