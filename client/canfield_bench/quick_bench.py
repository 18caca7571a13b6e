"""The quick-race benchmark: how long "Race now" takes to reach a race.

``canfield-race bench-quick`` starts a redis-server and two server
processes on it (their shipped defaults, but the per-address limits
lifted: every simulated player comes from this host), then lets
``--players`` newcomers arrive at random moments spread over
``--seconds``, alternating between the two processes. Each one connects
and identifies (not timed), sends ``quick`` and waits for ``started``:
the figure is the time from ``quick`` to ``started``, which holds the
wait for a second racer and the countdown (``CANFIELD_COUNTDOWN_S``, 3 s
as shipped), and the time from ``quick`` to ``joined`` (the server's own
work). A player still alone when the last one has arrived and every race
has started is counted as unmatched, not timed.

Every player is a newcomer (one rating band): this measures the queue
across processes, not the bands.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from canfield_cli.stats import percentile
from canfield_client.client import RaceClient

from .processes import local_servers

__all__ = ["QUICK_ENV", "format_quick", "run_quick"]

#: the shipped server, but every simulated player comes from one address
QUICK_ENV = {
    "CANFIELD_QUICK_BURST": "1000000",
    "CANFIELD_QUICK_PER_S": "1000000",
    "CANFIELD_HANDSHAKES_PER_IP_BURST": "1000000",
    "CANFIELD_HANDSHAKES_PER_IP_PER_S": "1000000",
    "CANFIELD_MAX_CONNS_PER_IP": "0",
    "CANFIELD_LOG_JSON": "false",
}
#: how long a player waits for ``started`` after the last arrival
LAST_WAIT_S = 30.0


@dataclass
class _Tally:
    joined_s: list[float] = field(default_factory=list)
    started_s: list[float] = field(default_factory=list)
    rooms: dict[str, int] = field(default_factory=dict)
    unmatched: int = 0
    failed: list[str] = field(default_factory=list)


async def _player(url: str, n: int, at: float, done: asyncio.Event, tally: _Tally) -> None:
    await asyncio.sleep(at)
    client = await RaceClient(url).connect()
    try:
        await client.identify(None)
        start = time.perf_counter()
        joined = await client.quick(f"P{n}", draw=3)
        tally.joined_s.append(time.perf_counter() - start)
        tally.rooms[joined.room] = tally.rooms.get(joined.room, 0) + 1
        started = asyncio.ensure_future(client.wait_started())
        ended = asyncio.ensure_future(done.wait())
        await asyncio.wait({started, ended}, return_when=asyncio.FIRST_COMPLETED)
        if started.done():
            tally.started_s.append(time.perf_counter() - start)
        else:
            tally.unmatched += 1
        for waiter in (started, ended):
            waiter.cancel()
    except Exception as exc:  # a figure with a failure beside it, not a crash
        tally.failed.append(f"P{n}: {exc!r}")
    finally:
        with contextlib.suppress(Exception):
            await client.close()


async def _run(urls: list[str], players: int, seconds: float, seed: int) -> _Tally:
    tally = _Tally()
    chance = random.Random(seed)
    arrivals = sorted(chance.uniform(0, seconds) for _ in range(players))
    done = asyncio.Event()
    tasks = [
        asyncio.ensure_future(_player(urls[n % len(urls)], n, at, done, tally))
        for n, at in enumerate(arrivals)
    ]
    await asyncio.wait(tasks, timeout=seconds + LAST_WAIT_S)  # each ends at its start
    done.set()  # the rest are alone: unmatched
    await asyncio.gather(*tasks)
    return tally


def run_quick(players: int = 50, seconds: float = 60.0, seed: int = 1) -> dict[str, Any]:
    """Start Redis and two servers, let the players arrive, return the figures."""
    with local_servers(2, QUICK_ENV, prefix="canfield-quick-") as (_, servers):
        tally = asyncio.run(_run([s.ws_url for s in servers], players, seconds, seed))
    sizes = sorted(tally.rooms.values())
    return {
        "players": players,
        "seconds": seconds,
        "processes": 2,
        "quick_to_joined_ms": _figures(tally.joined_s),
        "quick_to_started_ms": _figures(tally.started_s),
        "races": len(sizes),
        "racers_per_race": sizes,
        "unmatched": tally.unmatched,
        "failed": tally.failed[:5],
        "failures": len(tally.failed),
    }


def _figures(seconds: list[float]) -> dict[str, float | int | None]:
    ms = [s * 1000 for s in seconds]
    p50, p99 = percentile(ms, 50), percentile(ms, 99)
    return {
        "n": len(ms),
        "p50": round(p50, 1) if p50 is not None else None,
        "p99": round(p99, 1) if p99 is not None else None,
    }


def _sizes(sizes: list[int]) -> str:
    """``8 racers x 249, 7 racers x 1``: how full the races were, fullest first."""
    counted = Counter(sizes)
    return ", ".join(f"{n} racers x {counted[n]}" for n in sorted(counted, reverse=True))


def format_quick(out: dict[str, Any]) -> str:
    joined, started = out["quick_to_joined_ms"], out["quick_to_started_ms"]
    return "\n".join(
        [
            f"{out['players']} players arriving over {out['seconds']:g} s"
            f" across {out['processes']} server processes",
            f"quick -> joined:  p50 {joined['p50']} ms, p99 {joined['p99']} ms (n={joined['n']})",
            f"quick -> started: p50 {started['p50']} ms, p99 {started['p99']} ms"
            f" (n={started['n']}; the wait for a second racer and the countdown)",
            f"races {out['races']}, racers per race {_sizes(out['racers_per_race'])},"
            f" unmatched {out['unmatched']}, failures {out['failures']}",
        ]
    )
