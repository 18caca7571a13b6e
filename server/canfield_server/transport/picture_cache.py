"""PNG previews kept and paid for within bounds.

Painting one preview costs about 0.1 s of CPU (``picture.png``); a shared link
is fetched by every app that shows it, so each picture is painted once and
kept (``ENTRIES`` of them, about 150 KB each, the least recently served
dropped first). Painting runs in a worker thread, ``AT_ONCE`` at a time, so the
event loop keeps serving races; past ``WAITING`` paintings waiting their turn,
a request is told to come back (None: the caller answers 503 with
``Retry-After``) instead of queueing CPU work without end.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Hashable

__all__ = ["PictureCache", "ENTRIES", "AT_ONCE", "WAITING"]

ENTRIES = 64
AT_ONCE = 1
WAITING = 8


class PictureCache:
    """Painted pictures by key, at most ``entries``; at most ``at_once`` painted
    at a time and ``waiting`` more waiting their turn."""

    def __init__(self, entries: int = ENTRIES, at_once: int = AT_ONCE, waiting: int = WAITING):
        self.entries = entries
        self.waiting = waiting
        self._kept: OrderedDict[Hashable, bytes] = OrderedDict()
        self._turns = asyncio.Semaphore(at_once)
        self._queued = 0

    def __len__(self) -> int:
        return len(self._kept)

    async def get(self, key: Hashable, paint: Callable[[], bytes]) -> bytes | None:
        """The picture for ``key``: the kept one, else ``paint()`` run in a thread
        and kept; None when too many are waiting to be painted."""
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
            return found
        if self._queued >= self.waiting:
            return None
        self._queued += 1
        try:
            async with self._turns:
                found = self._kept.get(key)  # painted while this one waited
                if found is None:
                    found = await asyncio.to_thread(paint)
                    self._kept[key] = found
                    while len(self._kept) > self.entries:
                        self._kept.popitem(last=False)
                return found
        finally:
            self._queued -= 1
