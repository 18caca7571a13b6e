"""Connection guards below the application: a header deadline and a per-address cap.

uvicorn closes a kept-alive connection that sends nothing (``timeout_keep_alive``)
but gives a request it has begun to read all the time in the world: a client
that connects and trickles (or never finishes) its request line and headers
holds a socket - a file descriptor - for as long as it likes. A few hundred of
those exhaust the process's descriptors and lock every client out.

``uvicorn_protocols(settings)`` returns the HTTP and WebSocket protocol classes
to pass to ``uvicorn.Config(http=..., ws=...)``. They are uvicorn's own
(httptools when installed, else h11; websockets' sans-I/O implementation) with
two additions:

* **header deadline**: a timer armed when a connection is accepted, and again
  when the next request on a kept-alive connection begins, disarmed once the
  request's headers are complete. When it fires the connection is answered
  ``408`` and closed. A WebSocket handshake is a request like any other: its
  upgrade request must be complete by the deadline (the rest of the handshake,
  the ``101``, is the server's own answer).
* **per-address cap**: open connections are counted per peer address from the
  TCP accept to the close, WebSockets included (an upgraded connection hands
  its count to its WebSocket protocol). Past the cap a new connection is
  answered ``503`` at once and closed, so other addresses still get in. The
  addresses uvicorn trusts as proxies (``FORWARDED_ALLOW_IPS``) are not
  capped: every client behind a proxy shares its address, and the proxy caps
  per client itself (deploy/nginx.conf ``limit_conn``).
* **new connections per address**: a burst, then a rate
  (``CANFIELD_HANDSHAKES_PER_IP_*``, the WebSocket endpoint's numbers),
  counted at the TCP accept for every peer that is not a trusted proxy nor
  exempt. Past it a connection is refused before a byte of its request is
  parsed: reading stops and, after ``refusal_delay_s``, it is answered
  ``503`` and closed - a client churning connections in a loop waits out
  that delay on each one instead of costing the server a parse and a
  refusal as fast as it can ask (the per-address cap bounds how many it
  may hold meanwhile: past the cap, the refusal is at once).
* **bad bytes, quietly**: a WebSocket text frame that is not UTF-8 closes its
  connection with 1007, as uvicorn does, but is logged as one warning line
  now and then (with the count), not a traceback per frame.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import random
import struct
from typing import Any, ClassVar

import h11
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.ops.config import Settings
from canfield_server.ops.logs import Tally
from canfield_server.ops.ratelimit import PerAddress
from canfield_server.transport.lean import Flag, Inbox

__all__ = ["ConnectionGuard", "text_frame_head", "uvicorn_protocols"]

log = logging.getLogger(__name__)


def text_frame_head(size: int) -> bytes:
    """The head of an unmasked, final WebSocket text frame of ``size`` payload bytes
    (RFC 6455 5.2: a server's frames are never masked)."""
    if size < 126:
        return bytes((0x81, size))
    if size < 0x10000:
        return struct.pack("!BBH", 0x81, 126, size)
    return struct.pack("!BBQ", 0x81, 127, size)


def _plain(status: bytes, text: bytes) -> bytes:
    """A whole ``connection: close`` answer, written before anything is read."""
    head = b"HTTP/1.1 %s\r\ncontent-type: text/plain; charset=utf-8\r\n" % status
    return head + b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(text), text)


_TIMED_OUT = _plain(b"408 Request Timeout", b"request headers took too long\n")
_REFUSED = _plain(b"503 Service Unavailable", b"too many connections from one address\n")
#: what ``ConnectionGuard.admit`` decides for a new connection
OPEN, REFUSE, DELAY = "open", "refuse", "delay"
#: at most one warning per kind in this many seconds (a flood must not flood the log)
_LOG_EVERY_S = 10.0


class ConnectionGuard:
    """The limits and the per-address counts of one server process."""

    def __init__(
        self,
        header_timeout_s: float,
        max_per_address: int,
        new_per_address: PerAddress | None = None,
        exempt: frozenset[str] = frozenset(),
        refusal_delay_s: float = 0.0,
    ) -> None:
        #: seconds a request's line and headers may take; 0: no deadline
        self.header_timeout_s = header_timeout_s
        #: open connections per peer address; 0: no cap
        self.max_per_address = max_per_address
        #: new connections per peer address (a token bucket each); None: no limit
        self.new_per_address = new_per_address
        self.exempt = frozenset(exempt)
        #: how long a connection over the new-connection budget is held, unread,
        #: before its 503 (0: at once)
        self.refusal_delay_s = refusal_delay_s
        self.counts: dict[str, int] = {}
        self._trusted: tuple[bool, list[Any], set[str]] | None = None
        self.tally = Tally(log, _LOG_EVERY_S)

    def _is_trusted_proxy(self, address: str, config: Config) -> bool:
        """Is ``address`` one uvicorn takes ``X-Forwarded-For`` from?"""
        if self._trusted is None:
            allowed = config.forwarded_allow_ips if config.proxy_headers else []
            items = allowed.split(",") if isinstance(allowed, str) else list(allowed)
            items = [item.strip() for item in items if item.strip()]
            networks, literals = [], set()
            for item in items:
                try:
                    networks.append(ipaddress.ip_network(item, strict=False))
                except ValueError:
                    literals.add(item)
            self._trusted = ("*" in literals, networks, literals)
        anything, networks, literals = self._trusted
        if anything or address in literals:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in networks)

    def admit(self, address: str | None, config: Config) -> tuple[str, str | None]:
        """May a connection from ``address`` open (``OPEN``), or is it refused at
        once (``REFUSE``) or after the refusal delay (``DELAY``)? And the address
        it counts against (None: not counted), to ``release`` when it closes."""
        if address is None or self._is_trusted_proxy(address, config):
            return OPEN, None
        count = self.counts.get(address, 0)
        if self.max_per_address and count >= self.max_per_address:
            self.note("refused", address)
            return REFUSE, None
        verdict = OPEN
        if (
            self.new_per_address is not None
            and address not in self.exempt
            and not self.new_per_address.allow(address)
        ):
            self.note("refused: too many new ones", address)
            verdict = DELAY if self.refusal_delay_s > 0 and self.max_per_address else REFUSE
            if verdict == REFUSE:
                return REFUSE, None
        if not self.max_per_address:
            return verdict, None
        self.counts[address] = count + 1
        return verdict, address

    def release(self, address: str | None) -> None:
        if address is None:
            return
        count = self.counts.get(address, 0) - 1
        if count > 0:
            self.counts[address] = count
        else:
            self.counts.pop(address, None)

    def note(self, what: str, address: str | None) -> None:
        """Log a refusal, a timeout or a bad frame: one line now and then per kind."""
        detail = f"; header limit {self.header_timeout_s:g} s, {self.max_per_address} per address"
        self.tally.note(f"connections {what}", address, detail)


class _Guarded(asyncio.Protocol):
    """What both HTTP protocols add; mixed in before uvicorn's class."""

    guard: ClassVar[ConnectionGuard]
    config: Config
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    client: tuple[str, int] | None
    _counted: str | None = None
    _header_timer: asyncio.TimerHandle | None = None
    #: over the new-connection budget: waiting for its refusal
    _held = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        verdict, self._counted = self.guard.admit(
            self.client[0] if self.client else None, self.config
        )
        if verdict == REFUSE:
            self._refuse()
        elif verdict == DELAY:
            self._held = True  # nothing of its request is parsed (data_received)
            self.transport.pause_reading()
            self.loop.call_later(self.guard.refusal_delay_s, self._refuse)
        else:
            self._arm()

    def data_received(self, data: bytes) -> None:
        if self._held:
            return  # held for its refusal: its bytes are dropped unread
        super().data_received(data)

    def _refuse(self) -> None:
        if not self.transport.is_closing():
            self.transport.write(_REFUSED)
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.guard.release(self._counted)
        self._counted = None
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._header_timer is None and self.guard.header_timeout_s > 0:
            self._header_timer = self.loop.call_later(
                self.guard.header_timeout_s, self._headers_timed_out
            )

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_timed_out(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.guard.note("timed out", self.client[0] if self.client else None)
            self.transport.write(_TIMED_OUT)
            self.transport.close()

    def _hand_over(self) -> None:
        """After a WebSocket upgrade: the new protocol owns the connection's count."""
        self._disarm()
        protocol = self.transport.get_protocol()
        if isinstance(protocol, GuardedWebSocket):
            protocol.counted, self._counted = self._counted, None


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


class GuardedH11(_Guarded, H11Protocol):
    """h11: a request's headers are complete when h11 hands over a ``Request``."""

    def data_received(self, data: bytes) -> None:
        # bytes while h11 waits for a request (IDLE) or has one whole (DONE: these
        # are the next one's, pipelined): a request begins, its deadline runs
        if self.conn.their_state in (h11.IDLE, h11.DONE):
            self._arm()
        super().data_received(data)

    def handle_events(self) -> None:
        scope = self.scope
        super().handle_events()
        if self.scope is not scope:  # a new Request event: its headers are in
            self._disarm()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        super().handle_websocket_upgrade(event)
        self._hand_over()


def _httptools_class() -> type[_Guarded] | None:
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        return None

    class GuardedHttpTools(_Guarded, HttpToolsProtocol):
        """httptools: the parser says when a message begins and its headers end."""

        def on_message_begin(self) -> None:
            self._arm()  # already running for a connection's first request
            super().on_message_begin()

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def handle_websocket_upgrade(self) -> None:
            super().handle_websocket_upgrade()
            self._hand_over()
            # the parser calls back into this protocol, a cycle only the
            # garbage collector would free; the WebSocket owns the rest now
            self.parser = None  # type: ignore[assignment]

    return GuardedHttpTools


def uvicorn_protocols(
    settings: Settings, http: str = "httptools", clock: Clock = SYSTEM
) -> dict[str, Any]:
    """``uvicorn.Config`` options: guarded ``http`` and ``ws`` protocol classes
    sharing one ``ConnectionGuard`` (``http``: "httptools" when installed, or "h11")."""
    rate, burst = settings.handshakes_per_ip_per_s, settings.handshakes_per_ip_burst
    guard = ConnectionGuard(
        settings.header_timeout_s,
        settings.max_conns_per_ip,
        PerAddress(rate, burst, clock) if rate > 0 else None,
        settings.own_addresses(),
        settings.refusal_delay_s,
    )
    base = _httptools_class() if http == "httptools" else None
    http_class = type("GuardedHttp", (base or GuardedH11,), {"guard": guard})
    ws_class = type(
        "GuardedWs", (GuardedWebSocket,), {"guard": guard, "keepalive": KeepaliveWheel()}
    )
    return {"http": http_class, "ws": ws_class}
