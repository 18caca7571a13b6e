"""Background loops that cannot die unseen: restarted with backoff, logged, counted.

A server process runs a few loops for its whole life (the presence
heartbeat, the room bus, the deal pool's refill, the daily deals proven
ahead, the timer sweep). An exception that escapes one would end it
silently - an asyncio task's exception surfaces only when someone awaits
it - and with it, say, every room's presence. ``Supervised`` runs such a
loop in a task that logs the exception with its traceback, counts it in
``/metrics`` (``canfield_background_restarts_total{task=...}``) and
starts the loop again after a pause that doubles up to ``max_backoff_s``
(back to the first once a run has lasted ``healthy_s``). A loop that
returns is restarted the same way: these loops are meant to run forever.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from canfield_server.ops import metrics

__all__ = ["Supervised"]

log = logging.getLogger(__name__)


class Supervised:
    def __init__(
        self,
        name: str,
        run: Callable[[], Awaitable[None]],
        *,
        first_backoff_s: float = 0.1,
        max_backoff_s: float = 10.0,
        healthy_s: float = 30.0,
    ) -> None:
        self.name = name
        self.run = run
        self.first_backoff_s = first_backoff_s
        self.max_backoff_s = max_backoff_s
        self.healthy_s = healthy_s
        #: how many times the loop has been started again
        self.restarts = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> Supervised:
        if self._task is None or self._task.done():
            loop = asyncio.get_running_loop()
            self._task = loop.create_task(self._supervise(), name=self.name)
        return self

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            # wait for its end without taking its CancelledError for ours: a
            # cancel of the caller (a shutdown deadline) still reaches the caller
            await asyncio.wait({task})

    async def _supervise(self) -> None:
        loop = asyncio.get_running_loop()
        delay = self.first_backoff_s
        while True:
            began = loop.time()
            try:
                await self.run()
                log.error(
                    "background task failed: %s returned; restarting in %.2f s", self.name, delay
                )
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("background task failed: %s; restarting in %.2f s", self.name, delay)
            self.restarts += 1
            metrics.background_restart(self.name)
            if loop.time() - began >= self.healthy_s:
                delay = self.first_backoff_s
            await asyncio.sleep(delay)  # a backoff is a clock, not an event
            delay = min(delay * 2, self.max_backoff_s)
