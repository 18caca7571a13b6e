"""The arena benchmark: how soon a racer who finishes is racing again.

``canfield-race bench-arena --racers N --minutes M`` starts a redis-server
and two server processes on it (their shipped arena settings, the
per-address limits lifted: every racer comes from this host), makes a
private arena (15 minutes, the shortest), seats ``N`` racers in it,
alternating between the processes, each a bot playing at ``--pace`` seconds
a move, driven by ``--workers`` bench processes (the bots' own work is no
small load), and lets them race heat after heat for ``M`` minutes; then the
host ends it and waits for its end.

Figures: the time from a racer's finish (their race in a heat over) to their
next heat's ``started`` (p50/p99: the waiting for company, the tick that
forms the heat, the seating and the countdown), the heats' sizes, the share
of racers who ever waited longer than the bound (``CANFIELD_ARENA_GATHER_S``:
the most a racer waits while others wait, plus two ticks, the seat wait and
the countdown; a heat is never of one, and with this many racers nobody
waits alone), and what scoring a
finished heat into the standing costs (ms, from the servers' own
``/metrics``; Redis calls per heat).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import random
import re
import resource
import time
import urllib.request
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from canfield_cli.stats import percentile
from canfield_client.arena import race_arena
from canfield_client.client import RaceClient
from canfield_client.strategy import Strategy

from .bench import cpu_seconds, run_queue_seconds
from .processes import local_servers
from .quick_bench import QUICK_ENV

__all__ = ["format_arena", "run_arena"]

#: the shipped arena settings (``ops/config.py``) a wait is judged against
GATHER_S, TICK_S, SEAT_WAIT_S, COUNTDOWN_S = 3.0, 1.0, 3.0, 3.0
BOUND_S = GATHER_S + 2 * TICK_S + SEAT_WAIT_S + COUNTDOWN_S


#: one racer's timeline (``race_arena``'s ``timing``)
Timing = list[tuple[str, float, int, str]]


async def _racer(url: str, code: str, n: int, pace_s: float, timing: Timing) -> None:
    client = await RaceClient(url, reply_timeout=60).connect()
    try:
        await client.identify(None)
        strategy = Strategy("normal", random.Random(n))
        await race_arena(client, code, f"R{n}", strategy, pace_s=pace_s, timing=timing)
    finally:
        with contextlib.suppress(Exception):
            await client.close()


async def _racers(
    urls: list[str], code: str, numbers: list[int], pace_s: float
) -> tuple[list[Timing], list[str]]:
    timings: list[Timing] = [[] for _ in numbers]
    outcomes = await asyncio.gather(
        *(_racer(urls[n % len(urls)], code, n, pace_s, timings[i]) for i, n in enumerate(numbers)),
        return_exceptions=True,
    )
    return timings, [repr(o) for o in outcomes if isinstance(o, BaseException)]


def _worker(
    urls: list[str], code: str, numbers: list[int], pace_s: float
) -> tuple[list[Timing], list[str]]:
    """One bench worker process: its share of the racers, until the arena is over.
    (Monotonic times are the machine's, so they compare across processes.)"""
    return asyncio.run(_racers(urls, code, numbers, pace_s))


async def _run(
    urls: list[str], racers: int, minutes: float, pace_s: float, workers: int
) -> dict[str, Any]:
    host = await RaceClient(urls[0], reply_timeout=60).connect()
    await host.identify(None)
    made = await host.arena_create("Bench", "Host", minutes=15)
    code = made.arena.code
    await host.arena_leave()  # the host only ends it
    loop = asyncio.get_running_loop()
    shares = [list(range(w, racers, workers)) for w in range(workers)]
    context = multiprocessing.get_context("spawn")
    before, began = _children_cpu(), time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        jobs = [
            loop.run_in_executor(pool, _worker, urls, code, share, pace_s)
            for share in shares
            if share
        ]
        await asyncio.sleep(minutes * 60)
        await host.arena_watch(code)
        await host.arena_end()
        done = await asyncio.gather(*jobs, return_exceptions=True)
    bench_cpu = (_children_cpu() - before) / (time.perf_counter() - began)
    await host.close()
    timings: list[Timing] = []
    failed: list[str] = []
    for outcome in done:
        if isinstance(outcome, BaseException):
            failed.append(repr(outcome))
        else:
            timings += outcome[0]
            failed += outcome[1]
    waits, seated, alone, sizes = [], [], 0, {}
    for timing in timings:
        over_bound = False
        for n, (kind, at, _, _) in enumerate(timing):
            if kind != "done":
                continue
            after: dict[str, float] = {}
            for later, then, _, _ in timing[n + 1 :]:
                after[later] = then  # the last joined before the next started
                if later in ("started", "done"):
                    break
            if "started" in after:
                waits.append(after["started"] - at)
                seated.append(after.get("joined", after["started"]) - at)
                over_bound = over_bound or after["started"] - at > BOUND_S
        alone += over_bound
        sizes.update({room: size for kind, _, size, room in timing if kind == "started"})
    return {
        "waits": waits,
        "seated": seated,
        "alone": alone,
        "sizes": list(sizes.values()),
        "failed": failed,
        "bench_cpu": bench_cpu,
    }


def _children_cpu() -> float:
    """CPU seconds of this process's children that have ended (the bench workers,
    once the pool is shut)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _scraped(url: str) -> tuple[float, float, float]:
    """(seconds spent scoring heats, heats scored, Redis calls) from one server."""
    with urllib.request.urlopen(url + "/metrics", timeout=10) as response:
        text = response.read().decode()

    def value(name: str) -> float:
        found = re.search(rf"^{name} ([0-9.e+-]+)$", text, re.MULTILINE)
        return float(found.group(1)) if found else 0.0

    return (
        value("canfield_arena_heat_scored_seconds_sum"),
        value("canfield_arena_heat_scored_seconds_count"),
        value("canfield_arena_heat_redis_calls_total"),
    )


def run_arena(
    racers: int = 50, minutes: float = 2.0, pace_s: float = 0.2, workers: int = 2
) -> dict[str, Any]:
    """Start Redis and two servers, race the arena from ``workers`` processes of
    racers, return the figures (with each server's CPU use and the machine's load,
    which a shared machine makes part of the result)."""
    began = time.perf_counter()
    load_before = os.getloadavg()[0]
    with local_servers(2, QUICK_ENV, prefix="canfield-arena-") as (_, servers):
        pids = [s.pid for s in servers if s.pid]
        cpu0 = [cpu_seconds(pid) or 0.0 for pid in pids]
        wait0 = [run_queue_seconds(pid) or 0.0 for pid in pids]
        raced_from = time.perf_counter()
        tally = asyncio.run(_run([s.ws_url for s in servers], racers, minutes, pace_s, workers))
        wall = time.perf_counter() - raced_from
        cpu = [(cpu_seconds(pid) or 0.0) - c for pid, c in zip(pids, cpu0, strict=True)]
        starved = [(run_queue_seconds(p) or 0.0) - w for p, w in zip(pids, wait0, strict=True)]
        scraped = [_scraped(s.http_url) for s in servers]
    load_after = os.getloadavg()[0]
    spent, heats, calls = (sum(part) for part in zip(*scraped, strict=True))
    waits_ms = [w * 1000 for w in tally["waits"]]
    p50, p99 = percentile(waits_ms, 50), percentile(waits_ms, 99)
    seated_ms = [w * 1000 for w in tally["seated"]]
    s50, s99 = percentile(seated_ms, 50), percentile(seated_ms, 99)
    return {
        "racers": racers,
        "minutes": minutes,
        "pace_s": pace_s,
        "processes": 2,
        "workers": workers,
        "finish_to_next_started_ms": {
            "n": len(waits_ms),
            "p50": round(p50) if p50 is not None else None,
            "p99": round(p99) if p99 is not None else None,
        },
        "finish_to_next_joined_ms": {
            "p50": round(s50) if s50 is not None else None,
            "p99": round(s99) if s99 is not None else None,
        },
        #: racers in a heat -> heats of that size
        "heat_sizes": dict(sorted(Counter(tally["sizes"]).items(), reverse=True)),
        "bound_s": BOUND_S,
        "racers_over_bound": tally["alone"],
        "heats_scored": int(heats),
        "score_ms_per_heat": round(spent * 1000 / heats, 2) if heats else None,
        "redis_calls_per_heat": round(calls / heats, 1) if heats else None,
        "server_cpu_pct": [round(100 * c / wall) for c in cpu],
        #: each server's time ready to run but waiting for a core (a starved server)
        "server_cpu_wait_pct": [round(100 * w / wall) for w in starved],
        "bench_workers_cpu_pct": round(100 * tally["bench_cpu"]),
        "load_average": [round(load_before, 1), round(load_after, 1)],
        "failures": len(tally["failed"]),
        "failed": tally["failed"][:5],
        "wall_s": round(time.perf_counter() - began),
    }


def format_arena(out: dict[str, Any]) -> str:
    waits, seated = out["finish_to_next_started_ms"], out["finish_to_next_joined_ms"]
    sizes = ", ".join(f"{n} x {heats}" for n, heats in out["heat_sizes"].items())
    share = out["racers_over_bound"] / max(1, out["racers"])
    return "\n".join(
        [
            f"{out['racers']} racers, {out['minutes']:g} min, {out['pace_s']:g} s a move,"
            f" {out['processes']} server processes",
            f"finish -> next heat's started: p50 {waits['p50']} ms, p99 {waits['p99']} ms"
            f" (n={waits['n']}); to its joined (seated): p50 {seated['p50']} ms,"
            f" p99 {seated['p99']} ms",
            f"heat sizes (racers x heats): {sizes}",
            f"racers ever waiting over the bound ({out['bound_s']:g} s): {out['racers_over_bound']}"
            f" ({share:.1%})",
            f"standing update per finished heat: {out['score_ms_per_heat']} ms,"
            f" {out['redis_calls_per_heat']} Redis calls ({out['heats_scored']} heats)",
            f"server CPU (% of a core, each process): {out['server_cpu_pct']},"
            f" waiting for a core {out['server_cpu_wait_pct']};"
            f" {out['workers']} bench workers {out['bench_workers_cpu_pct']}%;"
            f" load average {out['load_average'][0]:g} before, {out['load_average'][1]:g} after",
            f"failures {out['failures']}",
        ]
    )
