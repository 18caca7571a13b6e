"""The process's beat: one supervised loop for the work a process does on a clock.

Each part (``process_beat``: the process's entry in the console, the
operator's notice and drain request; ``figures_beat``: its figures; the
hub's ``RoundTrips``: the racers' round-trip probes) says
how often it ticks and how long before its first tick; the loop ticks each
when it is due, on the ``Clock`` it is given. Redis out of reach pauses a
part until its next tick (logged); anything else restarts the loop
(``ops.supervise``). At stop each part is struck from the console's lists.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from canfield_server.ops.clock import Clock
from canfield_server.ops.supervise import Supervised
from canfield_server.storage.errors import STORAGE_ERRORS

__all__ = ["BeatPart", "Beat"]

log = logging.getLogger(__name__)


class BeatPart(Protocol):
    #: what the logs call it
    name: str
    #: seconds between ticks, and before the first one
    every_s: float
    first_s: float

    async def tick(self) -> None: ...

    async def forget(self) -> None:
        """At stop: take this process out of what the part published."""


class Beat:
    def __init__(self, parts: Sequence[BeatPart], clock: Clock) -> None:
        self.parts = list(parts)
        self.clock = clock
        self.loop = Supervised("process-beat", self._run)

    def start(self) -> None:
        self.loop.start()

    async def stop(self) -> None:
        await self.loop.stop()
        for part in self.parts:
            try:
                await part.forget()
            except STORAGE_ERRORS as exc:
                log.warning("%s not struck from the console's list: %s", part.name, exc)

    async def _run(self) -> None:
        start = self.clock.monotonic()
        due = [start + part.first_s for part in self.parts]
        while True:
            for i, part in enumerate(self.parts):
                now = self.clock.monotonic()
                if due[i] > now:
                    continue
                due[i] = now + part.every_s
                try:
                    await part.tick()
                except STORAGE_ERRORS as exc:
                    log.warning("%s paused: %s", part.name, exc)
            wait_s = min(due) - self.clock.monotonic()
            await self.clock.sleep(max(0.0, wait_s))  # a beat is a clock, not an event
