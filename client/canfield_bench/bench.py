"""The benchmark: start (or target) servers, run load from worker processes, report.

One run measures the race server and then, with the same load generator
and the same player count, the bare baseline (``canfield-race baseline``:
a WebSocket echo with one Redis script call per frame) against the same
Redis, so "ours / baseline" compares like with like on one machine at one
moment. Everything it starts is a ``canfield-race`` command in its own
process (``redis``, ``serve``, ``baseline``; see ``processes.py``). Servers
it starts get limits that let the load through (the rate limiter and the
rooms-per-address cap are for abuse, not for a benchmark).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue as queue_mod
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from canfield_cli.stats import percentile

from .flame import PySpy, flame_svg, read_collapsed
from .flame import summary as top_summary
from .loadgen import Job, WorkerResult, run_worker
from .processes import BaselineProcess, cpu_hog, local_servers, rss_mb

__all__ = ["BenchConfig", "PhaseResult", "run_bench", "percentile", "format_table"]

#: settings for servers the benchmark starts itself
BENCH_ENV = {
    "CANFIELD_RATE_PER_S": "1000000",
    "CANFIELD_RATE_BURST": "1000000",
    "CANFIELD_MAX_OPEN_ROOMS_PER_IP": "0",
    "CANFIELD_MAX_NEW_ROOMS_PER_IP_PER_MIN": "0",
    # every simulated player comes from this one address
    "CANFIELD_JOINS_PER_IP_BURST": "1000000",
    "CANFIELD_MAX_CONNS_PER_IP": "0",
    "CANFIELD_COUNTDOWN_S": "0.2",
    "CANFIELD_LOG_JSON": "false",
    # no solver worker filling the winnable-deal pool beside the measured load
    "CANFIELD_POOL_TARGET": "0",
    # every simulated daily player is a new identity: ranked, so the standing
    # measured is the one people see (fair play holds new identities out)
    "CANFIELD_DAILY_RANKED_AFTER_DAYS": "0",
}


@dataclass
class BenchConfig:
    players: int = 200
    rooms: int = 20
    seconds: float = 10.0
    warmup_s: float = 1.0
    #: total target moves/s; None: closed loop (as fast as acks come back)
    rate: float | None = None
    #: ws:// URLs of running servers; empty: start ``processes`` servers
    servers: list[str] = field(default_factory=list)
    processes: int = 1
    workers: int = 2
    baseline: bool = True
    #: idle mode: this many connected players in lobbies, no moves
    idle: int = 0
    #: pids of targeted servers, to read their memory
    server_pids: list[int] = field(default_factory=list)
    appendfsync: str = "always"
    #: with ``servers``: the Redis they use, so the baseline can run against it
    redis_url: str | None = None
    #: daily mode: this many simulated daily players, each starting today's daily
    #: race once at a random moment of the window, giving up after a few draws
    #: (its result) and reading the standing
    daily: int = 0
    #: other work on the box: one process spinning on a CPU through both phases
    contend: bool = False
    #: write a flame graph of the (first) server process during its phase here
    #: (``<path>.svg``, the collapsed stacks ``<path>.txt``; needs py-spy)
    profile: Path | None = None


@dataclass
class PhaseResult(WorkerResult):
    """Merged worker results of one load phase (``wid`` unused)."""

    urls: list[str] = field(default_factory=list)
    seconds: float = 1.0
    rss_mb: dict[int, float] = field(default_factory=dict)
    #: CPU seconds each server process used inside the window
    cpu_s: dict[int, float] = field(default_factory=dict)
    #: seconds its event loop was ready to run but waited for a CPU
    wait_s: dict[int, float] = field(default_factory=dict)
    #: CPU seconds the Redis server used inside the window (when the bench started it)
    redis_cpu_s: float | None = None
    #: CPU seconds of the load generator processes inside the window
    loadgen_cpu_s: float | None = None
    #: CPU seconds the whole box was busy inside the window (every core, /proc/stat)
    box_cpu_s: float | None = None

    def merge(self, part: WorkerResult) -> None:
        for server, count in part.acked.items():
            self.acked[server] = self.acked.get(server, 0) + count
        for server, samples in part.ack_ms.items():
            self.ack_ms.setdefault(server, []).extend(samples)
        self.leaderboard_ms.extend(part.leaderboard_ms)
        self.sent += part.sent
        self.acked_total += part.acked_total
        self.errors += part.errors
        self.error_samples.extend(part.error_samples)
        self.players += part.players
        self.stopped_players += part.stopped_players
        self.results += part.results
        self.finished += part.finished
        self.standing_ms.extend(part.standing_ms)
        self.daily_start_ms.extend(part.daily_start_ms)

    @property
    def moves_per_s(self) -> float:
        return sum(self.acked.values()) / self.seconds

    def all_ack_ms(self) -> list[float]:
        return [x for samples in self.ack_ms.values() for x in samples]


def _split(total: int, parts: int) -> list[int]:
    parts = max(1, min(parts, total)) if total else 1
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def _run_phase(
    mode: str,
    urls: list[str],
    cfg: BenchConfig,
    pids: list[int],
    on_ready: Callable[[], None] | None = None,
    progress: Callable[[str], None] | None = None,
    redis_pid: int | None = None,
) -> PhaseResult:
    """Run one load phase in ``cfg.workers`` processes and merge the results."""
    if progress is not None:
        outer = progress

        def progress(text: str) -> None:
            outer(f"{mode}: {text}")

    ctx = multiprocessing.get_context("spawn")
    messages = ctx.Queue()
    go = ctx.Event()
    start_at = ctx.Value("d", 0.0)
    players = cfg.idle if mode == "idle" else cfg.players
    rooms = max(1, cfg.rooms if mode != "idle" else -(-players // 10))
    per_room = max(1, players // rooms)
    if mode == "daily":
        jobs = [
            Job(
                wid=i,
                mode=mode,
                urls=urls,
                rooms=0,
                players_per_room=0,
                seconds=cfg.seconds,
                warmup_s=cfg.warmup_s,
                daily_players=count,
            )
            for i, count in enumerate(_split(cfg.daily, cfg.workers))
            if count
        ]
    else:
        jobs = [
            Job(
                wid=i,
                mode=mode,
                urls=urls,
                rooms=count,
                players_per_room=per_room,
                seconds=cfg.seconds,
                warmup_s=cfg.warmup_s,
                rate_per_player=(cfg.rate / (rooms * per_room)) if cfg.rate else None,
            )
            for i, count in enumerate(_split(rooms, cfg.workers))
            if count
        ]
    procs = [ctx.Process(target=run_worker, args=(job, messages, go, start_at)) for job in jobs]
    for proc in procs:
        proc.start()
    result = PhaseResult(wid=-1, urls=urls, seconds=cfg.seconds)
    try:
        _await_ready(messages, len(jobs), result, progress)
        if on_ready:
            on_ready()
        start_at.value = time.time() + 0.2
        go.set()
        window = start_at.value + cfg.warmup_s
        meter = threading.Thread(
            target=_measure_cpu,
            args=(pids, window, window + cfg.seconds, result, redis_pid, [p.pid for p in procs]),
            daemon=True,
        )
        meter.start()
        _collect(messages, jobs, cfg, pids, result, progress)
        meter.join(cfg.warmup_s + cfg.seconds + 5)
    finally:
        for proc in procs:
            proc.join(10)
            if proc.is_alive():
                proc.terminate()
    return result


def _measure_cpu(
    pids: list[int],
    begin: float,
    end: float,
    result: PhaseResult,
    redis_pid: int | None,
    workers: list[int | None],
) -> None:
    """CPU seconds of each server (and Redis) inside the window: figures the noise
    of a shared machine moves much less than throughput (moves per CPU-second)."""
    time.sleep(max(0.0, begin - time.time()))
    box0 = box_busy_seconds()
    redis0 = cpu_seconds(redis_pid) if redis_pid else None
    load0 = [cpu_seconds(pid) for pid in workers if pid]
    before = [(cpu_seconds(pid), run_queue_seconds(pid)) for pid in pids]
    time.sleep(max(0.0, end - time.time()))
    for index, pid in enumerate(pids):
        cpu, wait = cpu_seconds(pid), run_queue_seconds(pid)
        cpu0, wait0 = before[index]
        if cpu is not None and cpu0 is not None:
            result.cpu_s[index] = cpu - cpu0
        if wait is not None and wait0 is not None:
            result.wait_s[index] = wait - wait0
    load1 = [cpu_seconds(pid) for pid in workers if pid]
    if load0 and None not in load0 and None not in load1:
        result.loadgen_cpu_s = sum(load1) - sum(load0)  # type: ignore[arg-type]
    redis1 = cpu_seconds(redis_pid) if redis_pid else None
    if redis0 is not None and redis1 is not None:
        result.redis_cpu_s = redis1 - redis0
    box1 = box_busy_seconds()
    if box0 is not None and box1 is not None:
        result.box_cpu_s = box1 - box0


def box_busy_seconds() -> float | None:
    """CPU seconds the whole machine has been busy so far, every core summed
    (/proc/stat: all but idle and I/O wait; steal too: the VM's host had the
    CPU), or None."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(x) for x in stat.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def run_queue_seconds(pid: int) -> float | None:
    """How long the process's main thread has waited, ready to run, for a CPU."""
    try:
        with open(f"/proc/{pid}/schedstat") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (Linux /proc), or None."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _others_pct(result: PhaseResult) -> float | None:
    """The box's CPU work inside the window that was neither the server, Redis
    nor the load generator (other jobs, the bench itself, a ``--contend`` hog),
    in % of one CPU: what makes one run of the same command slower than another."""
    if result.box_cpu_s is None or not result.cpu_s:
        return None
    ours = sum(result.cpu_s.values()) + (result.redis_cpu_s or 0) + (result.loadgen_cpu_s or 0)
    return _round(100 * max(result.box_cpu_s - ours, 0.0) / result.seconds)


def _await_ready(messages: Any, count: int, result: PhaseResult, progress: Any) -> None:
    ready: set[int] = set()
    deadline = time.monotonic() + 180
    while len(ready) < count:
        try:
            msg = messages.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue_mod.Empty:
            raise RuntimeError("load workers did not finish connecting in 180 s") from None
        if msg[0] == "ready":
            ready.add(msg[1])
        if progress:
            progress(f"connecting: {len(ready)}/{count} workers ready")


def _collect(
    messages: Any,
    jobs: list[Job],
    cfg: BenchConfig,
    pids: list[int],
    result: PhaseResult,
    progress: Any,
) -> None:
    done: set[int] = set()
    acked: dict[int, int] = {}
    errors: dict[int, int] = {}
    begin = time.time()
    deadline = time.monotonic() + cfg.warmup_s + cfg.seconds + 120
    while len(done) < len(jobs) and time.monotonic() < deadline:
        try:
            msg = messages.get(timeout=0.5)
        except queue_mod.Empty:
            msg = None
        if msg and msg[0] == "progress":
            acked[msg[1]], errors[msg[1]] = msg[2], msg[3]
        elif msg and msg[0] == "result":
            done.add(msg[1])
            result.merge(msg[2])
        for index, pid in enumerate(pids):
            now = rss_mb(pid)
            if now is not None:
                result.rss_mb[index] = max(result.rss_mb.get(index, 0.0), now)
        if progress and msg and msg[0] == "progress":
            elapsed = time.time() - begin
            total = sum(acked.values())
            progress(
                f"t={elapsed:5.1f}s  acked {total:>8,}  ({total / max(elapsed, 1e-9):,.0f}/s)"
                f"  errors {sum(errors.values())}"
            )
    if len(done) < len(jobs):
        result.errors += 1
        result.error_samples.append(f"{len(jobs) - len(done)} worker(s) sent no result")


def _summary(result: PhaseResult) -> dict[str, Any]:
    acks = result.all_ack_ms()
    return {
        "moves_per_s": round(result.moves_per_s, 1),
        "ack_p50_ms": _round(percentile(acks, 50)),
        "ack_p99_ms": _round(percentile(acks, 99)),
        "leaderboard_p50_ms": _round(percentile(result.leaderboard_ms, 50)),
        "leaderboard_p99_ms": _round(percentile(result.leaderboard_ms, 99)),
        "server_rss_mb": _round(sum(result.rss_mb.values())) if result.rss_mb else None,
        "server_cpu_pct": _round(100 * sum(result.cpu_s.values()) / result.seconds)
        if result.cpu_s
        else None,
        "redis_cpu_pct": _round(100 * result.redis_cpu_s / result.seconds)
        if result.redis_cpu_s is not None
        else None,
        "loadgen_cpu_pct": _round(100 * result.loadgen_cpu_s / result.seconds)
        if result.loadgen_cpu_s is not None
        else None,
        "server_cpu_wait_pct": _round(100 * sum(result.wait_s.values()) / result.seconds)
        if result.wait_s
        else None,
        "others_cpu_pct": _others_pct(result),
        "moves_per_cpu_s": round(sum(result.acked.values()) / sum(result.cpu_s.values()), 1)
        if sum(result.cpu_s.values()) > 0
        else None,
        "errors": result.errors,
        "sent": result.sent,
        "acked": sum(result.acked.values()),
        "players": result.players,
        "per_process": [
            {
                "url": url,
                "moves_per_s": round(result.acked.get(i, 0) / result.seconds, 1),
                "ack_p50_ms": _round(percentile(result.ack_ms.get(i, []), 50)),
                "ack_p99_ms": _round(percentile(result.ack_ms.get(i, []), 99)),
                "rss_mb": _round(result.rss_mb.get(i)),
                "cpu_pct": _round(100 * result.cpu_s[i] / result.seconds)
                if i in result.cpu_s
                else None,
            }
            for i, url in enumerate(result.urls)
        ],
    }


def _daily_summary(result: PhaseResult) -> dict[str, Any]:
    """Daily figures: standing query latency, and what one result costs."""
    results = result.results
    cpu = sum(result.cpu_s.values()) if result.cpu_s else None
    acks = result.all_ack_ms()
    return {
        "daily_players": result.players,
        "daily_results": results,
        "daily_finished": result.finished,
        "results_per_s": round(results / result.seconds, 1),
        "standing_p50_ms": _round(percentile(result.standing_ms, 50)),
        "standing_p99_ms": _round(percentile(result.standing_ms, 99)),
        "standing_queries": len(result.standing_ms),
        "daily_start_p99_ms": _round(percentile(result.daily_start_ms, 99)),
        "ack_p50_ms": _round(percentile(acks, 50)),
        "ack_p99_ms": _round(percentile(acks, 99)),
        "server_cpu_pct": _round(100 * cpu / result.seconds) if cpu is not None else None,
        "redis_cpu_pct": _round(100 * result.redis_cpu_s / result.seconds)
        if result.redis_cpu_s is not None
        else None,
        "server_cpu_ms_per_result": _round(1000 * cpu / results) if cpu and results else None,
        "redis_cpu_ms_per_result": _round(1000 * result.redis_cpu_s / results)
        if result.redis_cpu_s is not None and results
        else None,
        "server_cpu_wait_pct": _round(100 * sum(result.wait_s.values()) / result.seconds)
        if result.wait_s
        else None,
        "server_rss_mb": _round(sum(result.rss_mb.values())) if result.rss_mb else None,
        "errors": result.errors,
        "error_samples": result.error_samples[:10],
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


@contextlib.contextmanager
def _servers(
    cfg: BenchConfig,
) -> Iterator[tuple[list[str], list[int], str | None, int | None]]:
    """The targets (URLs, pids, Redis URL and pid): given, or our own Redis plus
    ``cfg.processes`` servers."""
    if cfg.servers:
        yield cfg.servers, cfg.server_pids, cfg.redis_url, None
        return
    env = {**BENCH_ENV, "CANFIELD_MAX_PLAYERS_PER_ROOM": str(max(16, cfg.players))}
    with local_servers(cfg.processes, env, cfg.appendfsync, "canfield-bench-") as (redis, started):
        pids = [s.pid for s in started if s.pid]
        yield [s.ws_url for s in started], pids, redis.url, redis.server_pid


def run_bench(cfg: BenchConfig, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the configured benchmark; returns the figures as one JSON-ready dict."""
    _raise_fd_limit()
    out: dict[str, Any] = {
        "players": cfg.players,
        "rooms": cfg.rooms,
        "seconds": cfg.seconds,
        "rate": cfg.rate,
        "processes": len(cfg.servers) or cfg.processes,
        "workers": cfg.workers,
    }
    with _servers(cfg) as (urls, pids, redis_url, redis_pid):
        if cfg.idle:
            return out | _idle(cfg, urls, pids, progress)
        if cfg.daily:
            daily = _run_phase("daily", urls, cfg, pids, progress=progress, redis_pid=redis_pid)
            for unused in ("players", "rooms", "rate"):
                out.pop(unused)
            return out | _daily_summary(daily)
        with cpu_hog() if cfg.contend else contextlib.nullcontext() as hog:
            out |= _race_and_baseline(cfg, urls, pids, redis_url, redis_pid, hog, progress)
    return out


def _race_and_baseline(
    cfg: BenchConfig,
    urls: list[str],
    pids: list[int],
    redis_url: str | None,
    redis_pid: int | None,
    hog: int | None,
    progress: Callable[[str], None] | None,
) -> dict[str, Any]:
    """Our phase, then the baseline's with the same load (and the same hog)."""
    out: dict[str, Any] = {"contend": hog is not None}
    profiler = _profiler(cfg, pids)
    hog_cpu = _HogMeter(hog)
    ours = _run_phase(
        "race",
        urls,
        cfg,
        pids,
        on_ready=profiler.start if profiler else None,
        progress=progress,
        redis_pid=redis_pid,
    )
    out["contend_cpu_pct"] = hog_cpu.pct()
    if profiler is not None and cfg.profile is not None:
        out |= _write_profile(profiler, cfg.profile)
    out |= _summary(ours)
    out["error_samples"] = ours.error_samples[:10]
    if redis_url and redis_pid is not None:  # our own Redis: only the bench's races in it
        out |= _stored_check(redis_url, ours.acked_total)
        if out["unstored"]:
            out["error_samples"].insert(0, f"{out['unstored']} acknowledged moves not stored")
    out["baseline_moves_per_s"] = None
    if cfg.baseline and redis_url:
        hog_cpu = _HogMeter(hog)
        base = _baseline(cfg, redis_url, len(urls), progress, redis_pid)
        out["baseline_contend_cpu_pct"] = hog_cpu.pct()
        out["baseline_moves_per_s"] = round(base.moves_per_s, 1)
        out["baseline_ack_p50_ms"] = _round(percentile(base.all_ack_ms(), 50))
        out["baseline_ack_p99_ms"] = _round(percentile(base.all_ack_ms(), 99))
        out["baseline_errors"] = base.errors
        summary = _summary(base)
        out["baseline_cpu_pct"] = summary["server_cpu_pct"]
        out["baseline_cpu_wait_pct"] = summary["server_cpu_wait_pct"]
        out["baseline_redis_cpu_pct"] = summary["redis_cpu_pct"]
        out["baseline_loadgen_cpu_pct"] = summary["loadgen_cpu_pct"]
        out["baseline_others_cpu_pct"] = summary["others_cpu_pct"]
        out["baseline_moves_per_cpu_s"] = summary["moves_per_cpu_s"]
        if out["moves_per_cpu_s"] and summary["moves_per_cpu_s"]:
            out["cpu_ratio"] = round(out["moves_per_cpu_s"] / summary["moves_per_cpu_s"], 3)
        out["error_samples"] += [f"baseline: {e}" for e in base.error_samples[:10]]
        out["ratio"] = round(ours.moves_per_s / base.moves_per_s, 3) if base.acked else None
    return out


#: where the server keeps each racer's stored actions, one list entry each
#: (``storage.keys.log`` in the server, whose code the bench does not import)
STORED_LOGS = "cf:{*}:p:*:log"


def _stored_check(redis_url: str, acked: int) -> dict[str, Any]:
    """Nothing acknowledged lost: every action the server stored, read back from
    its Redis once our phase is over, against every ``ack`` the players had
    (the warm-up's too). A move whose ack never came may be stored as well."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        stored = sum(client.llen(key) for key in client.scan_iter(match=STORED_LOGS, count=1000))
    finally:
        client.close()
    return {"acked_all": acked, "stored": stored, "unstored": max(acked - stored, 0)}


class _HogMeter:
    """The hog's share of a core from now to ``pct`` (None without a hog)."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.cpu0 = cpu_seconds(pid) if pid else None
        self.t0 = time.monotonic()

    def pct(self) -> float | None:
        cpu1 = cpu_seconds(self.pid) if self.pid else None
        if self.cpu0 is None or cpu1 is None:
            return None
        return _round(100 * (cpu1 - self.cpu0) / max(time.monotonic() - self.t0, 1e-9))


def _profiler(cfg: BenchConfig, pids: list[int]) -> PySpy | None:
    """py-spy on the first server process for the warm-up and the window."""
    if cfg.profile is None or not pids:
        return None
    out = cfg.profile.with_suffix(".txt")
    return PySpy(pids[0], out, cfg.warmup_s + cfg.seconds + 0.2)


def _write_profile(profiler: PySpy, path: Path) -> dict[str, Any]:
    """The flame graph beside the collapsed stacks, and the top frames."""
    profiler.wait()
    stacks = read_collapsed(profiler.out)
    svg = path.with_suffix(".svg")
    svg.write_text(flame_svg(stacks, "canfield-race serve"))
    return {
        "profile_svg": str(svg),
        "profile_stacks": str(profiler.out),
        "profile_top": top_summary(stacks),
    }


def _baseline(
    cfg: BenchConfig, redis_url: str, processes: int, progress: Any, redis_pid: int | None
) -> PhaseResult:
    with tempfile.TemporaryDirectory(prefix="canfield-baseline-") as tmp:
        started = [BaselineProcess(redis_url, Path(tmp)).start() for _ in range(processes)]
        try:
            pids = [s.pid for s in started if s.pid]
            urls = [s.ws_url for s in started]
            return _run_phase("baseline", urls, cfg, pids, progress=progress, redis_pid=redis_pid)
        finally:
            for server in started:
                server.stop()


def _idle(cfg: BenchConfig, urls: list[str], pids: list[int], progress: Any) -> dict[str, Any]:
    before = [rss_mb(pid) or 0.0 for pid in pids]
    measured: dict[str, Any] = {}

    def measure() -> None:
        time.sleep(1.0)  # let the server settle after the last join
        measured["server_rss_mb"] = round(sum(rss_mb(pid) or 0.0 for pid in pids), 1)

    quick = BenchConfig(**{**cfg.__dict__, "seconds": 0.0, "warmup_s": 0.0})
    result = _run_phase("idle", urls, quick, pids, on_ready=measure, progress=progress)
    rss = measured.get("server_rss_mb")
    return {
        "idle_connections": result.players,
        "server_rss_mb": rss,
        "server_rss_before_mb": round(sum(before), 1),
        # what each connection adds over the empty server (MB as the rows above,
        # x 1,000 / connections): the figure docs/performance.md holds to 16 KB
        "kb_per_connection": round((rss - sum(before)) * 1000 / result.players, 1)
        if rss is not None and result.players
        else None,
        "errors": result.errors,
        "error_samples": result.error_samples[:10],
    }


def _raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _fmt(value: Any, unit: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.1f}{unit}"
    return f"{value:,}{unit}"


def _stored(out: dict[str, Any]) -> str:
    if out.get("stored") is None:
        return "-"
    return f"{out['acked_all']:,}/{out['stored']:,}"


def _pct(value: float | None) -> str:
    return "-" if value is None else format(value, ".0%")


def format_table(out: dict[str, Any]) -> str:
    """The figures as a plain-text table."""
    if "idle_connections" in out:
        return "\n".join(
            [
                f"idle players connected   {_fmt(out['idle_connections'])}",
                f"server RSS before        {_fmt(out['server_rss_before_mb'], ' MB')}",
                f"server RSS with them     {_fmt(out['server_rss_mb'], ' MB')}",
                f"per connection           {_fmt(out['kb_per_connection'], ' KB')}",
                f"errors                   {out['errors']}",
            ]
        )
    if "daily_results" in out:
        lines = [
            f"{out['daily_players']:,} daily players over {out['seconds']:g} s,"
            f" {out['processes']} server process(es)",
            f"results (daily races finished)   {_fmt(out['daily_results'])}"
            f" ({_fmt(out['results_per_s'])}/s)",
            f"standing query p50 / p99 ms      {_fmt(out['standing_p50_ms'])}"
            f" / {_fmt(out['standing_p99_ms'])}  ({_fmt(out['standing_queries'])} queries)",
            f"daily start p99 ms               {_fmt(out['daily_start_p99_ms'])}",
            f"ack p50 / p99 ms                 {_fmt(out['ack_p50_ms'])}"
            f" / {_fmt(out['ack_p99_ms'])}",
            f"server CPU %                     {_fmt(out['server_cpu_pct'])}",
            f"server waiting for CPU %         {_fmt(out['server_cpu_wait_pct'])}",
            f"Redis CPU %                      {_fmt(out['redis_cpu_pct'])}",
            f"server CPU ms per result         {_fmt(out['server_cpu_ms_per_result'])}",
            f"Redis CPU ms per result          {_fmt(out['redis_cpu_ms_per_result'])}",
            f"server RSS MB                    {_fmt(out['server_rss_mb'])}",
            f"errors                           {out['errors']}",
        ]
        return "\n".join(lines + [f"error: {s}" for s in out.get("error_samples", [])])
    mode = f"{out['rate']:,.0f} moves/s target" if out["rate"] else "closed loop"
    lines = [
        f"{out['players']} players in {out['rooms']} rooms, {out['seconds']:g} s, {mode}, "
        f"{out['processes']} server process(es)",
        f"{'':24}{'ours':>12}{'baseline':>12}",
        f"{'moves/s':24}{_fmt(out['moves_per_s']):>12}{_fmt(out['baseline_moves_per_s']):>12}",
        f"{'ack p50 ms':24}{_fmt(out['ack_p50_ms']):>12}{_fmt(out.get('baseline_ack_p50_ms')):>12}",
        f"{'ack p99 ms':24}{_fmt(out['ack_p99_ms']):>12}{_fmt(out.get('baseline_ack_p99_ms')):>12}",
        f"{'leaderboard p50 ms':24}{_fmt(out['leaderboard_p50_ms']):>12}",
        f"{'leaderboard p99 ms':24}{_fmt(out['leaderboard_p99_ms']):>12}",
        f"{'server RSS MB':24}{_fmt(out['server_rss_mb']):>12}",
        f"{'server CPU %':24}{_fmt(out['server_cpu_pct']):>12}"
        f"{_fmt(out.get('baseline_cpu_pct')):>12}",
        f"{'Redis CPU %':24}{_fmt(out['redis_cpu_pct']):>12}"
        f"{_fmt(out.get('baseline_redis_cpu_pct')):>12}",
        f"{'load generator CPU %':24}{_fmt(out['loadgen_cpu_pct']):>12}"
        f"{_fmt(out.get('baseline_loadgen_cpu_pct')):>12}",
        f"{'server waiting for CPU %':24}{_fmt(out['server_cpu_wait_pct']):>12}"
        f"{_fmt(out.get('baseline_cpu_wait_pct')):>12}",
        f"{'other work on the box %':24}{_fmt(out.get('others_cpu_pct')):>12}"
        f"{_fmt(out.get('baseline_others_cpu_pct')):>12}",
        f"{'moves per CPU-second':24}{_fmt(out['moves_per_cpu_s']):>12}"
        f"{_fmt(out.get('baseline_moves_per_cpu_s')):>12}",
        f"{'errors':24}{out['errors']:>12}{_fmt(out.get('baseline_errors')):>12}",
        f"{'acked / stored (all)':24}{_stored(out):>12}",
        f"{'ours / baseline':24}{_pct(out.get('ratio')):>12}",
        f"{'  per CPU-second':24}{_pct(out.get('cpu_ratio')):>12}",
    ]
    if len(out["per_process"]) > 1:
        lines.append("per process:")
        for proc in out["per_process"]:
            lines.append(
                f"  {proc['url']:<28} {_fmt(proc['moves_per_s'])} moves/s, ack p50 "
                f"{_fmt(proc['ack_p50_ms'])} ms, p99 {_fmt(proc['ack_p99_ms'])} ms, "
                f"RSS {_fmt(proc['rss_mb'])} MB, CPU {_fmt(proc['cpu_pct'])}%"
            )
    if out.get("contend"):
        lines.append(
            f"{'CPU hog (--contend) %':24}{_fmt(out.get('contend_cpu_pct')):>12}"
            f"{_fmt(out.get('baseline_contend_cpu_pct')):>12}"
        )
    if out.get("profile_svg"):
        lines.append(f"flame graph: {out['profile_svg']} (stacks: {out['profile_stacks']})")
        lines.append(out["profile_top"])
    for sample in out.get("error_samples", []):
        lines.append(f"error: {sample}")
    return "\n".join(lines)


class StderrProgress:
    """Progress on stderr: one rewritten line on a terminal, else a line a second."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def __call__(self, text: str) -> None:
        if self.tty:
            sys.stderr.write("\r" + text.ljust(78))
        elif time.monotonic() - self.last >= 1.0:
            self.last = time.monotonic()
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def done(self) -> None:
        if self.tty:
            sys.stderr.write("\n")
