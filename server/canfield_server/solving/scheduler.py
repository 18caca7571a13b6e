"""Fair turns at the solver workers: no room can hold them for long.

Each job belongs to an owner (an asker's address, a room, or the pool of
proven deals). Jobs wait in one queue per owner and get a free worker slot
in turns: the owner served longest ago goes next (a newcomer counts as
served when it first asks), and the pool takes every other turn while
it has work, so hints can never starve the pool nor the pool the rooms.
Every job is capped in time (the solver stops itself at its limit), so a
room's new request waits at most for the jobs already running, one per
slot, before it is its turn. A job that waits past its own wait limit is
not run at all (``Busy``): "no hint now" beats an answer that comes late.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from canfield_server.room.ports import SolverBusy

__all__ = ["POOL", "Busy", "FairScheduler"]

T = TypeVar("T")

#: the owner of the jobs that keep the proven-deal pool filled
POOL = "pool"


class Busy(SolverBusy):
    """The workers were busy with others' turns for longer than this job may wait."""


class FairScheduler:
    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.running = 0
        #: owner -> its waiting jobs (each a future set when its turn comes)
        self._queues: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()
        self._pool_turn = True
        #: owner -> the turn number it was last served at (the longest unserved goes next)
        self._served: dict[str, float] = {}
        self._turns = 0

    def contenders(self) -> int:
        """Owners with jobs waiting, and the one whose turn it is: how many share
        the workers now (at least 1)."""
        return len(self._queues) + 1

    def waiting(self, owner: str) -> int:
        return len(self._queues.get(owner, ()))

    def queued(self) -> dict[str, int]:
        """Jobs waiting, per owner (the console's solver queue)."""
        return {owner: len(queue) for owner, queue in self._queues.items()}

    async def run(self, owner: str, job: Callable[[], Awaitable[T]], wait_s: float) -> T:
        """Run ``job`` in ``owner``'s turn; ``Busy`` if the turn does not come
        within ``wait_s``."""
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queues.setdefault(owner, deque()).append(turn)
        # a newcomer counts as served just before the latest turn: it goes ahead
        # of the owner served last, but behind every owner that has waited
        # longer, so a crowd of new askers cannot all go before a bystander
        self._served.setdefault(owner, self._turns - 0.5)
        self._dispatch()
        try:
            async with asyncio.timeout(wait_s):
                await asyncio.shield(turn)
        except BaseException as exc:  # out of time, or the asker stopped (cancelled)
            if turn.done() and not turn.cancelled():
                self._release()  # the turn came just as the wait ended: give it back
            else:
                self._forget(owner, turn)  # never dispatched to nobody, holding a slot
            if isinstance(exc, TimeoutError):
                raise Busy(f"the solver is busy; waited {wait_s:g} s") from None
            raise
        try:
            return await job()
        finally:
            self._release()

    def hold_until(self, work: asyncio.Future[Any]) -> None:
        """Keep a slot taken until ``work`` is done: a job whose caller stopped
        waiting (a worker slowed by a loaded machine) still holds its worker, and
        a job dispatched now would only queue behind it unseen."""
        self.running += 1
        work.add_done_callback(lambda _: self._release())

    def _release(self) -> None:
        self.running -= 1
        self._dispatch()

    def _forget(self, owner: str, turn: asyncio.Future[None]) -> None:
        queue = self._queues.get(owner)
        if queue is not None and turn in queue:
            queue.remove(turn)
            if not queue:
                del self._queues[owner]
        turn.cancel()

    def _dispatch(self) -> None:
        while self.running < self.slots and self._queues:
            owner = self._next_owner()
            queue = self._queues[owner]
            turn = queue.popleft()
            if not queue:
                del self._queues[owner]
            if turn.done():
                continue
            self._turns += 1
            self._served[owner] = self._turns
            if len(self._served) > 4 * len(self._queues) + 64:  # forget owners long gone
                self._served = {o: n for o, n in self._served.items() if o in self._queues}
            self.running += 1
            turn.set_result(None)

    def _next_owner(self) -> str:
        rooms = [owner for owner in self._queues if owner != POOL]
        if POOL in self._queues and (self._pool_turn or not rooms):
            self._pool_turn = False
            return POOL
        self._pool_turn = True
        return min(rooms, key=lambda owner: self._served.get(owner, 0))
