"""Winnable-only deals, par and hints: the solver, kept off the event loop.

The solver is CPU-bound, so it runs in worker processes
(``ProcessPoolExecutor``); the event loop only awaits their answers.

* A pool of solver-proven deal codes per draw mode lives in Redis (a set
  of ``"<code> <par>"`` entries, ``keys.pool``), so a winnable-only room
  starts at once. A background task refills it up to ``target``; a short
  ``SET NX`` lock per mode keeps several server processes from solving
  for the same mode at once, and a cap check before each add keeps the
  set near its target.
* Par (the length of the solver's winning line) is remembered per deal
  code for a room lifetime (``keys.par``). A pool code brings its own; any
  other deal is solved in a worker from the start of its race, so the
  result is usually ready when the race ends (the end waits at most
  ``par_wait_s`` for it, else par is unknown).
* A hint is the solver's next move from a player's position.
* A review question (``decide``): whether a position of a finished race
  can still be won (``solving.reviews`` asks them, one job each).

What runs inside the workers is ``solving.worker``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor
from typing import Any, TypeVar

from canfield.review import Question, Verdict
from canfield.solver import SolveResult
from canfield_protocol import ErrorCode, ProtocolError
from redis.exceptions import RedisError

from canfield_server.ops import children
from canfield_server.ops.config import Settings
from canfield_server.ops.supervise import Supervised
from canfield_server.room.ports import Proven
from canfield_server.solving import worker
from canfield_server.solving.scheduler import POOL, Busy, FairScheduler
from canfield_server.storage import keys

__all__ = ["DRAW_MODES", "WALL_PER_CPU", "Proven", "DealPool", "solver_executor"]

log = logging.getLogger(__name__)

DRAW_MODES = (3, 1)

#: slack past a job's own limit: a busy machine
_MARGIN_S = 5.0
#: a job's own limit is processor time (the solver and the lesson read
#: ``time.process_time``): on cores other work shares, that much takes longer in
#: wall time, so the wall-clock guard allows this many times it (plus the margin)
WALL_PER_CPU = 3.0
#: the least time a hint gets however many askers share the workers
HINT_FLOOR_S = 0.1
#: how long a pool refill waits for its turn (it has no one waiting on it)
_POOL_WAIT_S = 60.0
#: a fresh worker process first starts and imports the engine (slow on a busy machine)
_STARTUP_S = 15.0

T = TypeVar("T")


def solver_executor(workers: int, niceness: int) -> ProcessPoolExecutor:
    """Worker processes started fresh (``spawn``): no copy of the server's
    event loop, sockets or threads ends up in a child. They start with the
    first job, or at start-up where the server keeps a pool (``start_workers``).

    Each worker dies with the server, even one killed by SIGKILL (Linux:
    ``children.die_with_parent``; a worker holds its own end of the job
    pipe, so it would never notice otherwise). The executor starts them
    from the thread submitting jobs, the event loop's. multiprocessing's
    resource tracker then exits too: it stops when the last process
    holding its pipe (the server, the workers) is gone.
    """
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=worker.lower_priority,
        initargs=(niceness, os.getpid()),
    )


# ---------------------------------------------------------------- in the server


class DealPool:
    """The server's door to the solver workers and the proven-deal pools in Redis."""

    def __init__(self, redis: Any, settings: Settings) -> None:
        self.redis = redis
        self.workers = settings.solver_workers
        self.niceness = settings.solver_niceness
        #: started lazily by the first job (no refill, no hint: no process)
        self.executor = solver_executor(self.workers, self.niceness)
        #: proven codes kept per draw mode
        self.target = settings.pool_target
        #: one solve for the pool: winnable deals are won in milliseconds, so a
        #: code not won by then is skipped rather than decided
        self.solve_timeout_s = settings.pool_solve_timeout_s
        #: codes tried when a pool is empty and a race must start now
        self.attempts = settings.pool_attempts
        #: one solve per code then (a pool solve may be shorter)
        self.demand_solve_s = settings.pool_demand_solve_s
        self.poll_s = settings.pool_poll_s
        self.par_timeout_s = settings.par_timeout_s
        self.par_wait_s = settings.par_wait_s
        self.max_par_solves = settings.max_par_solves
        self.hint_timeout_s = settings.hint_timeout_s
        self.ttl_s = settings.room_ttl_s
        self.hints_per_room = settings.hints_per_room
        self.hint_wait_s = settings.hint_wait_s
        #: whose turn it is at the workers (one slot per worker)
        self.scheduler = FairScheduler(self.workers)
        self._room_hints: dict[str, int] = {}
        self.owner = os.urandom(6).hex()
        self._wake = asyncio.Event()
        self.refiller = Supervised("deal-pool", self._refill_forever)
        self._pars: dict[str, asyncio.Task[int | None]] = {}
        self._hinting: set[str] = set()
        #: no job has come back from the current workers yet
        self._cold = True

    def _limit(self, timeout_s: float) -> float:
        """How long a job may take in wall time: its own limit (processor time) with
        room for cores shared, a margin, a worker's start (the scheduler never
        queues more jobs than there are workers)."""
        return timeout_s * WALL_PER_CPU + _MARGIN_S + _STARTUP_S * self._cold

    async def _work(
        self, owner: str, fn: Callable[..., T], *args: Any, timeout_s: float, wait_s: float
    ) -> T:
        """Run ``fn`` in a worker in ``owner``'s turn (``Busy`` if it does not come
        within ``wait_s``); ``TimeoutError`` past the job's own limit."""
        return await self.scheduler.run(
            owner, lambda: self._execute(fn, *args, timeout_s=timeout_s), wait_s
        )

    async def _execute(self, fn: Callable[..., T], *args: Any, timeout_s: float) -> T:
        """Run ``fn`` in a free worker.

        A worker that died (killed, out of memory) breaks the executor: the
        caller gets ``unavailable`` and the next job starts fresh workers.
        """
        loop = asyncio.get_running_loop()
        try:
            with children.deaf_to_ctrl_c():  # a worker may be started here
                future = loop.run_in_executor(self.executor, fn, *args)
            try:
                async with asyncio.timeout(self._limit(timeout_s)):
                    result = await asyncio.shield(future)
            except TimeoutError:
                self.scheduler.hold_until(future)  # the worker is still on it
                raise
        except BrokenExecutor:
            log.warning("solver workers died; starting new ones")
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.executor = solver_executor(self.workers, self.niceness)
            self._cold = True
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the solver restarted; try again") from None
        self._cold = False
        return result

    # ------------------------------------------------------------ pool

    async def size(self, draw: int) -> int:
        return int(await self.redis.scard(keys.pool(draw)))

    async def entries(self, draw: int) -> list[Proven]:
        return [Proven.from_entry(raw) for raw in await self.redis.smembers(keys.pool(draw))]

    async def refill(self, draw: int) -> int:
        """Prove codes until the pool holds ``target``; returns how many this call added.

        Gives up at once (returning what it added) when another process
        holds the mode's lock: that process is filling it.
        """
        added = 0
        lock = keys.pool_lock(draw)
        while await self.size(draw) < self.target:
            held_s = int(self._limit(self.solve_timeout_s)) + 1
            if not await self.redis.set(lock, self.owner, nx=True, ex=held_s):
                break
            try:
                found = await self._work(
                    POOL,
                    worker.prove_random,
                    draw,
                    self.solve_timeout_s,
                    1,
                    timeout_s=self.solve_timeout_s,
                    wait_s=_POOL_WAIT_S,
                )
                if found is not None and await self.size(draw) < self.target:
                    added += await self.redis.sadd(keys.pool(draw), Proven(*found).entry())
            finally:
                if await self.redis.get(lock) == self.owner.encode():
                    await self.redis.delete(lock)
        return added

    async def take(self, draw: int, room: str) -> Proven:
        """A proven code for ``room``'s race: from the pool, else solved now, one
        code per turn of the room's (bounded: ``attempts`` codes at most)."""
        raw = await self.redis.spop(keys.pool(draw))
        self._wake.set()
        if raw is not None:
            proven = Proven.from_entry(raw)
        else:
            found = None
            per_code = max(self.solve_timeout_s, self.demand_solve_s)
            for _ in range(self.attempts):
                with contextlib.suppress(TimeoutError, Busy):
                    found = await self._work(
                        room,
                        worker.prove_random,
                        draw,
                        per_code,
                        1,
                        timeout_s=per_code,
                        wait_s=per_code * self.attempts,
                    )
                if found is not None:
                    break
            if found is None:
                raise ProtocolError(
                    ErrorCode.UNAVAILABLE, "no proven winnable deal is ready; try again"
                )
            proven = Proven(*found)
        await self.remember_par(proven.code, proven.par)
        return proven

    async def put_back(self, draw: int, proven: Proven) -> None:
        """A taken code the race did not use (the start was refused)."""
        await self.redis.sadd(keys.pool(draw), proven.entry())

    async def prove(self, code: str, owner: str, timeout_s: float, wait_s: float) -> int | None:
        """Solve one given code in ``owner``'s turns (e.g. ``"daily"``): the length
        of its winning line, or None when the solver does not win it within
        ``timeout_s``; ``unavailable`` when no turn comes within ``wait_s``."""
        try:
            return await self._work(
                owner, worker.par, code, timeout_s, timeout_s=timeout_s, wait_s=wait_s
            )
        except TimeoutError:
            return None
        except Busy:
            raise ProtocolError(
                ErrorCode.UNAVAILABLE, "the solver is busy; try again in a moment"
            ) from None

    async def decide(
        self, owner: str, code: str, moves: Sequence[str], timeout_s: float, wait_s: float
    ) -> SolveResult:
        """Whether the position ``moves`` lead to from ``code`` can be won (take-backs
        searched), one bounded solve in ``owner``'s turn: ``Busy`` if the turn does
        not come within ``wait_s``, ``TimeoutError`` past the job's own limit."""
        return await self._work(
            owner, worker.decide, code, tuple(moves), timeout_s, timeout_s=timeout_s, wait_s=wait_s
        )

    async def teach(
        self, owner: str, verdict: Verdict, before: Question, timeout_s: float, wait_s: float
    ) -> Verdict:
        """``verdict`` taught (``canfield.lesson.teach``), one bounded job in
        ``owner``'s turn: ``Busy`` and ``TimeoutError`` as ``decide``."""
        return await self._work(
            owner, worker.teach, verdict, before, timeout_s, timeout_s=timeout_s, wait_s=wait_s
        )

    # ------------------------------------------------------------ par

    async def remember_par(self, code: str, par: int | None) -> None:
        """Keep a deal's par (or "unknown", as an empty value) for a room lifetime."""
        await self.redis.set(keys.par(code), "" if par is None else str(par), ex=self.ttl_s)

    async def par(self, code: str, room: str) -> int | None:
        """The solver's line length for ``code`` (None: unknown): remembered, or
        the solve under way, waited for at most ````par_wait_s``."""
        found = await self.redis.get(keys.par(code))
        if found is not None:
            return int(found) if found else None
        task = self.solve_par(code, room)
        if task is None:
            return None
        try:
            async with asyncio.timeout(self.par_wait_s):
                return await asyncio.shield(task)
        except TimeoutError:
            return None

    def solve_par(self, code: str, room: str) -> asyncio.Task[int | None] | None:
        """Start solving ``code``'s par in a worker, in ``room``'s turns (once per
        process at a time); None when too many solves are under way already."""
        task = self._pars.get(code)
        if task is None and len(self._pars) < self.max_par_solves:
            task = self._pars[code] = asyncio.ensure_future(self._solve_par(code, room))
            task.add_done_callback(lambda _: self._pars.pop(code, None))
        return task

    async def _solve_par(self, code: str, room: str) -> int | None:
        try:
            found = await self.redis.get(keys.par(code))
            if found is not None:
                return int(found) if found else None
            par = await self._work(
                room,
                worker.par,
                code,
                self.par_timeout_s,
                timeout_s=self.par_timeout_s,
                wait_s=self.par_wait_s + self.par_timeout_s * 4,
            )
            await self.remember_par(code, par)
            return par
        except (TimeoutError, Busy, RedisError, OSError) as exc:
            log.warning("par of %s unknown: %s", code, exc)
            return None

    # ------------------------------------------------------------ hints

    async def hint(
        self, room: str, who: str, position: dict[str, Any], shares: Sequence[str] = ()
    ) -> str | None:
        """The solver's next move from ``position`` (``Game.to_dict``), or None when
        it finds no win within its time; ``SolverBusy`` when it cannot answer in
        time ("no hint now").

        One hint at a time per player, and ``hints_per_room`` in the works per
        room and per share (``shares``: the asker's address, identity), each
        in the first share's turns (else the room's): neither one room nor one
        asker with many rooms can queue up the workers.
        """
        key = f"{room}:{who}"
        holders = list(dict.fromkeys([room, *shares]))
        if key in self._hinting:
            raise ProtocolError(ErrorCode.RATE_LIMITED, "one hint at a time")
        if any(self._room_hints.get(h, 0) >= self.hints_per_room for h in holders):
            raise Busy(f"{self.hints_per_room} hints of yours are in the works")
        self._hinting.add(key)
        for holder in holders:
            self._room_hints[holder] = self._room_hints.get(holder, 0) + 1

        async def job() -> str | None:
            # the time is split when the turn comes: with N askers waiting, each
            # hint may take 1/N of the limit (at least HINT_FLOOR_S), so nobody
            # waits for a crowd of full-length jobs
            contenders = self.scheduler.contenders()
            limit = max(min(HINT_FLOOR_S, self.hint_timeout_s), self.hint_timeout_s / contenders)
            return await self._execute(worker.hint_move, position, limit, timeout_s=limit)

        try:
            return await self.scheduler.run(shares[0] if shares else room, job, self.hint_wait_s)
        except TimeoutError:
            return None
        finally:
            self._hinting.discard(key)
            for holder in holders:
                left = self._room_hints.pop(holder) - 1
                if left:
                    self._room_hints[holder] = left

    # ------------------------------------------------------------ background

    def start(self) -> None:
        """Start refilling in the background (from the app's lifespan)."""
        self.refiller.start()

    async def start_workers(self) -> None:
        """Every worker started before the server listens (``children.start_pool``)."""
        await children.start_pool(self.executor, self.workers)

    async def close(self) -> None:
        await self.refiller.stop()
        for task in list(self._pars.values()):
            task.cancel()
        # a solve under way is abandoned, not awaited: stopping stays quick
        for process in list((getattr(self.executor, "_processes", None) or {}).values()):
            process.terminate()
        self.executor.shutdown(wait=False, cancel_futures=True)

    async def _refill_forever(self) -> None:
        while True:
            self._wake.clear()
            for draw in DRAW_MODES:
                try:
                    await self.refill(draw)
                except (RedisError, OSError, TimeoutError) as exc:
                    log.warning("deal pool refill (draw %d) paused: %s", draw, exc)
                except Exception:  # noqa: BLE001 - a broken worker must not end the server
                    log.exception("deal pool refill (draw %d) failed", draw)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_s):
                    await self._wake.wait()
