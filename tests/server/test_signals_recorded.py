"""A result is judged once it is written, on real parts: the in-process hub
(``inprocess.py``, on its manual clock) with a redis-server's solver worker
behind its signal service (``solving.integrity``). The solver's winning line
played at a human pace (about 1 s a move, undos and a stock turn thrown in)
is flagged and queued for review with the identities it shares a network
with; a racer who gave up is recorded, unflagged, and cost the solver
nothing.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from canfield.solver import solve
from canfield_server.ops.config import Settings
from canfield_server.room.ports import daily_result, room_result
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


#: a household's network, and another
HOME, HOME_TOO, ELSEWHERE = "198.51.100.7", "198.51.100.8", "203.0.113.9"


async def daily(
    world: Rooms, name: str, moves: list[str], ip: str = ELSEWHERE, pace_s: float = 0.0
) -> str:
    """Race today's Draw 1 daily as a new identity from ``ip``, thinking a
    log-normal time of median ``pace_s`` before each action; its public id."""
    client: HubClient = await world.open(0, ip=ip)
    found = await client.request("identity", type="identify")
    await client.request("daily_started", type="daily", name=name, draw=1)
    think = random.Random(7)
    for seq, move in enumerate(moves, 1):
        if pace_s:
            await world.clock.advance(pace_s * think.lognormvariate(0, 0.5))
        kind = {"U": "undo", "G": "give_up"}.get(move, "move")
        fields = {"move": move} if kind == "move" else {}
        assert (await client.request("ack", type=kind, seq=seq, **fields))["type"] == "ack"
    await client.expect("daily_finished")
    return str(found["id"])


async def test_a_solved_daily_is_flagged_with_its_network_and_a_given_up_one_is_not(
    signals: LineSignals,
) -> None:
    world = Rooms(SETTINGS, signals=signals)
    try:
        line = solve(DAILY_D1, 10).moves
        cheat = [line[0], line[1], "U", *line[1:40], "S", "U", *line[40:]]
        # a throwaway from the household starts the daily first (it scouts the deal)
        scout = await daily(world, "Scout", ["S", "G"], ip=HOME)
        cheater = await daily(world, "Quick", cheat, ip=HOME_TOO, pace_s=1.0)
        quitter = await daily(world, "Slow", ["S", "G"])
        await asyncio.gather(*world.hubs[0].rooms.tasks)  # the assessments, off the move path
        date = world.hubs[0].daily.today()
        flagged = await world.integrity.case(daily_result(date, 1, cheater))
        assert flagged is not None and flagged.kind == "daily" and flagged.status == "open"
        assert flagged.reasons and flagged.reasons[0].startswith("solver agreement")
        assert flagged.signals.won and flagged.signals.actions == len(cheat)
        # played at a human pace: the receipt times say so
        assert 500 <= flagged.signals.think_median_ms <= 2_000, flagged.signals
        # the evidence names the network and who started the daily from it first
        assert flagged.network == "198.51.100.0/24" and flagged.shares == [scout]
        kept: Any = await world.integrity.case(daily_result(date, 1, quitter))
        assert kept is not None and kept.reasons == [] and kept.status == ""
        assert not kept.signals.won and kept.signals.solver_calls == 0
        assert kept.network == "203.0.113.0/24" and kept.shares == []
        assert [c.result for c in await world.integrity.open_cases(10)] == [flagged.result]
    finally:
        await world.close()


async def test_a_room_racers_case_names_the_identities_on_its_network(
    signals: LineSignals,
) -> None:
    world = Rooms(SETTINGS, signals=signals)
    try:
        racers: list[HubClient] = []
        ids: dict[str, str] = {}
        for name, ip in (("Ann", HOME), ("Bo", HOME_TOO), ("Cy", ELSEWHERE)):
            client = await world.open(0, ip=ip)
            ids[name] = str((await client.request("identity", type="identify"))["id"])
            racers.append(client)
        ann, bo, cy = racers
        room = (await ann.create("Ann", draw=3, deal="CF1-D3-AAAAACL"))["room"]
        await bo.join(room, "Bo")
        await cy.join(room, "Cy")
        await ann.send(type="start", force=True)
        for racer in racers:
            await racer.expect("started", timeout=30)
        for racer in racers:
            await racer.send(type="give_up", seq=1)
        finished = await ann.expect("finished", timeout=30)
        await asyncio.gather(*world.hubs[0].rooms.tasks)
        member = {row["name"]: row["id"] for row in finished["standings"]}
        race_no = world.backend.rooms[room].race
        cases = {
            name: await world.integrity.case(room_result(room, race_no, member[name]))
            for name in member
        }
        assert cases["Ann"] is not None and cases["Ann"].shares == [ids["Bo"]]
        assert cases["Bo"] is not None and cases["Bo"].shares == [ids["Ann"]]
        assert cases["Ann"].network == cases["Bo"].network == "198.51.100.0/24"
        assert cases["Cy"] is not None and cases["Cy"].shares == []
        assert cases["Cy"].public_id == ids["Cy"] and cases["Cy"].kind == "room"
    finally:
        await world.close()
