"""The load generator: one worker process driving many players.

A worker owns whole rooms, so a move and the leaderboard that shows it at
another player of the same room are timed on one clock. Every player
plays legal moves from its own engine copy of the room's fixed deal (a
foundation play, else a reserve or waste card onto a column, else a
draw), closed-loop (next move when the last is acknowledged) or paced at
a target rate. The baseline mode sends the same move frames to the bare
echo endpoint. Results go back to the parent over a queue as plain data.

Protocol between parent and worker (``multiprocessing`` queue messages):
``("ready", wid)`` after setup; the parent then sets the shared ``go``
event, after which the worker measures from ``job.start_at`` for
``job.seconds`` and sends ``("progress", wid, acked, errors)`` about every
half second and finally ``("result", wid, WorkerResult)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import msgspec
from canfield import DRAW, Game, Move
from canfield.moves import FOUNDATION, RESERVE, TABLEAU, WASTE
from canfield_client.client import RaceClient
from canfield_protocol import Error, Leaderboard, MoveMsg, RoomSettings
from websockets.asyncio.client import connect

__all__ = ["Job", "WorkerResult", "run_worker", "next_move"]

#: the deal every benchmark room races (any code works; fixed for repeatability)
BENCH_DEAL = "CF1-D3-BENCHAA"


@dataclass
class Job:
    """What one worker process does."""

    wid: int
    mode: str  # "race", "baseline" or "idle"
    urls: list[str]
    rooms: int
    players_per_room: int
    seconds: float = 5.0
    warmup_s: float = 1.0
    #: moves/s per player; None: closed loop
    rate_per_player: float | None = None
    deal: str = BENCH_DEAL
    start_at: float = 0.0  # wall clock, set by the parent with ``go``
    drain_s: float = 10.0
    #: daily mode: simulated daily players in this worker
    daily_players: int = 0


@dataclass
class WorkerResult:
    wid: int
    #: per server index: acknowledged moves sent inside the window
    acked: dict[int, int] = field(default_factory=dict)
    ack_ms: dict[int, list[float]] = field(default_factory=dict)
    leaderboard_ms: list[float] = field(default_factory=list)
    sent: int = 0
    acked_total: int = 0
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    players: int = 0
    stopped_players: int = 0
    #: daily mode: daily races finished (results submitted) inside the window,
    #: and the latency of each standing query and ``daily`` start
    results: int = 0
    #: daily mode: daily races finished at all (inside the window or after it)
    finished: int = 0
    standing_ms: list[float] = field(default_factory=list)
    daily_start_ms: list[float] = field(default_factory=list)


def next_move(game: Game) -> Move | None:
    """A legal move that makes progress, else a draw, else None."""
    fallback = None
    for move in game.legal_moves():
        if move.dst == FOUNDATION and move.src != FOUNDATION:
            return move
        if fallback is None and move.src in (RESERVE, WASTE) and move.dst == TABLEAU:
            fallback = move
    if fallback is not None:
        return fallback
    return DRAW if (game.stock or game.waste) else None


class _Pacer:
    """When each move goes: at once (closed loop) or on a per-player schedule."""

    def __init__(self, job: Job, rng: random.Random) -> None:
        self.interval = 1.0 / job.rate_per_player if job.rate_per_player else 0.0
        self.due = job.start_at + rng.random() * self.interval

    async def next(self, end: float) -> float | None:
        """Wait for the next send time; the wall time now, or None past ``end``."""
        if self.interval:
            delay = self.due - time.time()
            if delay > 0:
                await asyncio.sleep(delay)
            self.due += self.interval
        now = time.time()
        return None if now >= end else now


class _Stats:
    """Counters shared by a worker's players."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.result = WorkerResult(job.wid)
        self.window_start = job.start_at + job.warmup_s
        self.window_end = self.window_start + job.seconds

    def in_window(self, wall: float) -> bool:
        return self.window_start <= wall < self.window_end

    def acked(self, server: int, counted: bool, latency_ms: float) -> None:
        result = self.result
        result.acked_total += 1
        if counted:
            result.acked[server] = result.acked.get(server, 0) + 1
            result.ack_ms.setdefault(server, []).append(latency_ms)

    def error(self, text: str) -> None:
        self.result.errors += 1
        if len(self.result.error_samples) < 10:
            self.result.error_samples.append(text)


# ------------------------------------------------------------------ players


class _Player:
    """One racing player: its connection, engine copy and send times."""

    def __init__(self, client: RaceClient, server: int, deal: str) -> None:
        self.client = client
        self.server = server
        self.game = Game.deal(deal)
        #: sent[k] = wall time move k was sent (k = leaderboard ``moves``)
        self.sent: list[float] = [0.0]
        self.observed = 0

    async def run(self, stats: _Stats, rng: random.Random) -> None:
        job = stats.job
        pacer = _Pacer(job, rng)
        result = stats.result
        while (now := await pacer.next(stats.window_end)) is not None:
            move = next_move(self.game)
            if move is None or self.game.is_won:
                result.stopped_players += 1
                return
            self.game.push(move)
            text = move.text()
            self.sent.append(now)
            counted = stats.in_window(now)
            result.sent += counted
            t0 = time.perf_counter()
            try:
                future = await self.client.send_action(partial(_move, move=text))
                async with asyncio.timeout(job.drain_s):
                    answer = await future
            except Exception as exc:  # noqa: BLE001 - every failure is an error figure
                stats.error(f"{type(exc).__name__}: {exc}")
                return
            latency = (time.perf_counter() - t0) * 1000
            if isinstance(answer, Error):
                stats.error(f"{answer.code}: {answer.message}")
                return
            stats.acked(self.server, counted, latency)

    def watch(self, other: _Player, stats: _Stats) -> None:
        """Time ``other``'s moves as they appear in this player's leaderboards."""
        other_id = other.client.player_id

        def on_leaderboard(board: Leaderboard) -> None:
            now = time.time()
            for row in board.rows:
                if row.id != other_id:
                    continue
                sent = other.sent
                for k in range(other.observed + 1, min(row.moves, len(sent) - 1) + 1):
                    if stats.in_window(sent[k]):
                        stats.result.leaderboard_ms.append((now - sent[k]) * 1000)
                other.observed = max(other.observed, row.moves)

        self.client.on_leaderboard.append(on_leaderboard)


async def _room(job: Job, index: int, idle: bool) -> list[_Player]:
    """Create one room, fill it, and (unless idle) start the race."""
    players: list[_Player] = []
    for seat in range(job.players_per_room):
        server = (index + seat) % len(job.urls)
        client = await RaceClient(job.urls[server], reply_timeout=30).connect()
        if seat == 0:
            await client.create(
                f"host{job.wid}-{index}", RoomSettings(draw=3, deal=job.deal, time_limit_s=None)
            )
        else:
            await client.join(players[0].client.room or "", f"p{job.wid}-{index}-{seat}")
        players.append(_Player(client, server, job.deal))
    if not idle:
        await players[0].client.start(force=True)
        for player in players:
            await player.client.wait_started(30)
    return players


#: rooms a worker sets up at once: thousands of handshakes and joins at the same
#: moment time out on a loaded server (``--idle 10000``), in waves they do not
SETUP_ROOMS_AT_ONCE = 50


async def _race(job: Job, stats: _Stats, ready: Any, go: Any, idle: bool) -> None:
    gate = asyncio.Semaphore(SETUP_ROOMS_AT_ONCE)

    async def set_up(index: int) -> list[_Player]:
        async with gate:
            return await _room(job, index, idle)

    rooms = await asyncio.gather(*(set_up(i) for i in range(job.rooms)))
    everyone = [p for room in rooms for p in room]
    stats.result.players = len(everyone)
    for room in rooms:
        for i, player in enumerate(room):
            if len(room) > 1:
                room[(i + 1) % len(room)].watch(player, stats)
    ready.put(("ready", job.wid))
    await asyncio.get_running_loop().run_in_executor(None, go.wait)
    if not idle:
        rng = random.Random(job.wid)
        reporter = asyncio.create_task(_report(ready, stats))
        await asyncio.gather(*(p.run(stats, rng) for p in everyone))
        reporter.cancel()
        # leaderboards of the last moves are still on their way
        await asyncio.sleep(0.5)
    await asyncio.gather(*(p.client.close() for p in everyone), return_exceptions=True)


async def _report(queue: Any, stats: _Stats) -> None:
    while True:
        await asyncio.sleep(0.5)
        queue.put(("progress", stats.job.wid, stats.result.acked_total, stats.result.errors))


# ------------------------------------------------------------------ baseline


class _Seq(msgspec.Struct):
    seq: int = 0


async def _baseline_player(url: str, server: int, stats: _Stats, rng: random.Random) -> None:
    """The same move frames and timing, against the bare echo endpoint."""
    job = stats.job
    decode = msgspec.json.Decoder(_Seq).decode
    encode = msgspec.json.Encoder().encode
    result = stats.result
    async with connect(url, compression=None) as ws:
        await stats_ready(stats)
        pacer = _Pacer(job, rng)
        seq = 0
        while (now := await pacer.next(stats.window_end)) is not None:
            seq += 1
            counted = stats.in_window(now)
            result.sent += counted
            t0 = time.perf_counter()
            await ws.send(encode(MoveMsg(seq=seq, move="S")).decode())
            reply = decode(await ws.recv())
            latency = (time.perf_counter() - t0) * 1000
            if reply.seq != seq:
                stats.error(f"baseline echoed seq {reply.seq}, expected {seq}")
                return
            stats.acked(server, counted, latency)


_gate: dict[str, Any] = {}


async def stats_ready(stats: _Stats) -> None:
    """Baseline players: count in, and wait together for ``go``."""
    gate = _gate
    gate["connected"] += 1
    if gate["connected"] == gate["expected"]:
        gate["queue"].put(("ready", stats.job.wid))
        await asyncio.get_running_loop().run_in_executor(None, gate["go"].wait)
        gate["event"].set()
    await gate["event"].wait()


async def _baseline(job: Job, stats: _Stats, ready: Any, go: Any) -> None:
    count = job.rooms * job.players_per_room
    stats.result.players = count
    _gate.update(connected=0, expected=count, queue=ready, go=go, event=asyncio.Event())
    rng = random.Random(job.wid)
    reporter = asyncio.create_task(_report(ready, stats))
    urls = job.urls
    await asyncio.gather(
        *(_baseline_player(urls[i % len(urls)], i % len(urls), stats, rng) for i in range(count))
    )
    reporter.cancel()


# ------------------------------------------------------------------ daily

#: the actions of one simulated daily player: draws, then giving up
DAILY_DRAWS = 5


async def _daily_player(client: RaceClient, index: int, stats: _Stats, rng: random.Random) -> None:
    """One daily player: at a random moment of the window, start today's daily race,
    play a few draws, give up (its result), then read the standing."""
    job = stats.job
    await asyncio.sleep(max(0.0, stats.window_start + rng.random() * job.seconds - time.time()))
    result = stats.result
    try:
        t0 = time.perf_counter()
        await client.daily(f"d{job.wid}-{index}", 3)
        result.daily_start_ms.append((time.perf_counter() - t0) * 1000)
        for _ in range(DAILY_DRAWS):
            t0 = time.perf_counter()
            await client.move("S")
            stats.acked(0, True, (time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        await client.give_up()
        stats.acked(0, True, (time.perf_counter() - t0) * 1000)
        await client.wait_daily_finished(job.drain_s)
        result.finished += 1
        if stats.in_window(time.time()):
            result.results += 1
        t0 = time.perf_counter()
        standing = await client.daily_standing(3, limit=10)
        result.standing_ms.append((time.perf_counter() - t0) * 1000)
        if not standing.rows or standing.me is None:
            stats.error("a standing without rows or without this player")
    except Exception as exc:  # noqa: BLE001 - every failure is an error figure
        stats.error(f"{type(exc).__name__}: {exc}")


async def _daily(job: Job, stats: _Stats, ready: Any, go: Any) -> None:
    """Connect and identify every player first; the deal is proven before ``go``
    (one warm-up start per worker), so the window measures the daily path only."""
    url_count = len(job.urls)

    async def player(i: int) -> RaceClient:
        client = await RaceClient(job.urls[i % url_count], reply_timeout=30).connect()
        await client.identify()
        return client

    clients: list[RaceClient] = []
    for start in range(0, job.daily_players, 50):  # in waves: no connect storm
        count = min(50, job.daily_players - start)
        clients += await asyncio.gather(*(player(start + i) for i in range(count)))
    warm = await player(-1)
    await warm.daily(f"warm{job.wid}", 3)
    await warm.close()
    stats.result.players = len(clients)
    ready.put(("ready", job.wid))
    await asyncio.get_running_loop().run_in_executor(None, go.wait)
    rng = random.Random(job.wid)
    reporter = asyncio.create_task(_report(ready, stats))
    await asyncio.gather(*(_daily_player(c, i, stats, rng) for i, c in enumerate(clients)))
    reporter.cancel()
    await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


# ------------------------------------------------------------------ entry point


async def _main(job: Job, queue: Any, go: Any, start_at: Any) -> WorkerResult:
    stats = _Stats(job)

    class _GoThenBegin:
        """``go.wait()`` that also reads the start time the parent published."""

        def wait(self) -> None:
            go.wait()
            job.start_at = start_at.value
            stats.window_start = job.start_at + job.warmup_s
            stats.window_end = stats.window_start + job.seconds

    gate = _GoThenBegin()
    try:
        if job.mode == "baseline":
            await _baseline(job, stats, queue, gate)
        elif job.mode == "daily":
            await _daily(job, stats, queue, gate)
        else:
            await _race(job, stats, queue, gate, idle=job.mode == "idle")
    except Exception as exc:  # noqa: BLE001 - reported, never hidden
        stats.error(f"setup: {type(exc).__name__}: {exc}")
        with contextlib.suppress(Exception):
            queue.put(("ready", job.wid))
    return stats.result


def _move(seq: int, move: str) -> MoveMsg:
    return MoveMsg(seq=seq, move=move)


def run_worker(job: Job, queue: Any, go: Any, start_at: Any) -> None:
    """Process entry point (``multiprocessing``): run the job, send the result."""
    runner: Callable[[Coroutine[Any, Any, WorkerResult]], WorkerResult]
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:  # pragma: no cover - uvloop is optional
        runner = asyncio.run
    result = runner(_main(job, queue, go, start_at))
    queue.put(("result", job.wid, result))
