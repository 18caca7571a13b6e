"""Draining: this process leaves on purpose, so an upgrade cuts no race.

A drain (the operator console's button, reaching this process through
Redis, or ``SIGUSR1`` sent to the process itself) makes the process

1. refuse new WebSockets (HTTP 503, which the proxy retries on another
   process) and answer ``/healthz`` with 503 ``"draining"``, so no new
   client and no new room lands here;
2. tell every open connection ``reconnect`` and close it (1012): clients
   resume their seats on another process, through the proxy - rooms and
   moves live in Redis, so nothing acknowledged is lost;
3. exit (as on SIGTERM) once it holds no connection, or at the deadline.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Callable

from canfield_protocol import Reconnect, encode

from canfield_server.ops.clock import Clock
from canfield_server.ops.logs import event
from canfield_server.transport.ws import WebSocketEndpoint

__all__ = ["Drain", "DEFAULT_DRAIN_S", "MAX_DRAIN_S", "exit_as_on_sigterm"]

log = logging.getLogger(__name__)

#: the deadline of a drain that names none (SIGUSR1, or the console without one)
DEFAULT_DRAIN_S = 60
#: the longest deadline a drain may be given
MAX_DRAIN_S = 3600
#: clients come back this soon (the proxy sends them to another process)
RETRY_MS = 300
#: how often the draining process looks whether its last connection has gone
_POLL_S = 0.1
#: the close code and reason of a connection told to go
CLOSE_CODE, CLOSE_REASON = 1012, "server draining: reconnect"


def exit_as_on_sigterm() -> None:
    """End this process the way SIGTERM does (uvicorn's graceful shutdown)."""
    os.kill(os.getpid(), signal.SIGTERM)


class Drain:
    def __init__(
        self,
        endpoint: WebSocketEndpoint,
        clock: Clock,
        exit: Callable[[], None] = exit_as_on_sigterm,
    ) -> None:
        self.endpoint = endpoint
        self.clock = clock
        self.exit = exit
        #: epoch ms by which the process exits; None: not draining
        self.deadline_ms: int | None = None
        self.task: asyncio.Task[None] | None = None

    @property
    def draining(self) -> bool:
        return self.deadline_ms is not None

    def start(self, seconds: float, why: str) -> bool:
        """Begin draining (on the running loop); False when already draining."""
        if self.draining:
            return False
        self.deadline_ms = self.clock.now_ms() + int(seconds * 1000)
        self.endpoint.refuse("draining")
        event(log, "server.draining", logging.WARNING, why=why, deadline_s=seconds)
        self.task = asyncio.get_running_loop().create_task(self._run(seconds))
        return True

    async def _run(self, seconds: float) -> None:
        frame = encode(Reconnect(message="server draining", retry_ms=RETRY_MS)).decode()
        for peer in list(self.endpoint.peers):
            peer.send(frame)
            peer.close(CLOSE_CODE, CLOSE_REASON)
        until = self.clock.monotonic() + seconds
        # the endpoint offers no event for its last connection's going: it is polled
        while self.endpoint.peers and self.clock.monotonic() < until:
            await self.clock.sleep(_POLL_S)
        event(log, "server.drained", left=len(self.endpoint.peers))
        self.exit()
