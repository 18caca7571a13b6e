"""The load generator: one worker process driving many players.

A worker owns whole rooms, so a move and the leaderboard that shows it at
another player of the same room are timed on one clock. Every player
plays the same legal moves of the room's fixed deal (a foundation play,
else a reserve or waste card onto a column, else a draw: one line, worked
out once per worker by the engine, ``_Line``), closed-loop (next move when
the last is acknowledged) or paced at a target rate. The baseline mode
sends the same move frames, from the same player code, to the bare echo
endpoint, so both sides cost the load generator the same per move but for
what only ours sends (the board in each ack, leaderboards): on two cores
the load generator is the server's rival for a CPU, and a dearer client
would lower our side's figures, not the server's. Results go back to the
parent over a queue as plain data.

Protocol between parent and worker (``multiprocessing`` queue messages):
``("ready", wid)`` after setup; the parent then sets the shared ``go``
event, after which the worker measures from ``job.start_at`` for
``job.seconds`` and sends ``("progress", wid, acked, errors)`` about every
half second and finally ``("result", wid, WorkerResult)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
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
from canfield_protocol import Error, MoveMsg, RoomSettings
from websockets.asyncio.client import ClientConnection

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


class _Line:
    """The moves every player of a deal plays (``next_move`` from the deal), worked
    out once per worker as far as the players get, not by each player's engine."""

    def __init__(self, deal: str) -> None:
        self.game = Game.deal(deal)
        self.texts: list[str] = []
        self.ended = False

    def at(self, k: int) -> str | None:
        """Move ``k`` (0 first) of the line; None past its end (stuck or won)."""
        texts = self.texts
        while len(texts) <= k and not self.ended:
            move = next_move(self.game)
            if move is None or self.game.is_won:
                self.ended = True
                break
            self.game.push(move)
            texts.append(move.text())
        return texts[k] if k < len(texts) else None


class _Reply(msgspec.Struct):
    """What the load generator reads of an ack (or the baseline's echo): its number
    (-1: an echo of a frame with none, the client's keep-alive ``ping``)."""

    seq: int = -1


class _RowSeen(msgspec.Struct):
    id: str
    moves: int


class _BoardSeen(msgspec.Struct):
    """What it reads of a leaderboard: each racer's move count."""

    rows: list[_RowSeen]


_reply = msgspec.json.Decoder(_Reply).decode
_board = msgspec.json.Decoder(_BoardSeen).decode


class _BenchClient(RaceClient):
    """A ``RaceClient`` that reads the frames the bench times (acks, leaderboards)
    for what it times only: their number, each row's id and move count. Every
    other frame (the setup's replies, errors, ``rtt_ping``) goes the client's
    way. ``echo``: the baseline's endpoint, whose every reply is the frame sent."""

    def __init__(self, url: str, *, echo: bool = False, **options: Any) -> None:
        super().__init__(url, **options)
        self.echo = echo
        self.on_rows: list[Callable[[list[_RowSeen]], None]] = []

    async def _receive(self, ws: ClientConnection, frame: str | bytes) -> None:
        head = frame[:22] if isinstance(frame, str) else ""
        if self.echo or head.startswith(_ACK):
            future = self._pending.pop(_reply(frame).seq, None)
            if future is not None and not future.done():
                future.set_result(None)
        elif head == _LEADERBOARD:
            rows = _board(frame).rows
            for callback in self.on_rows:
                callback(rows)
        else:
            await super()._receive(ws, frame)


#: how the frames the bench reads begin (msgspec writes the tag first)
_ACK = '{"type":"ack",'
_LEADERBOARD = '{"type":"leaderboard",'


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


def _ready(queue: Any, wid: int) -> None:
    """Tell the parent this worker is set up, with the set-up's objects out of the
    collector's way: a worker holds its clients, connections and the deal's line,
    and a full collection of them took 16 ms near the end of a 3,000 moves/s window
    (once in each worker, the side that reads leaderboards), which the acks then
    waiting were timed as. Frozen, a full pass walks only what the window made."""
    gc.collect()
    gc.freeze()
    queue.put(("ready", wid))


# ------------------------------------------------------------------ players


class _Player:
    """One player, racing or against the baseline: its connection, its place on
    the deal's line of moves and its send times."""

    def __init__(self, client: _BenchClient, server: int, line: _Line) -> None:
        self.client = client
        self.server = server
        self.line = line
        #: sent[k] = wall time move k was sent (k = leaderboard ``moves``)
        self.sent: list[float] = [0.0]
        self.observed = 0

    async def run(self, stats: _Stats, rng: random.Random) -> None:
        job = stats.job
        pacer = _Pacer(job, rng)
        result = stats.result
        while (now := await pacer.next(stats.window_end)) is not None:
            text = self.line.at(len(self.sent) - 1)
            if text is None:
                result.stopped_players += 1
                return
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

        def on_leaderboard(rows: list[_RowSeen]) -> None:
            now = time.time()
            for row in rows:
                if row.id != other_id:
                    continue
                sent = other.sent
                for k in range(other.observed + 1, min(row.moves, len(sent) - 1) + 1):
                    if stats.in_window(sent[k]):
                        stats.result.leaderboard_ms.append((now - sent[k]) * 1000)
                other.observed = max(other.observed, row.moves)

        self.client.on_rows.append(on_leaderboard)


async def _room(job: Job, index: int, idle: bool, line: _Line) -> list[_Player]:
    """Create one room, fill it, and (unless idle) start the race."""
    players: list[_Player] = []
    for seat in range(job.players_per_room):
        server = (index + seat) % len(job.urls)
        client = _BenchClient(job.urls[server], reply_timeout=30)
        await client.connect()
        if seat == 0:
            await client.create(
                f"host{job.wid}-{index}", RoomSettings(draw=3, deal=job.deal, time_limit_s=None)
            )
        else:
            await client.join(players[0].client.room or "", f"p{job.wid}-{index}-{seat}")
        players.append(_Player(client, server, line))
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
    line = _Line(job.deal)

    async def set_up(index: int) -> list[_Player]:
        async with gate:
            return await _room(job, index, idle, line)

    rooms = await asyncio.gather(*(set_up(i) for i in range(job.rooms)))
    everyone = [p for room in rooms for p in room]
    stats.result.players = len(everyone)
    for room in rooms:
        for i, player in enumerate(room):
            if len(room) > 1:
                room[(i + 1) % len(room)].watch(player, stats)
    _ready(ready, job.wid)
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


async def _baseline(job: Job, stats: _Stats, ready: Any, go: Any) -> None:
    """The same players, moves and pacing against the bare echo endpoint (which
    answers no hello: the players ask for no round-trip probes there)."""
    count = job.rooms * job.players_per_room
    stats.result.players = count
    urls, line = job.urls, _Line(job.deal)

    async def player(i: int) -> _Player:
        server = i % len(urls)
        client = _BenchClient(urls[server], echo=True, reply_timeout=30, answer_rtt=False)
        await client.connect()
        return _Player(client, server, line)

    everyone = await asyncio.gather(*(player(i) for i in range(count)))
    _ready(ready, job.wid)
    await asyncio.get_running_loop().run_in_executor(None, go.wait)
    rng = random.Random(job.wid)
    reporter = asyncio.create_task(_report(ready, stats))
    await asyncio.gather(*(p.run(stats, rng) for p in everyone))
    reporter.cancel()
    await asyncio.gather(*(p.client.close() for p in everyone), return_exceptions=True)


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
    _ready(ready, job.wid)
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
