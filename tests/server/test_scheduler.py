"""The solver's fair turns, sans I/O: jobs are plain coroutines here."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from canfield_server.solving.scheduler import POOL, Busy, FairScheduler


class Jobs:
    """Jobs that finish when the test says so, recording the order they ran in."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.gates: dict[str, asyncio.Event] = {}
        self.running = 0
        self.most = 0

    def job(self, name: str) -> Callable[[], Awaitable[str]]:
        gate = self.gates[name] = asyncio.Event()

        async def run() -> str:
            self.started.append(name)
            self.running += 1
            self.most = max(self.most, self.running)
            await gate.wait()
            self.running -= 1
            return name

        return run

    async def finish(self, name: str) -> None:
        while name not in self.started:
            await asyncio.sleep(0)
        self.gates[name].set()


async def test_a_room_with_many_requests_does_not_delay_another_rooms_beyond_one_job() -> None:
    scheduler, jobs = FairScheduler(slots=1), Jobs()
    busy_room = [
        asyncio.ensure_future(scheduler.run("A", jobs.job(f"A{i}"), wait_s=60)) for i in range(6)
    ]
    await asyncio.sleep(0)
    bystander = asyncio.ensure_future(scheduler.run("B", jobs.job("B0"), wait_s=60))
    await jobs.finish("A0")  # the job already running when B asked
    await jobs.finish("B0")  # B goes next, ahead of A's five waiting jobs
    assert await bystander == "B0"
    assert jobs.started[:2] == ["A0", "B0"]
    for i in range(1, 6):
        await jobs.finish(f"A{i}")
    assert await asyncio.gather(*busy_room) == [f"A{i}" for i in range(6)]
    assert jobs.most == 1  # never more jobs than slots


async def test_the_pool_takes_every_other_turn_and_rooms_cannot_starve_it() -> None:
    scheduler, jobs = FairScheduler(slots=1), Jobs()
    first = asyncio.ensure_future(scheduler.run("A", jobs.job("A0"), wait_s=60))
    await asyncio.sleep(0)
    others = [
        asyncio.ensure_future(scheduler.run("A", jobs.job(f"A{i}"), wait_s=60)) for i in (1, 2)
    ]
    pool = [
        asyncio.ensure_future(scheduler.run(POOL, jobs.job(f"P{i}"), wait_s=60)) for i in (0, 1)
    ]
    for name in ("A0", "P0", "A1", "P1", "A2"):
        await jobs.finish(name)
    await asyncio.gather(first, *others, *pool)
    assert jobs.started == ["A0", "P0", "A1", "P1", "A2"]


async def test_a_job_whose_turn_does_not_come_in_time_is_busy_and_never_runs() -> None:
    scheduler, jobs = FairScheduler(slots=1), Jobs()
    holder = asyncio.ensure_future(scheduler.run("A", jobs.job("A0"), wait_s=60))
    await asyncio.sleep(0)
    with pytest.raises(Busy):
        await scheduler.run("B", jobs.job("B0"), wait_s=0.05)
    assert scheduler.waiting("B") == 0
    await jobs.finish("A0")
    await holder
    assert "B0" not in jobs.started
    assert await asyncio.wait_for(scheduler.run("B", _done, wait_s=1), 5) == "done"


async def _done() -> str:
    return "done"


async def test_a_job_given_up_on_keeps_its_slot_until_its_worker_is_done() -> None:
    """A caller stops waiting (its worker slowed by a loaded machine): the next
    job waits for the worker, not behind it in the executor's own queue."""
    scheduler = FairScheduler(slots=1)
    worker: asyncio.Future[object] = asyncio.get_running_loop().create_future()

    async def abandoned() -> None:
        scheduler.hold_until(worker)
        raise TimeoutError

    with pytest.raises(TimeoutError):
        await scheduler.run("A", abandoned, wait_s=60)
    assert scheduler.running == 1  # the worker is still on A's job
    jobs = Jobs()
    waiting = asyncio.ensure_future(scheduler.run("B", jobs.job("B0"), wait_s=60))
    await asyncio.sleep(0)
    assert jobs.started == []
    worker.set_result(None)
    await jobs.finish("B0")
    assert await waiting == "B0" and scheduler.running == 0


async def test_an_asker_who_stops_waiting_leaves_no_slot_taken() -> None:
    """A hint asker whose task is cancelled (it left, the server stops) while it
    waits for its turn: the turn is not handed to nobody, holding a worker."""
    scheduler, jobs = FairScheduler(slots=1), Jobs()
    holder = asyncio.ensure_future(scheduler.run("A", jobs.job("A0"), wait_s=60))
    await asyncio.sleep(0)
    gone = asyncio.ensure_future(scheduler.run("B", jobs.job("B0"), wait_s=60))
    await asyncio.sleep(0)
    gone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone
    await jobs.finish("A0")
    await holder
    assert scheduler.running == 0 and scheduler.waiting("B") == 0
    assert await asyncio.wait_for(scheduler.run("C", _done, wait_s=1), 5) == "done"
    assert "B0" not in jobs.started
