"""The daily race and identities, in process (``inprocess.py``): two hubs' worth
on one storage, and a clock that moves to tomorrow when a test says so.

The same behaviour on real processes and a real redis-server, with the
solver proving each day's deal, is in ``test_daily.py`` and ``test_history.py``.
"""

from __future__ import annotations

import json

from tests.server.conftest import MakeRooms
from tests.server.inprocess import HubClient, Rooms

DAY_MS = 86_400_000


async def identified(
    world: Rooms, process: int, token: str | None = None
) -> tuple[HubClient, dict]:
    client = await world.open(process)
    reply = await client.request("identity", type="identify", token=token)
    assert reply["type"] == "identity", reply
    return client, reply


async def test_one_daily_deal_and_standing_on_two_processes_then_shown_next_day(
    rooms: MakeRooms,
) -> None:
    world = await rooms(processes=2)
    ann, issued = await identified(world, 0)
    started = await ann.request("daily_started", type="daily", name="Ann", draw=3)
    assert started["type"] == "daily_started" and started["resumed"] is False
    today = started["date"]
    assert (await ann.request("ack", type="move", seq=1, move="S"))["move"] == "S"

    # the same identity on the other process resumes the same attempt
    again, known = await identified(world, 1, issued["token"])
    assert known["id"] == issued["id"] and known["new"] is False
    resumed = await again.request("daily_started", type="daily", name="Ann", draw=3)
    assert resumed["resumed"] is True and resumed["last_seq"] == 1
    assert resumed["board"] == (await ann.request("ack", type="move", seq=1, move="S"))["board"]
    gave_up = await again.request("ack", type="give_up", seq=2)
    assert gave_up["type"] == "ack" and gave_up["move"] == "G"
    done = await again.expect("daily_finished")
    assert done["row"]["status"] == "gave_up" and done["players"] == 1 and done["streak"] == 1
    refused = await again.request("daily_started", type="daily", name="Ann", draw=3)
    assert refused["code"] == "daily-played"

    # a second player on the first process sees one standing with both
    bob, _ = await identified(world, 0)
    await bob.request("daily_started", type="daily", name="Bob", draw=3)
    await bob.request("ack", type="give_up", seq=1)
    standing = await bob.request("daily_standing", type="daily_standing", draw=3)
    assert standing["players"] == 2 and standing["over"] is False
    assert standing["deal"] is None  # nothing names today's deal
    status, body = await world.hubs[0].replay(done["replay"].rsplit("/", 1)[-1])
    assert status == 403 and "on" in str(body)

    # tomorrow (the clock says so): the deal and the replay are shown
    await world.clock.advance(DAY_MS / 1000)
    past = await bob.request("daily_standing", type="daily_standing", draw=3, date=today)
    assert past["over"] is True and past["deal"] == world.backend.daily_codes[(today, 3)]
    status, body = await world.hubs[1].replay(done["replay"].rsplit("/", 1)[-1])
    assert status == 200 and isinstance(body, bytes)
    replay = json.loads(body)
    assert replay["kind"] == "daily" and replay["players"][0]["moves_list"] == ["S", "G"]


async def test_a_room_race_reaches_each_racers_history_and_one_replay(rooms: MakeRooms) -> None:
    world = await rooms(countdown_s=0.1)
    ann, issued = await identified(world, 0)
    room = (await ann.create("Ann", deal="CF1-D3-AAAAACL"))["room"]
    bob = await world.open(0)  # no identity: races, keeps no history
    await bob.join(room, "Bob")
    await ann.send(type="start", force=True)
    await ann.expect("started")
    await ann.request("ack", type="move", seq=1, move="S")
    await ann.request("ack", type="give_up", seq=2)
    await bob.request("ack", type="give_up", seq=1)
    finished = await ann.expect("finished")
    assert finished["replay"].startswith("/replay/r-")

    history = await ann.request("history", type="history", limit=5)
    assert history["id"] == issued["id"] and len(history["races"]) == 1
    race = history["races"][0]
    assert race["kind"] == "room" and race["players"] == 2 and race["moves"] == 1
    assert race["replay"] == finished["replay"]
    status, body = await world.hubs[0].replay(finished["replay"].rsplit("/", 1)[-1])
    assert status == 200 and isinstance(body, bytes)
    replay = json.loads(body)
    assert replay["kind"] == "room" and {p["name"] for p in replay["players"]} == {"Ann", "Bob"}

    removed = await ann.request("history_deleted", type="delete_history")
    assert removed["removed"] == 1
    assert (await ann.request("history", type="history"))["races"] == []
