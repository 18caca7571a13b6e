"""``RoomBus`` over a ``MemoryBackend``'s pub/sub (``storage.pubsub``'s twin)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from canfield_server.storage.memory.backend import MemoryBackend

__all__ = ["MemoryBus"]


async def _nothing() -> None:
    pass


class MemoryBus:
    """``RoomBus`` over a ``MemoryBackend``'s pub/sub."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.backend = backend
        self.rooms: set[str] = set()
        self.on_event: Callable[[str, bytes], None] = lambda code, payload: None
        self.on_resync: Callable[[], Awaitable[None]] = _nothing

    def start(
        self, on_event: Callable[[str, bytes], None], on_resync: Callable[[], Awaitable[None]]
    ) -> None:
        self.on_event, self.on_resync = on_event, on_resync

    async def stop(self) -> None:
        for code in list(self.rooms):
            await self.unsubscribe(code)

    async def subscribe(self, code: str) -> None:
        self.rooms.add(code)
        self.backend.subscribers.setdefault(code, set()).add(self)

    async def unsubscribe(self, code: str) -> None:
        self.rooms.discard(code)
        self.backend.subscribers.get(code, set()).discard(self)

    async def publish(self, code: str, payload: bytes) -> None:
        self.backend.publish(code, payload)

    def deliver(self, code: str, payload: bytes) -> None:
        if code in self.rooms:
            self.on_event(code, payload)
