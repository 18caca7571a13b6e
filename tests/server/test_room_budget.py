"""Room creation per client address fits a shared network (a school, an office,
a family behind one address): it is limited by the rooms the address holds
open and by a burst of new ones a minute, never by what it made over hours.

The room logic in process (``inprocess.py``): hubs over the in-memory
adapters on a manual clock, so a grace time, a minute or a room's lifetime
passes the moment a test asks.
"""

from __future__ import annotations

from typing import Any

from tests.server.conftest import MakeRooms
from tests.server.inprocess import HubClient

#: a short countdown and a 1 s grace time; a room lives 10 minutes idle
FAST = {"countdown_s": 0.2, "away_grace_s": 1.0, "room_ttl_s": 600}


def refusal(reply: dict[str, Any], cap: str, limit: int) -> int:
    """A ``rate-limited`` refusal naming ``cap`` and ``limit``; its ``retry_at``."""
    assert reply["type"] == "error" and reply["code"] == "rate-limited", reply
    assert reply["params"]["cap"] == cap and reply["params"]["limit"] == limit, reply
    retry_at: int = reply["params"]["retry_at"]
    return retry_at


async def hosting(world: Any, name: str) -> HubClient:
    """A client from the shared address that creates a room and stays in it."""
    client = await world.open()
    assert (await client.create(name))["type"] == "joined"
    return client


async def test_rooms_held_open_are_counted_and_each_ending_frees_one(rooms: MakeRooms) -> None:
    world = await rooms(**FAST, max_open_rooms_per_ip=2, max_new_rooms_per_ip_per_min=0)
    ann, bob = await hosting(world, "Ann"), await hosting(world, "Bob")
    cy = await world.open()
    for _ in range(2):  # a refused attempt counts nothing
        refused = await cy.create("Cy")
        retry_at = refusal(refused, "open_rooms", 2)
        assert "2 rooms open" in refused["message"]
        # a room stops counting one room TTL after it opened, at the latest
        assert retry_at == world.clock.now_ms() + 600_000
    assert (await (await world.open(ip="127.0.0.2")).create("Dee"))["type"] == "joined"

    # Ann's race is over: her room is no longer open, so Cy may make one
    await ann.request("started", type="start", force=True)
    await ann.send(type="end_race")
    await ann.expect("finished")
    assert (await cy.create("Cy"))["type"] == "joined"
    eve = await world.open()
    refusal(await eve.create("Eve"), "open_rooms", 2)

    # Bob closes his tab: once his grace time is over (the timer sweep of any
    # process settles it, the sweep a server runs every second) nobody is in his room
    await bob.close()
    await world.clock.advance(2)
    assert await world.hubs[0].presence.sweep() == 1
    assert (await eve.create("Eve"))["type"] == "joined"
    fay = await world.open()
    refusal(await fay.create("Fay"), "open_rooms", 2)

    # rooms left open stop counting one room TTL after they opened (they expire)
    await world.clock.advance(600)
    assert (await fay.create("Fay"))["type"] == "joined"


async def test_a_burst_of_new_rooms_waits_for_the_minute_to_pass(rooms: MakeRooms) -> None:
    world = await rooms(**FAST, max_open_rooms_per_ip=0, max_new_rooms_per_ip_per_min=2)
    client = await world.open()
    first = world.clock.now_ms()
    for _ in range(2):
        assert (await client.create("Ann"))["type"] == "joined"
        await client.request("left", type="leave")  # closed: only the burst limit is left
        await world.clock.advance(10)
    refused = await client.create("Ann")
    assert refusal(refused, "new_rooms", 2) == first + 60_000
    assert "in the last minute" in refused["message"]
    await world.clock.advance(40)  # the first room leaves the window
    assert (await client.create("Ann"))["type"] == "joined"
