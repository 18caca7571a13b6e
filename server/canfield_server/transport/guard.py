"""Connection guards below the application: a header deadline and a per-address cap.

uvicorn closes a kept-alive connection that sends nothing (``timeout_keep_alive``)
but gives a request it has begun to read all the time in the world: a client
that connects and trickles (or never finishes) its request line and headers
holds a socket - a file descriptor - for as long as it likes. A few hundred of
those exhaust the process's descriptors and lock every client out.

``uvicorn_protocols(settings)`` returns the HTTP and WebSocket protocol classes
to pass to ``uvicorn.Config(http=..., ws=...)``. They are uvicorn's own
(httptools when installed, else h11; websockets' sans-I/O implementation) with
these additions:

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
* the WebSocket protocol an upgraded connection runs on (its keepalive,
  its writes, its bad bytes) is ``transport/ws_protocol.py``'s, and the
  counts and limits both ask ``transport/admission.py``'s ``ConnectionGuard``.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import h11
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol

from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.ops.config import Settings
from canfield_server.ops.ratelimit import PerAddress
from canfield_server.transport.admission import DELAY, REFUSE, ConnectionGuard
from canfield_server.transport.ws_protocol import GuardedWebSocket, KeepaliveWheel

__all__ = ["uvicorn_protocols"]


def _plain(status: bytes, text: bytes) -> bytes:
    """A whole ``connection: close`` answer, written before anything is read."""
    head = b"HTTP/1.1 %s\r\ncontent-type: text/plain; charset=utf-8\r\n" % status
    return head + b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(text), text)


_TIMED_OUT = _plain(b"408 Request Timeout", b"request headers took too long\n")
_REFUSED = _plain(b"503 Service Unavailable", b"too many connections from one address\n")


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
