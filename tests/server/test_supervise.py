"""Background loops cannot die unseen (ops/supervise.py).

Promise: an exception that escapes a long-running loop is logged with its
traceback and counted in ``/metrics``, and the loop comes back after a
short backoff. A failure is injected into each of the server's loops - the
presence heartbeat, the timer sweep, the room bus, the deal pool's refill,
the daily deals proven ahead - at the top of the loop, outside its own error handling, and
each is seen working again afterwards. One room that is too busy to change
does not stop the heartbeat of the others.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from canfield_protocol import ErrorCode, Phase, ProtocolError, RoomSettings, RoomState
from canfield_server.ops import metrics
from canfield_server.ops.clock import SYSTEM, ManualClock
from canfield_server.ops.config import Settings
from canfield_server.ops.supervise import Supervised
from canfield_server.room.presence import Presence
from canfield_server.solving import daily_deal
from canfield_server.solving.daily_deal import DailyDealer
from canfield_server.solving.deal_pool import DealPool
from canfield_server.storage.pubsub import RedisBus

TIMEOUT = 10.0
FAST = {"first_backoff_s": 0.01, "max_backoff_s": 0.05}


def restarts(task: str) -> float:
    value = metrics.REGISTRY.get_sample_value("canfield_background_restarts_total", {"task": task})
    return value or 0.0


class Flaky:
    """Raises on its first ``failures`` calls, then counts calls and wakes a waiter."""

    def __init__(self, failures: int = 1) -> None:
        self.failures = failures
        self.calls = 0
        self.after = asyncio.Event()

    def __call__(self, *args: Any) -> None:
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError(f"injected failure {self.calls}")
        self.after.set()


async def test_a_failing_loop_is_logged_counted_and_started_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    flaky = Flaky(failures=2)

    async def run() -> None:
        flaky()
        await asyncio.Event().wait()  # then runs for good

    before = restarts("unit")
    loop = Supervised("unit", run, **FAST)
    with caplog.at_level(logging.ERROR, logger="canfield_server.ops.supervise"):
        loop.start()
        await asyncio.wait_for(flaky.after.wait(), TIMEOUT)
    assert loop.running and loop.restarts == 2
    assert restarts("unit") - before == 2
    failed = [r for r in caplog.records if "background task failed: unit" in r.getMessage()]
    assert len(failed) == 2 and all(r.exc_info for r in failed)  # with the traceback
    await loop.stop()
    assert not loop.running


async def test_a_loop_that_returns_is_started_again() -> None:
    runs = Flaky(failures=0)

    async def run() -> None:
        runs()
        if runs.calls >= 3:
            await asyncio.Event().wait()

    loop = Supervised("returns", run, **FAST).start()
    async with asyncio.timeout(TIMEOUT):
        while runs.calls < 3:
            await asyncio.sleep(0.01)
    assert loop.restarts == 2
    await loop.stop()


class FakeStore:
    """The heartbeat's side of the store: nobody is live."""

    presence_stale_ms = 0

    def __init__(self, live: dict[str, set[str]]) -> None:
        self.live = live

    async def beat(self, due: dict[str, int]) -> dict[str, set[str]]:
        return {code: self.live[code] for code in due}


class FakeSession:
    state = RoomState(room="R", phase=Phase.LOBBY, host_id="", settings=RoomSettings(), members=[])


class FakeRooms:
    """The part of ``Rooms`` the heartbeat reads."""

    storage_errors = (OSError,)
    clock = SYSTEM

    def __init__(self, codes: list[str]) -> None:
        self.store = FakeStore(dict.fromkeys(codes, set()))
        self.settings = Settings(presence_s=0.01, timer_sweep_s=0.01)
        self.sessions = {code: FakeSession() for code in codes}


def presence_over(codes: list[str]) -> Presence:
    presence = Presence(FakeRooms(codes), None, None)  # type: ignore[arg-type]
    presence.heartbeat.first_backoff_s = presence.sweeper.first_backoff_s = 0.01
    return presence


async def test_the_heartbeat_and_the_sweep_come_back_after_a_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    presence = presence_over(["ROOM42"])
    beats, sweeps = Flaky(), Flaky()

    async def beat(codes: list[str] | None = None) -> None:
        beats()

    async def sweep() -> int:
        sweeps()
        return 0

    monkeypatch.setattr(presence, "beat", beat)
    monkeypatch.setattr(presence, "sweep", sweep)
    presence.start()
    await asyncio.wait_for(beats.after.wait(), TIMEOUT)
    await asyncio.wait_for(sweeps.after.wait(), TIMEOUT)
    assert presence.heartbeat.restarts == 1 and presence.heartbeat.running
    assert presence.sweeper.restarts == 1 and presence.sweeper.running
    await presence.stop()


async def test_a_room_too_busy_never_stops_the_beat_of_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    presence = presence_over(["BUSY22", "CALM33", "ODD444"])
    judged: list[str] = []

    async def judge(code: str, live: set[str], before: set[str]) -> None:
        judged.append(code)
        if code == "BUSY22":
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the room is too busy; try again")
        if code == "ODD444":
            raise RuntimeError("an unexpected one")

    monkeypatch.setattr(presence, "_judge", judge)
    presence.start()
    async with asyncio.timeout(TIMEOUT):
        while judged.count("CALM33") < 3:
            await asyncio.sleep(0.01)
    assert presence.heartbeat.restarts == 0  # the loop itself never failed
    await presence.stop()


class FakePubSub:
    """A pub/sub link whose reads fail once (not a Redis error), then deliver."""

    def __init__(self, flaky: Flaky, inbox: asyncio.Queue[dict[str, Any]]) -> None:
        self.flaky, self.inbox, self.subscribed = flaky, inbox, False

    async def subscribe(self, *channels: str) -> None:
        self.subscribed = True

    async def unsubscribe(self, *channels: str) -> None:
        pass

    async def get_message(self, timeout: float) -> dict[str, Any] | None:
        self.flaky()
        try:
            return await asyncio.wait_for(self.inbox.get(), timeout)
        except TimeoutError:
            return None

    async def aclose(self) -> None:
        pass


class FakeRedis:
    def __init__(self, flaky: Flaky) -> None:
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.flaky = flaky
        self.links = 0

    def pubsub(self, **options: Any) -> FakePubSub:
        self.links += 1
        return FakePubSub(self.flaky, self.inbox)


async def test_the_room_bus_comes_back_resyncs_and_delivers() -> None:
    flaky = Flaky()
    redis = FakeRedis(flaky)
    events: list[tuple[str, bytes]] = []
    resynced = asyncio.Event()

    async def resync() -> None:
        resynced.set()

    bus = RedisBus(redis)  # type: ignore[arg-type]
    bus.loop.first_backoff_s = 0.01
    bus.start(lambda code, data: events.append((code, data)), resync)
    await bus.subscribe("ROOM42")
    await asyncio.wait_for(resynced.wait(), TIMEOUT)  # back: a new link, rooms resynced
    assert bus.loop.restarts == 1 and redis.links >= 2
    await redis.inbox.put({"type": "message", "channel": b"cf:{ROOM42}:events", "data": b"x"})
    async with asyncio.timeout(TIMEOUT):
        while not events:
            await asyncio.sleep(0.01)
    assert events == [("ROOM42", b"x")]
    await bus.stop()


async def test_the_deal_pool_refill_comes_back(monkeypatch: pytest.MonkeyPatch) -> None:
    pool = DealPool(None, Settings(pool_poll_s=0.01, pool_target=1))
    pool.refiller.first_backoff_s = 0.01
    flaky = Flaky()
    refilled = asyncio.Event()

    async def refill(draw: int) -> None:
        refilled.set()

    monkeypatch.setattr(pool._wake, "clear", flaky)  # the loop's first step fails once
    monkeypatch.setattr(pool, "refill", refill)
    pool.start()
    await asyncio.wait_for(refilled.wait(), TIMEOUT)
    assert pool.refiller.restarts == 1 and pool.refiller.running
    await pool.close()


async def test_a_stop_that_lands_as_the_loop_wakes_still_stops_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The refill loop is woken and stopped in the same tick (SIGTERM as a solve
    ends): the stop must not be lost, or the server's shutdown waits forever."""
    pool = DealPool(None, Settings(pool_poll_s=60, pool_target=1))
    refilled = asyncio.Event()

    async def refill(draw: int) -> None:
        refilled.set()

    monkeypatch.setattr(pool, "refill", refill)
    pool.start()
    await asyncio.wait_for(refilled.wait(), TIMEOUT)
    await asyncio.sleep(0.01)  # into its wait for the next wake
    pool._wake.set()
    async with asyncio.timeout(TIMEOUT):  # close() runs now, in the wake's tick
        await pool.close()
    assert not pool.refiller.running


async def test_the_daily_deals_ahead_come_back(monkeypatch: pytest.MonkeyPatch) -> None:
    dealer = DailyDealer(None, None, Settings(daily_ahead_every_s=0.01))  # type: ignore[arg-type]
    dealer.ahead.first_backoff_s = 0.01
    flaky = Flaky()
    real_today = daily_deal.today
    proven = asyncio.Event()

    def today(override: str | None = None, at_ms: int | None = None) -> str:
        flaky()
        return real_today(override, at_ms)

    async def deal(date: str, draw: int) -> str:
        proven.set()
        return "CF2-D3-X"

    monkeypatch.setattr(daily_deal, "today", today)
    monkeypatch.setattr(dealer, "deal", deal)
    dealer.start()
    await asyncio.wait_for(proven.wait(), TIMEOUT)
    assert dealer.ahead.restarts == 1 and dealer.ahead.running
    await dealer.close()


async def test_the_daily_deals_ahead_run_on_the_dealers_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Today's and tomorrow's deals are proven at the start; nothing more until the
    wait between rounds has passed on the dealer's clock; a day on, the next day's."""
    clock = ManualClock()
    dealer = DailyDealer(None, None, Settings(daily_ahead_every_s=86_400), clock=clock)  # type: ignore[arg-type]
    asked: list[tuple[str, int]] = []

    async def deal(date: str, draw: int) -> str:
        asked.append((date, draw))
        return "CF2-D3-X"

    monkeypatch.setattr(dealer, "deal", deal)
    day = daily_deal.today(None, clock.now_ms())
    dealer.start()
    await clock.settle()
    first = {date for date, _ in asked}
    assert first == {day, daily_deal.day_after(day)}
    await clock.advance(86_400 - 1)
    assert {date for date, _ in asked} == first  # the wait has not passed
    await clock.advance(1)
    later = daily_deal.day_after(daily_deal.day_after(day))
    assert {date for date, _ in asked} == first | {later}
    await dealer.close()


async def test_a_part_that_hangs_or_fails_at_shutdown_never_keeps_the_rest_open(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from canfield_server.transport import app

    monkeypatch.setattr(app, "CLOSE_PART_S", 0.05)
    closed: list[str] = []

    async def hangs() -> None:
        await asyncio.Event().wait()

    async def fails() -> None:
        raise RuntimeError("injected")

    async def closes() -> None:
        closed.append("store")

    async with asyncio.timeout(TIMEOUT):
        await app.close_in_turn(("the solver", hangs), ("the bus", fails), ("the store", closes))
    assert closed == ["store"]
    assert "the solver did not close within 0.05 s" in caplog.text
    assert "closing the bus failed" in caplog.text
