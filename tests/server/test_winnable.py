"""Winnable-only rooms, par and hints, against real parts: a redis-server,
solver worker processes, server processes and websockets clients.

Whatever the server calls winnable is checked here with the solver itself
(and its line replayed through the engine), so a wrong pool fails.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis
from canfield import DealCode, Game, Move
from canfield.solver import WINNABLE, solve
from canfield_bench.processes import ServerProcess
from canfield_protocol import ProtocolError, SettingsMsg
from canfield_server.ops.config import Settings
from canfield_server.room import rules as R
from canfield_server.solving.deal_pool import DealPool, Proven
from canfield_server.storage import keys
from canfield_server.storage.embedded_redis import EmbeddedRedis

from tests.conftest import ServerFactory, servers_of_their_own
from tests.server.conftest import Connect, SameBoard

#: a short countdown, a tiny pool: quick tests
#: (a start waits long for its proven deal: on a busy machine the shipped 2 s can pass,
#: and the race then rightly goes on an unproven one)
ENV = {
    "CANFIELD_COUNTDOWN_S": "0.2",
    "CANFIELD_POOL_TARGET": "2",
    "CANFIELD_PROVEN_DEAL_WAIT_S": "60",
}
#: the same, with no background refill: every start solves on demand
EMPTY_POOL_ENV = {**ENV, "CANFIELD_POOL_TARGET": "0"}
#: deals the solver wins in milliseconds (used for par and hints)
EASY_DRAW3 = "CF1-D3-AAADKOH"
#: one more, raced by one test only: its par is solved by the race that test starts
#: (the file's server keeps what earlier tests solved)
PAR_DRAW3 = "CF1-D3-CNNCHCR"
#: a deal the solver does not decide quickly
HARD_DRAW3 = "CF1-D3-AAAAACL"
#: a pool in this process: one worker, three codes per mode, a solve as long as
#: shipped (0.25 s of processor time: a code not won by then is skipped, and every
#: longer limit only spent more on the codes skipped)
POOL_SETTINGS = Settings(
    solver_workers=1, pool_target=3, pool_solve_timeout_s=0.25, solver_niceness=0
)


def assert_proven(code: str, par: int | None) -> None:
    """The solver, run here, wins ``code``; its line replays to a win; par is a line length."""
    result = solve(code, timeout_s=10)
    assert result.result == WINNABLE, (code, result.result)
    assert Game.replay(code, result.moves).is_won
    game = Game.deal(code)
    assert isinstance(par, int) and par >= 52 - game.on_foundations


# ---------------------------------------------------------------- sans I/O


def test_pool_entries_round_trip() -> None:
    proven = Proven("CF1-D1-HELLOCF", 221)
    assert Proven.from_entry(proven.entry().encode()) == proven


def test_a_proven_code_replaces_the_random_deal_but_never_a_typed_in_one() -> None:
    random_room = R.create_room("ABCDEF", "host", "Ann", None)
    _, deal = R.start_race(random_room, "host", 0, 0.0, proven=EASY_DRAW3)
    assert str(deal) == EASY_DRAW3
    typed = R.update_settings(random_room, "host", SettingsMsg(deal=HARD_DRAW3))
    _, deal = R.start_race(typed, "host", 0, 0.0, proven=EASY_DRAW3)
    assert str(deal) == HARD_DRAW3


def test_practice_is_a_setting_the_host_turns_on() -> None:
    room = R.create_room("ABCDEF", "host", "Ann", None)
    assert not room.settings.practice
    on = R.update_settings(room, "host", SettingsMsg(practice=True))
    assert on.settings.practice
    assert R.update_settings(on, "host", SettingsMsg(draw=1)).settings.practice


# ---------------------------------------------------------------- the pool in Redis


@pytest.fixture
async def pool(redis_server: EmbeddedRedis) -> AsyncIterator[DealPool]:
    client = aioredis.from_url(redis_server.url)
    deal_pool = DealPool(client, POOL_SETTINGS)
    yield deal_pool
    await deal_pool.close()
    await client.aclose()


async def test_refill_fills_each_mode_to_its_target_with_winnable_codes(pool: DealPool) -> None:
    for draw in (3, 1):
        assert await pool.refill(draw) == 3
        entries = await pool.entries(draw)
        assert len(entries) == 3
        for proven in entries:
            assert DealCode.parse(proven.code).draw == draw
            assert_proven(proven.code, proven.par)
        assert await pool.refill(draw) == 0  # full: nothing more


async def test_refills_racing_for_one_mode_do_not_overfill(
    pool: DealPool, redis_server: EmbeddedRedis
) -> None:
    client = aioredis.from_url(redis_server.url)
    other = DealPool(client, POOL_SETTINGS)
    try:
        added = await asyncio.gather(pool.refill(1), other.refill(1), pool.refill(1))
        assert await pool.size(1) == 3
        assert sum(added) == 3
    finally:
        await other.close()
        await client.aclose()


async def test_a_held_lock_leaves_the_filling_to_its_holder(pool: DealPool) -> None:
    await pool.redis.set(keys.pool_lock(3), "another-process", ex=30)
    assert await pool.refill(3) == 0
    assert await pool.size(3) == 0


async def test_take_empties_the_pool_then_solves_on_demand(pool: DealPool) -> None:
    await pool.refill(3)
    pooled = set(await pool.entries(3))
    taken = [await pool.take(3, "ROOM") for _ in range(4)]
    assert set(taken[:3]) == pooled and await pool.size(3) == 0
    for proven in taken:  # the fourth was solved on demand
        assert_proven(proven.code, proven.par)
        assert await pool.par(proven.code, "ROOM") == proven.par  # remembered for the finish


async def test_par_is_solved_once_remembered_and_null_when_unknown(pool: DealPool) -> None:
    solving = pool.solve_par(EASY_DRAW3, "ROOM")  # as at the start of a race
    assert solving is not None
    assert pool.solve_par(EASY_DRAW3, "ROOM") is solving  # one solve per deal at a time
    par = await solving
    assert_proven(EASY_DRAW3, par)
    assert (await pool.redis.get(keys.par(EASY_DRAW3))).decode() == str(par)
    assert await pool.par(EASY_DRAW3, "ROOM") == par  # the end of the race reads it
    pool.par_timeout_s = 0.05
    hard = pool.solve_par(HARD_DRAW3, "ROOM")
    assert hard is not None
    assert await hard is None
    assert await pool.redis.get(keys.par(HARD_DRAW3)) == b""  # unknown: not solved again
    assert await pool.par(HARD_DRAW3, "ROOM") is None


# ---------------------------------------------------------------- whole rooms
# Rooms on a typed-in deal share this file's server (no pool kept), each in a room
# of its own, none leaving a solve behind (the hints' answers wait on the solver);
# a random deal gets a server of its own.


@pytest.fixture(scope="module")
def typed_in_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with servers_of_their_own(tmp_path_factory.mktemp("typed-in"), EMPTY_POOL_ENV) as (server,):
        yield server


async def poll(done: Callable[[], Awaitable[bool]], timeout_s: float = 30.0) -> None:
    """Wait for another process's background work (seen in Redis: no event to await)."""
    async with asyncio.timeout(timeout_s):
        while not await done():
            await asyncio.sleep(0.05)


async def race_to_the_end(
    connect: Connect,
    url: str,
    until: Callable[[], Awaitable[bool]] | None = None,
    **settings: object,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A host alone starts a race, sees the deal, (waits ``until``,) gives up:
    (started, finished)."""
    host = await connect(url)
    joined = await host.create("Ann", **settings)
    assert joined["type"] == "joined", joined
    await host.send(type="start", force=True)
    started = await host.expect("started")
    if until is not None:
        await poll(until)
    assert (await host.request("ack", type="give_up", seq=1))["move"] == "G"
    return started, await host.expect("finished")


@pytest.mark.parametrize("env", [ENV, EMPTY_POOL_ENV], ids=["from-the-pool", "solved-on-demand"])
async def test_a_new_room_races_on_a_proven_deal_by_default_and_shows_par(
    server_factory: ServerFactory,
    connect: Connect,
    same_board: SameBoard,
    env: dict[str, str],
) -> None:
    server = server_factory(env=env)
    pooled: set[Proven] = set()
    if env is ENV:  # wait for the background refill, then see a code leave the pool
        sync = redis.Redis.from_url(server.redis_url)

        async def full() -> bool:
            return sync.scard(keys.pool(3)) >= 2

        await poll(full)
        pooled = {Proven.from_entry(raw) for raw in sync.smembers(keys.pool(3))}
    started, finished = await race_to_the_end(connect, server.ws_url, draw=3, deal="random")
    code = finished["deal"]
    assert same_board(started["board"], Game.deal(code))
    assert_proven(code, finished["par"])
    if pooled:
        assert Proven(code, finished["par"]) in pooled


async def test_a_typed_in_code_ignores_winnable_only(
    typed_in_server: ServerProcess, connect: Connect
) -> None:
    server = typed_in_server
    _, finished = await race_to_the_end(connect, server.ws_url, deal=HARD_DRAW3, winnable_only=True)
    assert finished["deal"] == HARD_DRAW3
    sync = redis.Redis.from_url(server.redis_url)

    async def par_given_up() -> bool:  # the race's par solve runs out ("": unknown)
        return sync.exists(keys.par(HARD_DRAW3)) == 1

    await poll(par_given_up)


async def test_a_typed_in_winnable_deal_gets_its_par(
    typed_in_server: ServerProcess, connect: Connect
) -> None:
    server = typed_in_server
    sync = redis.Redis.from_url(server.redis_url)
    assert sync.exists(keys.par(PAR_DRAW3)) == 0  # never solved before this race

    async def solved() -> bool:  # the server solves it from the start of the race
        return sync.exists(keys.par(PAR_DRAW3)) == 1

    _, finished = await race_to_the_end(connect, server.ws_url, solved, deal=PAR_DRAW3)
    assert_proven(PAR_DRAW3, finished["par"])


async def test_a_hint_in_a_practice_room_is_a_legal_move_for_my_board(
    typed_in_server: ServerProcess, connect: Connect
) -> None:
    server = typed_in_server
    ann = await connect(server.ws_url)
    await ann.create("Ann", deal=EASY_DRAW3, practice=True)
    assert ann.joined["state"]["settings"]["practice"] is True
    early = await ann.request("hint", type="hint")
    assert early["type"] == "error" and early["code"] == "wrong-phase"

    await ann.send(type="start", force=True)
    await ann.expect("started")
    game = Game.deal(EASY_DRAW3)
    for seq, move in enumerate(["S", "S"], start=1):
        assert (await ann.request("ack", type="move", seq=seq, move=move))["type"] == "ack"
        game.push(Move.parse(move))
    for seq in (3, 4):  # follow the hints: each is legal on the board as it is now
        reply = await ann.request("hint", type="hint")
        assert reply["type"] == "hint" and reply["move"], reply
        game.push(Move.parse(reply["move"]))  # raises if the move is illegal here
        ack = await ann.request("ack", type="move", seq=seq, move=reply["move"])
        assert ack["type"] == "ack", ack


async def test_hints_are_refused_in_races(typed_in_server: ServerProcess, connect: Connect) -> None:
    server = typed_in_server
    ann = await connect(server.ws_url)
    await ann.create("Ann", deal=EASY_DRAW3)
    await ann.send(type="start", force=True)
    await ann.expect("started")
    refused = await ann.request("hint", type="hint")
    assert refused["type"] == "error" and refused["code"] == "not-allowed"
    ack = await ann.request("ack", type="move", seq=1, move="S")
    assert ack["type"] == "ack" and ack["seq"] == 1  # nothing else changed


async def test_a_dead_worker_is_replaced(pool: DealPool) -> None:
    solving = pool.solve_par(EASY_DRAW3, "ROOM")
    assert solving is not None
    await solving  # a worker is running now
    for process in list(pool.executor._processes.values()):
        process.kill()
        process.join()
    with pytest.raises(ProtocolError) as refused:  # the next job learns the worker died
        for _ in range(3):
            await pool.hint("ROOM", "player", Game.deal(EASY_DRAW3).to_dict())
    assert refused.value.code == "unavailable"
    move = await pool.hint("ROOM", "player", Game.deal(EASY_DRAW3).to_dict())
    assert move is not None
    Game.deal(EASY_DRAW3).push(Move.parse(move))  # a legal first move
