"""The server's clock: every timestamp on the wire and in Redis is epoch ms.

The room logic reads the time and sets its timers through a ``Clock``
handed to it at construction: ``SYSTEM`` in a server, a ``ManualClock``
in tests, which moves only when told to (a 30-second time limit runs out
in a millisecond, and nothing depends on how busy the machine is).
"""

from __future__ import annotations

import asyncio
import datetime
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Any, Protocol

__all__ = [
    "Timer",
    "Clock",
    "SystemClock",
    "SYSTEM",
    "ManualClock",
    "now_ms",
    "today",
    "day_before",
    "day_after",
    "is_date",
]


def now_ms() -> int:
    """The wall clock in epoch ms (``SYSTEM.now_ms``)."""
    return int(time.time() * 1000)


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now_ms(self) -> int:
        """The wall clock, epoch ms: what timestamps on the wire and in storage are."""
        ...

    def monotonic(self) -> float:
        """Seconds that never go back: for intervals and pacing."""
        ...

    def call_later(self, delay_s: float, callback: Callable[..., object], *args: Any) -> Timer:
        """Run ``callback(*args)`` in ``delay_s`` seconds, unless cancelled."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The real clock and the running event loop's timers."""

    # the functions themselves: a move reads the clock, no frame in between
    now_ms = staticmethod(now_ms)
    monotonic = staticmethod(time.monotonic)

    def call_later(self, delay_s: float, callback: Callable[..., object], *args: Any) -> Timer:
        return asyncio.get_running_loop().call_later(delay_s, callback, *args)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


SYSTEM: Clock = SystemClock()


class _ManualTimer:
    __slots__ = ("due_ms", "callback", "args", "cancelled")

    def __init__(self, due_ms: float, callback: Callable[..., object], args: tuple[Any, ...]):
        self.due_ms, self.callback, self.args = due_ms, callback, args
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that moves only when ``advance`` is awaited; its timers fire in
    order of their due time as it passes them, each seeing that time as now.

    Between timers it lets the event loop run what is ready (a few turns of
    ``asyncio.sleep(0)``), so the work a timer spawns is done before the next
    fires: enough for logic over in-memory adapters, which never wait on I/O.
    """

    #: event-loop turns given to ready work at each step
    TURNS = 50

    def __init__(self, start_ms: int = 1_800_000_000_000) -> None:
        self._ms = float(start_ms)
        self._timers: list[tuple[float, int, _ManualTimer]] = []
        self._order = itertools.count()

    def now_ms(self) -> int:
        return int(self._ms)

    def monotonic(self) -> float:
        return self._ms / 1000

    def call_later(self, delay_s: float, callback: Callable[..., object], *args: Any) -> Timer:
        timer = _ManualTimer(self._ms + max(0.0, delay_s) * 1000, callback, args)
        heapq.heappush(self._timers, (timer.due_ms, next(self._order), timer))
        return timer

    async def sleep(self, seconds: float) -> None:
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not woken.done():
                woken.set_result(None)

        self.call_later(seconds, wake)
        await woken

    def pending(self) -> int:
        """Timers set and not cancelled, due or not."""
        return sum(1 for _, _, timer in self._timers if not timer.cancelled)

    async def settle(self) -> None:
        """Let the event loop run what is ready now."""
        for _ in range(self.TURNS):
            await asyncio.sleep(0)

    async def jump(self) -> bool:
        """Move on to the next timer and fire it (and any due with it); False when
        no timer is set (time alone would bring nothing)."""
        while self._timers and self._timers[0][2].cancelled:
            heapq.heappop(self._timers)
        if not self._timers:
            return False
        await self.advance((self._timers[0][0] - self._ms) / 1000)
        return True

    async def advance(self, seconds: float) -> None:
        """Move ``seconds`` on, firing every timer that falls due on the way."""
        target = self._ms + seconds * 1000
        await self.settle()
        while self._timers and self._timers[0][0] <= target:
            due, _, timer = heapq.heappop(self._timers)
            if timer.cancelled:
                continue
            self._ms = max(self._ms, due)
            timer.callback(*timer.args)
            await self.settle()
        self._ms = max(self._ms, target)
        await self.settle()


def today(override: str | None = None, at_ms: int | None = None) -> str:
    """The UTC date, ``YYYY-MM-DD``, now or at ``at_ms`` (``override``: a fixed
    date, e.g. ``CANFIELD_DAILY_DATE`` in tests)."""
    if override:
        return datetime.date.fromisoformat(override).isoformat()
    seconds = time.time() if at_ms is None else at_ms / 1000
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).date().isoformat()


def day_before(date: str) -> str:
    return (datetime.date.fromisoformat(date) - datetime.timedelta(days=1)).isoformat()


def day_after(date: str) -> str:
    return (datetime.date.fromisoformat(date) + datetime.timedelta(days=1)).isoformat()


def is_date(text: str) -> bool:
    """Is ``text`` a real calendar date written ``YYYY-MM-DD`` in ASCII digits?
    (``2020-13-45`` is not; nor is ``٢٠٢٦-١٢-٠١``, which ``fromisoformat`` takes.)"""
    if len(text) != 10 or not text.isascii():
        return False
    try:
        return datetime.date.fromisoformat(text).isoformat() == text
    except ValueError:
        return False
