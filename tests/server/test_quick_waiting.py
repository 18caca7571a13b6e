"""The waiting screen's facts, from the server (in process, on the manual
clock): a racer waiting alone for a public race is offered a bot race at
once and told, on arrival and each time the bands widen, how many wait in
their draw mode (counts only, on every process) and how far their race's
band reaches now; a racer who cancels, moves or gets company is counted
no more. And a watcher who comes to a public race is no host of it.
"""

from __future__ import annotations

from typing import Any

from tests.server.conftest import MakeRooms
from tests.server.helpers import rate_far_in
from tests.server.inprocess import HubClient, Rooms

#: bands of 100 that widen by 100 every 5 s (the defaults), or by 10 (``SLOW``):
#: a racer 600 above newcomers meets none of them in this test's minutes
SLOW = {"quick_band_widen_points": 10}
#: exactly what a waiting screen is told: nobody's name, rating or room
FIELDS = {"type", "room", "draw", "searching", "band", "band_most", "queued_at", "server_time"}


async def identified(world: Rooms, process: int = 0) -> tuple[HubClient, str]:
    client = await world.open(process)
    token = (await client.request("identity", type="identify"))["token"]
    return client, token


async def searching(client: HubClient, **want: Any) -> dict[str, Any]:
    """The next ``searching`` that says ``want`` (the clock runs on to it)."""
    return await client.expect(
        "searching", lambda m: all(m[k] == v for k, v in want.items()), timeout=10
    )


async def test_a_lone_racer_is_offered_a_bot_at_once_and_told_the_wait(
    rooms: MakeRooms,
) -> None:
    world = await rooms()
    ann, _ = await identified(world)
    start = world.clock.now_ms()
    joined = await ann.request("joined", type="quick", name="Ann", draw=3)
    room = joined["room"]
    told = await searching(ann)
    offer = await ann.expect("bot_offer")
    assert offer["room"] == room and offer["waited_s"] == 0
    assert set(told) == FIELDS
    assert told == told | {"room": room, "draw": 3, "searching": 1, "band": 100}
    assert told["band_most"] == 1000 and told["queued_at"] == start
    assert world.clock.now_ms() == start  # all of it at once, before any time passed

    # each time the bands widen: told again, the band wider, the wait's start kept
    wider = await searching(ann, band=200)
    assert wider["queued_at"] == start and wider["server_time"] == start + 5000
    assert (await searching(ann, band=300))["server_time"] == start + 10_000
    kinds = [m["type"] for m in ann.log]
    assert kinds.index("joined") < kinds.index("searching")  # the screen comes first


async def ann_bob_far(world: Rooms) -> list[HubClient]:
    """Ann and Bob on two processes, newcomers, and Far, 600 above them."""
    ann, _ = await identified(world, 0)
    bob, _ = await identified(world, 1)
    far, token = await identified(world, 1)
    await rate_far_in(world, token)
    return [ann, bob, far]


async def test_the_count_is_of_one_draw_mode_on_every_process(rooms: MakeRooms) -> None:
    ann, bob, far = await ann_bob_far(await rooms(processes=2, **SLOW))

    await ann.request("joined", type="quick", name="Ann", draw=3)
    assert (await searching(ann))["searching"] == 1
    await bob.request("joined", type="quick", name="Bob", draw=1)  # another draw mode
    assert (await searching(bob))["searching"] == 1
    # Far, 600 above Ann, in Draw 3 on the other process: too far to meet, both search
    far_room = (await far.request("joined", type="quick", name="Far", draw=3))["room"]
    assert (await searching(far))["searching"] == 2
    assert (await searching(ann, searching=2))["band"] == 110  # at Ann's next look
    assert (await searching(bob, band=110))["searching"] == 1

    # Ann cancels: counted no more, at once
    await ann.request("left", type="leave")
    told = await searching(far, band=120)  # at its next look
    assert told["searching"] == 1 and told["room"] == far_room


async def test_a_racer_who_gets_company_is_counted_no_more(rooms: MakeRooms) -> None:
    ann, bob, far = await ann_bob_far(await rooms(processes=2, **SLOW))
    room = (await ann.request("joined", type="quick", name="Ann", draw=3))["room"]
    assert (await searching(ann))["searching"] == 1
    assert (await bob.request("joined", type="quick", name="Bob", draw=3))["room"] == room
    await ann.expect("started", timeout=10)
    assert "searching" not in [m["type"] for m in bob.log]  # never alone: no waiting screen
    # the next racer of the draw mode waits alone: nobody else is searching
    await far.request("joined", type="quick", name="Far", draw=3)
    assert (await searching(far))["searching"] == 1


async def test_a_racer_back_on_a_new_connection_keeps_their_wait(rooms: MakeRooms) -> None:
    world = await rooms(processes=2)
    ann, token = await identified(world, 0)
    start = world.clock.now_ms()
    joined = await ann.request("joined", type="quick", name="Ann", draw=3)
    await searching(ann)
    await world.clock.advance(7)
    await ann.close()  # a reload, on the other process
    again = await world.open(1)
    await again.request("identity", type="identify", token=token)
    await again.resume(joined["room"], joined["token"])
    told = await searching(again)
    assert told["queued_at"] == start and told["searching"] == 1 and told["band"] == 200
    assert (await again.expect("bot_offer"))["room"] == joined["room"]


async def test_a_watcher_of_a_public_race_is_no_host_of_it(rooms: MakeRooms) -> None:
    """A public race has no host: one who comes to watch it is not made its host
    (no End race for them, nor anyone), so the race is the racers' to the end."""
    world = await rooms(countdown_s=0.2)
    racers = []
    for ip in ("10.1.0.1", "10.2.0.1"):
        client = await world.open(ip=ip)
        await client.request("identity", type="identify")
        racers.append(client)
    joined = await racers[0].request("joined", type="quick", name="Ann", draw=3)
    await racers[1].request("joined", type="quick", name="Bob", draw=3)
    await racers[0].expect("started")
    dee = await world.open(ip="10.3.0.1")
    watching = await dee.join(joined["room"], "Dee", "spectator")
    assert watching["role"] == "spectator" and watching["state"]["host_id"] == ""
    told = await racers[0].expect("room", lambda m: "Dee" in [x["name"] for x in m["members"]])
    assert told["host_id"] == ""
    refused = await dee.request("error", type="end_race")
    assert refused["code"] == "not-allowed"
    assert (await racers[1].request("ack", type="move", seq=1, move="S"))["type"] == "ack"
