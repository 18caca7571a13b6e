"""Room events across processes: one Redis pub/sub connection per process.

redis-py's asyncio ``PubSub`` does not reconnect; this loop does. After a
reconnect it resubscribes every room and asks the hub to resync them
from Redis, since events published meanwhile are lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from redis.asyncio import Redis, RedisCluster
from redis.exceptions import RedisError

from canfield_server.ops import metrics
from canfield_server.ops.supervise import Supervised
from canfield_server.storage import keys

__all__ = ["RedisBus"]

log = logging.getLogger(__name__)


def _room_of(channel: bytes) -> str:
    # cf:{CODE}:events
    text = channel.decode()
    return text[text.index("{") + 1 : text.index("}")]


async def _nothing() -> None:
    pass


class RedisBus:
    """Built before the hub (which subscribes rooms through it); ``start`` hands
    it the hub's handlers."""

    def __init__(self, redis: Redis | RedisCluster) -> None:
        self.redis = redis
        self.on_event: Callable[[str, bytes], None] = lambda code, payload: None
        self.on_resync: Callable[[], Awaitable[None]] = _nothing
        self.rooms: set[str] = set()
        self._pubsub = redis.pubsub(ignore_subscribe_messages=True)
        self._wanted = asyncio.Event()
        self.loop = Supervised("room-bus", self._run)

    def start(
        self, on_event: Callable[[str, bytes], None], on_resync: Callable[[], Awaitable[None]]
    ) -> None:
        """Deliver each room event to ``on_event(room, payload)``; after a lost
        link, ``on_resync()`` (events published meanwhile are lost)."""
        self.on_event, self.on_resync = on_event, on_resync
        self.loop.start()

    async def stop(self) -> None:
        await self.loop.stop()
        try:
            await self._pubsub.aclose()
        except (RedisError, OSError):
            pass

    async def subscribe(self, code: str) -> None:
        try:
            await self._pubsub.subscribe(keys.channel(code))
        except (RedisError, OSError):
            log.warning("subscribe %s failed; the bus will resubscribe", code)
        # only now: a loop that saw the room while its SUBSCRIBE was on its way
        # would take the link for lost, and drop it with the subscription
        self.rooms.add(code)
        self._wanted.set()

    async def unsubscribe(self, code: str) -> None:
        self.rooms.discard(code)
        try:
            await self._pubsub.unsubscribe(keys.channel(code))
        except (RedisError, OSError):
            pass

    async def publish(self, code: str, payload: bytes) -> None:
        await self.redis.publish(keys.channel(code), payload)

    async def _run(self) -> None:
        delay = 0.05
        if self.loop.restarts:  # back after a failure: a fresh link, and events missed
            await self._reconnect(0.0)
        while True:
            if not self.rooms:
                self._wanted.clear()
                await self._wanted.wait()
                continue
            if not self._pubsub.subscribed:
                await self._reconnect(delay)
                delay = min(delay * 2, 2.0)
                continue
            try:
                message = await self._pubsub.get_message(timeout=1.0)
                delay = 0.05
            except (RedisError, OSError) as exc:
                metrics.redis_error("pubsub")
                log.warning("room bus lost Redis (%s); reconnecting", exc)
                await self._reconnect(delay)
                delay = min(delay * 2, 2.0)
                continue
            if message is None or message.get("type") != "message":
                continue
            try:
                self.on_event(_room_of(message["channel"]), message["data"])
            except Exception:  # one bad event must not stop the bus
                log.exception("room event failed")

    async def _reconnect(self, delay: float) -> None:
        await asyncio.sleep(delay)  # back off before hammering a Redis that is down
        try:
            await self._pubsub.aclose()
        except (RedisError, OSError):
            pass
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        try:
            if self.rooms:
                await self._pubsub.subscribe(*(keys.channel(c) for c in self.rooms))
            await self.on_resync()
        except (RedisError, OSError) as exc:
            log.warning("room bus still cannot reach Redis: %s", exc)
