"""Which new connection may open: the per-address counts and limits of one process.

The policy the guarded protocols (``transport/guard.py`` for HTTP,
``transport/ws_protocol.py`` for an upgraded WebSocket) ask at a TCP accept
and tell at a close; it knows nothing of sockets, so it is the same for both
HTTP parsers. What it decides for a peer that is not a proxy uvicorn trusts
(``FORWARDED_ALLOW_IPS``: every client behind one shares its address, and the
proxy caps per client itself):

* past ``max_per_address`` open connections, ``REFUSE`` (a 503 at once);
* past its new-connection budget (a ``PerAddress`` token bucket, unless the
  address is exempt), ``DELAY`` (held unread, refused after
  ``refusal_delay_s``), or ``REFUSE`` when there is no delay or no cap to bound
  how many it may hold meanwhile;
* else ``OPEN``.
"""

from __future__ import annotations

import ipaddress
import logging
from typing import Any

from uvicorn.config import Config

from canfield_server.ops.logs import Tally
from canfield_server.ops.ratelimit import PerAddress

__all__ = ["DELAY", "OPEN", "REFUSE", "ConnectionGuard"]

log = logging.getLogger(__name__)

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
