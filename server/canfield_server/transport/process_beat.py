"""This process's part in the operator console: its beat, the notice it passes
on, and the drain it takes.

Every ``presence_s`` the process writes its connections and rooms into
``cf:procs`` (the console lists every process from there); every second it
looks at the operator's notice (``cf:notice``) and, when a new one is up,
sends it to each of its open connections - and to each new one while it
lasts (``WebSocketEndpoint.notice``); and, in the same look, whether the
operator asked it to drain (``cf:drain:NAME``: ``transport.drain``).
"""

from __future__ import annotations

import logging

from canfield_protocol import Notice, encode

from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.ops.supervise import Supervised
from canfield_server.room.hub import Hub
from canfield_server.storage.console_store import ConsoleStore
from canfield_server.storage.errors import STORAGE_ERRORS
from canfield_server.transport.drain import Drain
from canfield_server.transport.ws import WebSocketEndpoint

__all__ = ["ProcessBeat"]

log = logging.getLogger(__name__)

#: how often the notice is looked at: a notice reaches every page within this
NOTICE_POLL_S = 1.0


class ProcessBeat:
    def __init__(
        self,
        name: str,
        console: ConsoleStore,
        endpoint: WebSocketEndpoint,
        hub: Hub,
        drain: Drain,
        beat_s: float,
        clock: Clock = SYSTEM,
    ) -> None:
        self.name = name
        self.console = console
        self.endpoint = endpoint
        self.hub = hub
        self.drain = drain
        self.beat_s = beat_s
        self.clock = clock
        self.notice_id: str | None = None
        self.loop = Supervised("process-beat", self._run)

    def start(self) -> None:
        self.loop.start()

    async def stop(self) -> None:
        await self.loop.stop()
        try:
            await self.console.forget_process(self.name)
        except STORAGE_ERRORS as exc:
            log.warning("process not struck from the console's list: %s", exc)

    async def _run(self) -> None:
        since_beat = self.beat_s
        while True:
            try:
                if since_beat >= self.beat_s:
                    since_beat = 0.0
                    await self.beat()
                await self.pass_notice_on()
                await self.take_drain_request()
            except STORAGE_ERRORS as exc:
                log.warning("process beat paused: %s", exc)
            await self.clock.sleep(NOTICE_POLL_S)  # a beat is a clock, not an event
            since_beat += NOTICE_POLL_S

    async def beat(self) -> None:
        await self.console.beat_process(
            self.name, len(self.endpoint.peers), len(self.hub.sessions), self.drain.deadline_ms
        )

    async def take_drain_request(self) -> None:
        request = await self.console.take_drain_request(self.name)
        if request is not None and self.drain.start(
            request["seconds"], f"operator {request['by']}"
        ):
            await self.beat()  # the console shows it draining at once

    async def pass_notice_on(self) -> None:
        notice = await self.console.notice()
        if notice is None:
            self.endpoint.notice, self.notice_id = None, None
            return
        if notice["id"] == self.notice_id:
            return
        self.notice_id = notice["id"]
        frame = encode(Notice(id=notice["id"], text=notice["text"])).decode()
        self.endpoint.notice = frame
        self.endpoint.tell_all(frame)
