"""This process's part in the operator console: its entry, the notice it passes
on, and the drain it takes (a part of the process's ``transport.beat``).

Every ``presence_s`` the process writes its connections and rooms into
``cf:procs`` (the console lists every process from there); every second it
looks at the operator's notice (``cf:notice``) and, when a new one is up,
sends it to each of its open connections - and to each new one while it
lasts (``WebSocketEndpoint.notice``); and, in the same look, whether the
operator asked it to drain (``cf:drain:NAME``: ``transport.drain``).
"""

from __future__ import annotations

from collections.abc import Mapping

from canfield_protocol import Notice, encode

from canfield_server.room.session import RoomSession
from canfield_server.storage.console_store import ConsoleStore
from canfield_server.transport.drain import Drain
from canfield_server.transport.ws import WebSocketEndpoint

__all__ = ["ProcessBeat"]

#: how often the notice is looked at: a notice reaches every page within this
NOTICE_POLL_S = 1.0


class ProcessBeat:
    """A part of the process's ``Beat``: every second the notice and the drain
    request, every ``beat_s`` the process's entry in the console."""

    name = "process beat"
    every_s = NOTICE_POLL_S
    first_s = 0.0

    def __init__(
        self,
        name: str,
        console: ConsoleStore,
        endpoint: WebSocketEndpoint,
        sessions: Mapping[str, RoomSession],
        drain: Drain,
        beat_s: float,
    ) -> None:
        self.process = name
        self.console = console
        self.endpoint = endpoint
        #: the rooms served here, by code (the hub's, live)
        self.sessions = sessions
        self.drain = drain
        self.beat_s = beat_s
        self.notice_id: str | None = None
        self.since_beat = beat_s

    async def tick(self) -> None:
        try:
            if self.since_beat >= self.beat_s:
                self.since_beat = 0.0
                await self.beat()
            await self.pass_notice_on()
            await self.take_drain_request()
        finally:
            self.since_beat += self.every_s

    async def forget(self) -> None:
        await self.console.forget_process(self.process)

    async def beat(self) -> None:
        await self.console.beat_process(
            self.process, len(self.endpoint.peers), len(self.sessions), self.drain.deadline_ms
        )

    async def take_drain_request(self) -> None:
        request = await self.console.take_drain_request(self.process)
        if request is not None and self.drain.start(
            request["seconds"], f"operator {request['by']}"
        ):
            await self.beat()  # the console shows it draining at once

    async def pass_notice_on(self) -> None:
        notice = await self.console.notice()
        if notice is None:
            self.endpoint.show_notice(None)
            self.notice_id = None
            return
        if notice["id"] == self.notice_id:
            return
        self.notice_id = notice["id"]
        self.endpoint.show_notice(encode(Notice(id=notice["id"], text=notice["text"])).decode())
