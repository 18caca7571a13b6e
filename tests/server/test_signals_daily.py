"""A daily result is judged once it is written, on real parts: the in-process
hub (``inprocess.py``) with a redis-server's solver worker behind its signal
service (``solving.integrity``). The solver's winning line, undos thrown in,
is flagged and queued for review; a racer who gave up is recorded, unflagged,
and cost the solver nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from canfield.solver import solve
from canfield_server.ops.config import Settings
from canfield_server.room.ports import daily_result
from canfield_server.solving.deal_pool import DealPool
from canfield_server.solving.integrity import LineSignals
from canfield_server.storage.embedded_redis import EmbeddedRedis

from tests.server.inprocess import HubClient, Rooms

#: the in-process daily deal of Draw 1 (``inprocess.Rooms``)
DAILY_D1 = "CF1-D1-AAAAACL"
SETTINGS = Settings(solver_workers=1, solver_niceness=0, pool_target=0, countdown_s=0.1)


@pytest.fixture
async def signals(redis_server: EmbeddedRedis) -> AsyncIterator[LineSignals]:
    client = aioredis.from_url(redis_server.url)
    pool = DealPool(client, SETTINGS)
    yield LineSignals(pool, SETTINGS)
    await pool.close()
    await client.aclose()


async def daily(world: Rooms, name: str, moves: list[str]) -> str:
    """Race today's Draw 1 daily as a new identity; its public id."""
    client: HubClient = await world.open(0)
    found = await client.request("identity", type="identify")
    await client.request("daily_started", type="daily", name=name, draw=1)
    for seq, move in enumerate(moves, 1):
        kind = {"U": "undo", "G": "give_up"}.get(move, "move")
        fields = {"move": move} if kind == "move" else {}
        assert (await client.request("ack", type=kind, seq=seq, **fields))["type"] == "ack"
    await client.expect("daily_finished")
    return str(found["id"])


async def test_a_solved_daily_is_flagged_and_a_given_up_one_is_not(signals: LineSignals) -> None:
    world = Rooms(SETTINGS, signals=signals)
    try:
        line = solve(DAILY_D1, 10).moves
        cheat = [line[0], line[1], "U", *line[1:40], "S", "U", *line[40:]]
        cheater = await daily(world, "Quick", cheat)
        quitter = await daily(world, "Slow", ["S", "G"])
        await asyncio.gather(*world.hubs[0].rooms.tasks)  # the assessments, off the move path
        date = world.hubs[0].daily.today()
        flagged = await world.integrity.case(daily_result(date, 1, cheater))
        assert flagged is not None and flagged.kind == "daily" and flagged.status == "open"
        assert flagged.reasons and flagged.reasons[0].startswith("solver agreement")
        assert flagged.signals.won and flagged.signals.actions == len(cheat)
        kept: Any = await world.integrity.case(daily_result(date, 1, quitter))
        assert kept is not None and kept.reasons == [] and kept.status == ""
        assert not kept.signals.won and kept.signals.solver_calls == 0
        assert [c.result for c in await world.integrity.open_cases(10)] == [flagged.result]
    finally:
        await world.close()
