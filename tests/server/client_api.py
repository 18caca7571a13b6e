"""What a test does with a client, written once for both kinds of client.

The real WebSocket ``Client`` (``conftest.py``) and the in-process
``HubClient`` (``inprocess.py``) each say how a frame goes out (``send``)
and how the next one comes in before a deadline (``_next``); waiting for a
message, a request and its reply, and taking a seat are the same on both.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

__all__ = ["ClientApi", "TIMEOUT"]

#: real seconds a test waits for a message before it fails: generous, since on a
#: busy machine a server's first solver worker alone can take seconds to start
TIMEOUT = 30.0


class ClientApi:
    def __init__(self) -> None:
        #: every message received, in order
        self.log: list[dict[str, Any]] = []
        #: the last ``joined`` (or the refusal of the last seat asked for)
        self.joined: dict[str, Any] = {}

    async def send(self, **msg: Any) -> None:
        raise NotImplementedError

    async def _next(self, deadline: float) -> dict[str, Any]:
        """The next message (logged); ``TimeoutError`` past ``deadline`` (loop time)."""
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    async def expect(
        self,
        kind: str,
        where: Callable[[dict[str, Any]], bool] = lambda m: True,
        timeout: float = TIMEOUT,
    ) -> dict[str, Any]:
        """The next message of type ``kind`` (matching ``where``); others are logged."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            msg = await self._next(deadline)
            if msg["type"] == kind and where(msg):
                return msg

    async def request(self, kind: str, **msg: Any) -> dict[str, Any]:
        """Send and await the reply: ``kind`` or an error, whichever comes first."""
        await self.send(**msg)
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while True:
            reply = await self._next(deadline)
            if reply["type"] in (kind, "error"):
                return reply

    async def create(self, name: str, **settings: Any) -> dict[str, Any]:
        self.joined = await self.request("joined", type="create", name=name, settings=settings)
        return self.joined

    async def join(self, room: str, name: str, role: str = "player") -> dict[str, Any]:
        self.joined = await self.request("joined", type="join", room=room, name=name, role=role)
        return self.joined

    async def resume(self, room: str, token: str) -> dict[str, Any]:
        self.joined = await self.request("joined", type="resume", room=room, token=token)
        return self.joined
