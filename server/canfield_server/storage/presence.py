"""Who is connected, surviving crashes: a heartbeat per process and room.

Each process counts its own connections in the room's presence hash and
beats every ``period_s`` for the rooms it serves. A member counts as
connected while some process with a fresh beat holds a connection of
theirs; a process that was SIGKILLed stops beating, so after three
periods its members show ``disconnected`` (unless they resumed
elsewhere), and its stale counts are removed.
"""

from __future__ import annotations

import asyncio
import logging

from canfield_protocol import ProtocolError
from redis.exceptions import RedisError

from canfield_server.ops.supervise import Supervised
from canfield_server.room.registry import Rooms
from canfield_server.storage.store import RedisStore

__all__ = ["PresenceKeeper"]

log = logging.getLogger(__name__)


class PresenceKeeper:
    def __init__(self, rooms: Rooms, store: RedisStore, period_s: float) -> None:
        self.rooms = rooms
        self.store = store
        self.period_s = period_s
        store.presence_stale_ms = int(period_s * 3 * 1000)
        self.loop = Supervised("presence", self._run)

    def start(self) -> None:
        self.loop.start()

    async def stop(self) -> None:
        await self.loop.stop()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.period_s)  # a heartbeat is a clock, not an event
            for code in list(self.rooms.sessions):
                # one room's trouble (Redis, a room too busy to change) never
                # stops the beat of the others
                try:
                    await self.beat(code)
                except (RedisError, OSError, ProtocolError) as exc:
                    log.warning("presence beat for %s failed: %s", code, exc)
                except Exception:
                    log.exception("presence beat for %s failed", code)

    async def beat(self, code: str) -> None:
        live = await self.store.beat(code)
        session = self.rooms.sessions.get(code)
        if session is None:
            return
        for member in session.state.members:
            if member.connected != (member.id in live):
                await self.rooms.set_connected(code, member.id, member.id in live)
