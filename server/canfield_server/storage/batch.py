"""Redis calls that come together share one pipeline (one round trip, one connection).

When a crowd leaves at once (a proxy restarts, a network blips), every
connection counts itself out of its room's presence. One call each would
ask the client's pool for hundreds of connections at the same moment; here
the calls made while a flush is on its way wait for the next one, so a
thousand departures cost a few round trips on one connection. A caller
adds its commands to the shared pipeline and gets back its own results.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

__all__ = ["PipelineBatch"]

#: commands one flush carries at most (the rest go in the next)
MAX_COMMANDS = 4096


class PipelineBatch:
    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self._queue: deque[tuple[Callable[[Any], int], asyncio.Future[list[Any]]]] = deque()
        self._flushing: asyncio.Task[None] | None = None

    async def run(self, build: Callable[[Any], int]) -> list[Any]:
        """``build(pipe)`` queues commands and returns how many; their results come back."""
        future: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self._queue.append((build, future))
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.get_running_loop().create_task(self._flush())
        return await future

    async def _flush(self) -> None:
        await asyncio.sleep(0)  # let the calls of this turn join in
        while self._queue:
            batch: list[tuple[int, asyncio.Future[list[Any]]]] = []
            commands = 0
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    while self._queue and commands < MAX_COMMANDS:
                        build, future = self._queue.popleft()
                        count = build(pipe)
                        commands += count
                        batch.append((count, future))
                    results = await pipe.execute(raise_on_error=False)
            except BaseException as exc:  # every waiter hears of it, nobody hangs
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            start = 0
            for count, future in batch:
                part = results[start : start + count]
                start += count
                if future.done():
                    continue
                error = next((r for r in part if isinstance(r, Exception)), None)
                if error is not None:
                    future.set_exception(error)
                else:
                    future.set_result(part)
