"""The process's one supervised beat, on a manual clock: each part ticks on its
own cadence, Redis out of reach pauses one tick, and a stop strikes each part
from what it published."""

from __future__ import annotations

from canfield_server.ops.clock import ManualClock
from canfield_server.transport.beat import Beat
from redis.exceptions import ConnectionError as RedisConnectionError


class Part:
    def __init__(self, name: str, every_s: float, first_s: float, clock: ManualClock) -> None:
        self.name, self.every_s, self.first_s, self.clock = name, every_s, first_s, clock
        self.ticks: list[float] = []
        self.fail_next = False
        self.forgotten = False

    async def tick(self) -> None:
        if self.fail_next:
            self.fail_next = False
            raise RedisConnectionError("Redis is down")
        self.ticks.append(self.clock.monotonic())

    async def forget(self) -> None:
        self.forgotten = True


async def test_each_part_ticks_on_its_cadence_and_an_outage_pauses_one_tick() -> None:
    clock = ManualClock(start_ms=0)
    fast = Part("fast", 1.0, 0.0, clock)
    slow = Part("slow", 3.0, 3.0, clock)
    beat = Beat([fast, slow], clock)
    beat.start()
    try:
        await clock.advance(6.5)
        assert fast.ticks == [0, 1, 2, 3, 4, 5, 6]
        assert slow.ticks == [3, 6]  # first one beat after the start
        fast.fail_next = True
        await clock.advance(2.0)
        assert fast.ticks[-2:] == [6, 8]  # 7 was lost to the outage; the loop lives on
        assert beat.loop.restarts == 0
    finally:
        await beat.stop()
    assert fast.forgotten and slow.forgotten
