"""A bounded soak: bots racing in many rooms, rooms coming and going, memory flat.

``ROOMS`` rooms race at once: a host (a ``RaceClient`` playing with the
bot strategy) and two ``run_bot`` bots, ``RACES`` races with rematches,
then the room is left and a new one is made, until ``CANFIELD_SOAK_S``
seconds (default 40) are over. Zero errors anywhere, nothing left behind
on the server, and its resident memory after warm-up grows by less than
a generous bound. Run longer with ``CANFIELD_SOAK_S=600``.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
import traceback
import urllib.request
from dataclasses import dataclass, field

import pytest
from canfield_client.bot import race_once, run_bot
from canfield_client.client import RaceClient
from canfield_client.strategy import Strategy
from canfield_protocol import Rematch, encode

from tests.conftest import ServerFactory
from tests.reliability.conftest import FAST_ENV

SOAK_S = float(os.environ.get("CANFIELD_SOAK_S", "40"))
ROOMS = int(os.environ.get("CANFIELD_SOAK_ROOMS", "12"))
RACES = 2
PACE_S = 0.02
#: generous waits (to connect, for a reply, for the room): this test runs beside
#: the rest of the suite on 2 cores, at a load of 20 at times
WAIT_S = 60.0
#: real limits except the rooms one address (this test) may create
SOAK_ENV = {
    **FAST_ENV,
    "CANFIELD_MAX_OPEN_ROOMS_PER_IP": "0",
    "CANFIELD_MAX_NEW_ROOMS_PER_IP_PER_MIN": "0",
    "CANFIELD_JOINS_PER_IP_BURST": "100000",
}


@dataclass
class Totals:
    rooms: int = 0
    races: int = 0
    actions: int = 0
    errors: list[str] = field(default_factory=list)


async def room_life(url: str, slot: int, totals: Totals, rng: random.Random) -> None:
    """One room from creation to everyone leaving: ``RACES`` races with rematches."""
    async with RaceClient(url, open_timeout=WAIT_S, reply_timeout=WAIT_S) as host:
        await host.create(f"Host {slot}")
        assert host.room is not None
        bots = [
            asyncio.create_task(
                run_bot(
                    url,
                    host.room,
                    f"Bot {j}",
                    pace_s=PACE_S,
                    strength="easy",
                    races=RACES,
                    seed=rng.randrange(2**32),
                    reply_timeout=WAIT_S,
                )
            )
            for j in (1, 2)
        ]
        await host.wait_room(lambda s: len(s.members) == 3, timeout=WAIT_S)
        strategy = Strategy("easy", rng)
        for race in range(RACES):
            if race:
                assert host.ws is not None
                await host.ws.send(encode(Rematch()).decode())
                await host.wait_room(lambda s: s.phase == "lobby", timeout=WAIT_S)
            await host.start(force=True)
            await host.wait_started(WAIT_S)
            await race_once(host, strategy, PACE_S, rng)
            finished = await host.wait_finished(120)
            totals.races += 1
            totals.actions += sum(len(moves) for moves in finished.replays.values())
        assert await asyncio.gather(*bots) == [RACES, RACES]
    totals.rooms += 1


async def slot_loop(url: str, slot: int, deadline: float, totals: Totals) -> None:
    rng = random.Random(slot)
    while time.monotonic() < deadline:
        try:
            await room_life(url, slot, totals, rng)
        except Exception as exc:  # noqa: BLE001 - every failure is counted and shown
            where = traceback.extract_tb(exc.__traceback__)[-3:]  # which wait, when one ran out
            at = " < ".join(f"{f.name}:{f.lineno}" for f in reversed(where))
            totals.errors.append(f"{type(exc).__name__}: {exc} (at {at})")


def gauge(http_url: str, name: str) -> float | None:
    """One unlabelled value from the process's /metrics, if it has the route."""
    try:
        with urllib.request.urlopen(http_url + "/metrics", timeout=5) as resp:
            text = resp.read().decode()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return None


@pytest.mark.timeout(SOAK_S * 2 + 120)  # a long soak outlives the suite's default timeout
async def test_bots_in_many_rooms_for_a_while_zero_errors_and_flat_memory(
    server_factory: ServerFactory,
) -> None:
    srv = server_factory(env=SOAK_ENV)
    rss_start = srv.rss_mb()
    totals = Totals()
    began = time.monotonic()
    deadline = began + SOAK_S
    load = asyncio.gather(*(slot_loop(srv.ws_url, s, deadline, totals) for s in range(ROOMS)))
    series: list[float] = []
    while not load.done():  # RSS every tenth of the run, for the report
        await asyncio.wait({load}, timeout=SOAK_S / 10)
        series.append(round(srv.rss_mb() or 0.0, 1))
    await load
    rss_warm = series[min(2, len(series) - 1)]  # after ~a third: warm-up is a span of time
    elapsed = time.monotonic() - began
    rss_end = srv.rss_mb()
    print(
        f"\nsoak: {elapsed:.0f} s, {ROOMS} rooms at once, {totals.rooms} rooms made, "
        f"{totals.races} races, {totals.actions} board actions, {len(totals.errors)} errors; "
        f"server RSS start {rss_start:.1f} MB, after warm-up {rss_warm:.1f} MB, "
        f"end {rss_end:.1f} MB; every {SOAK_S / 10:.0f} s: {series}"
    )
    assert totals.errors == []
    assert totals.races >= ROOMS * RACES  # every slot got through at least one room
    assert rss_start and rss_warm and rss_end
    assert rss_end - rss_warm < max(16.0, 0.25 * rss_warm)
    log = srv.log_path.read_text(errors="replace")
    assert "Traceback" not in log and "handler failed" not in log
    # everyone left: nothing kept (the last leaves finish after the clients' closes)
    for name in ("canfield_rooms", "canfield_connected_clients"):
        assert await settled(srv.http_url, name) in (None, 0.0), name


async def settled(http_url: str, name: str, within_s: float = 5.0) -> float | None:
    """A gauge's value once it reads 0, or its last value after ``within_s``."""
    end = time.monotonic() + within_s
    while True:
        value = gauge(http_url, name)
        if value in (None, 0.0) or time.monotonic() > end:
            return value
        await asyncio.sleep(0.05)  # another process's state: polled, no event to await
