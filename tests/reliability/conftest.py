"""Reliability-test helpers on top of the server tests' real websockets client.

The raw ``Client`` (and the ``connect`` fixture that closes every one at
teardown) comes from ``tests/server/conftest.py``; the lobby, start and
play steps from ``tests/server/helpers.py``. What is added here:
settings for servers that let a flood through, a room-snapshot helper
for "nothing changed", and a websocket open that may be refused.
"""

from __future__ import annotations

import asyncio
import json
import resource
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import websockets

from tests.server.conftest import (  # noqa: F401 - fixtures re-exported for this folder
    FAST_ENV,
    TIMEOUT,
    Client,
    connect,
    fast_server,
    line_of_play,
    line_of_play_fixture,
    same_board,
    same_board_fixture,
)
from tests.server.helpers import DEAL, healthz, lobby, play, start

__all__ = [
    "DEAL",
    "FAST_ENV",
    "OPEN_ENV",
    "Client",
    "healthz",
    "lobby",
    "play",
    "start",
    "line_of_play",
    "same_board",
    "seat_snapshot",
    "open_raw",
    "Recorder",
]

#: no rate limit and no rooms-per-address cap: for tests that send a lot on purpose
OPEN_ENV = {
    **FAST_ENV,
    "CANFIELD_RATE_PER_S": "1000000",
    "CANFIELD_RATE_BURST": "1000000",
    "CANFIELD_MAX_OPEN_ROOMS_PER_IP": "0",
    "CANFIELD_MAX_NEW_ROOMS_PER_IP_PER_MIN": "0",
    "CANFIELD_JOINS_PER_IP_BURST": "1000000",
}


async def seat_snapshot(url: str, room: str, token: str) -> dict[str, Any]:
    """What a seat looks like to its owner right now (resume on a fresh socket).

    ``server_time`` fields are dropped: everything else must be equal when
    nothing happened to the room.
    """
    async with websockets.connect(url, open_timeout=TIMEOUT) as ws:
        client = Client(ws)
        joined = await client.resume(room, token)
        assert joined["type"] == "joined", joined
        seen: dict[str, Any] = {"last_seq": joined["last_seq"], "state": joined["state"]}
        if joined["state"]["phase"] == "racing":
            seen["board"] = (await client.expect("board"))["board"]
            seen["leaderboard"] = (await client.expect("leaderboard"))["rows"]
    return _without_clock(seen)


def _without_clock(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_clock(v) for k, v in value.items() if k != "server_time"}
    if isinstance(value, list):
        return [_without_clock(v) for v in value]
    return value


async def open_raw(url: str, **kwargs: Any) -> websockets.ClientConnection:
    """A websockets connection with this folder's timeout (``kwargs``: headers...)."""
    return await websockets.connect(url, open_timeout=TIMEOUT, **kwargs)


class Recorder:
    """A websockets client that keeps every frame it receives, in order, as sent.

    Tests that must see *everything* a client was sent (hidden cards, tokens)
    read ``frames`` (raw text) once the client is done; ``request`` and
    ``wait_for`` look at the parsed copies without consuming anything.
    """

    def __init__(self, ws: websockets.ClientConnection) -> None:
        self.ws = ws
        self.frames: list[str] = []
        self.messages: list[dict[str, Any]] = []
        self._arrived = asyncio.Condition()
        self._reader = asyncio.create_task(self._read())
        self.joined: dict[str, Any] = {}

    @classmethod
    async def open(cls, url: str) -> Recorder:
        return cls(await websockets.connect(url, open_timeout=TIMEOUT))

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                assert isinstance(text, str), "the server sends text frames only"
                self.frames.append(text)
                self.messages.append(json.loads(text))
                async with self._arrived:
                    self._arrived.notify_all()
        except websockets.ConnectionClosed:
            pass

    async def send(self, **msg: Any) -> None:
        await self.ws.send(json.dumps(msg))

    async def wait_for(
        self, where: Callable[[dict[str, Any]], bool], start: int = 0
    ) -> dict[str, Any]:
        """The first message from index ``start`` on that matches ``where``."""
        async with asyncio.timeout(TIMEOUT), self._arrived:
            while True:
                end = len(self.messages)
                for msg in self.messages[start:end]:
                    if where(msg):
                        return msg
                start = end
                await self._arrived.wait()

    async def request(self, kind: str, **msg: Any) -> dict[str, Any]:
        """Send and return the first later message of type ``kind`` or ``error``."""
        start = len(self.messages)
        await self.send(**msg)
        return await self.wait_for(lambda m: m["type"] in (kind, "error"), start)

    async def enter(self, kind: str, **msg: Any) -> dict[str, Any]:
        """create / join / resume: the ``joined`` reply (or the error), remembered."""
        reply = await self.request("joined", type=kind, **msg)
        if reply["type"] == "joined":
            self.joined = reply
        return reply

    async def close(self) -> None:
        await self.ws.close()
        await self._reader


@pytest.fixture
def enough_descriptors() -> Iterator[None]:
    """This process opens ~450 sockets at once: raise its soft limit if it is low."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 2048 if hard == resource.RLIM_INFINITY else min(hard, 2048)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    yield
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
