"""Small stand-ins for ``asyncio.Event`` and ``asyncio.Queue``, kept per connection.

Every idle connection holds a few of these for as long as it is open. The
asyncio ones carry a ``collections.deque`` each for their waiters (an empty
deque is about 600 bytes: its first block is allocated up front), and a
``Queue`` three deques and an ``Event``: about 3 KB per connection for objects
that, on a connection, only ever have one waiter. These keep a list (or one
future) instead, made when somebody waits (docs/performance.md, "Idle
connections").
"""

from __future__ import annotations

import asyncio
from typing import Generic, TypeVar

__all__ = ["Flag", "Inbox"]

T = TypeVar("T")


class Flag:
    """``asyncio.Event``'s ``set``, ``clear``, ``is_set`` and ``wait``, with no
    deque: the waiters' futures in a list made when the first one waits."""

    __slots__ = ("_value", "_waiters")

    def __init__(self, value: bool = False) -> None:
        self._value = value
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._value

    def set(self) -> None:
        if self._value:
            return
        self._value = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._value = False

    async def wait(self) -> None:
        if self._value:
            return
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)


class Inbox(Generic[T]):
    """The part of ``asyncio.Queue`` a connection's reader uses (``put_nowait``,
    ``get``, ``empty``; unbounded, one reader at a time), over a list."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[T] = []
        self._waiter: asyncio.Future[None] | None = None

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)

    def put_nowait(self, item: T) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> T:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.pop(0)
