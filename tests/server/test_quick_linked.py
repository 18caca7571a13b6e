"""Every path into a public race links the seat to the racer's identity, where the
seat is taken: a quick race, race again, the band re-look's move (to a race
another process opened), a resume on another process. Each racer is then
rated (their row in ``finished`` carries a rating) and the race is in their
history. In process, on the manual clock (``inprocess.py``); the same with
real server processes in ``test_quick_linked_live.py``.
"""

from __future__ import annotations

from typing import Any

from tests.server.conftest import MakeRooms
from tests.server.helpers import IN_PROCESS_BANDS, rate_far_in
from tests.server.inprocess import HubClient, Rooms

#: a public race counts down 1 s; nobody is offered a bot race meanwhile
QUICK = {"countdown_s": 1, "quick_bot_offer_s": 60}


async def identified(world: Rooms, process: int = 0) -> tuple[HubClient, str]:
    client = await world.open(process)
    token = (await client.request("identity", type="identify"))["token"]
    return client, token


async def give_up_and_finish(racers: list[HubClient]) -> list[dict[str, Any]]:
    """Every racer gives up once the race is dealt: each one's ``finished``."""
    for racer in racers:
        await racer.expect("started")
    for racer in racers:
        await racer.send(type="give_up", seq=1)
    return [await racer.expect("finished") for racer in racers]


def rated(finished: dict[str, Any]) -> dict[str, int | None]:
    """Each racer's rating in the race's results, by name."""
    return {row["name"]: row.get("rating") for row in finished["standings"]}


async def rooms_raced(client: HubClient) -> list[str]:
    """The public races in the racer's history, newest first."""
    history = await client.request("history", type="history")
    return [race["room"] for race in history["races"] if race["kind"] == "room"]


async def test_two_racers_of_a_quick_race_are_rated_and_keep_it(rooms: MakeRooms) -> None:
    world = await rooms(processes=2, **QUICK)
    (ann, _), (bob, _) = await identified(world, 0), await identified(world, 1)
    room = (await ann.request("joined", type="quick", name="Ann", draw=3))["room"]
    assert (await bob.request("joined", type="quick", name="Bob", draw=3))["room"] == room

    finished = await give_up_and_finish([ann, bob])
    assert all(rating is not None for rating in rated(finished[0]).values())
    assert await rooms_raced(ann) == [room] and await rooms_raced(bob) == [room]


async def test_racers_who_race_again_are_rated_in_the_next_public_race(
    rooms: MakeRooms,
) -> None:
    """Both racers press Race again: the next public race (a new room) rates both
    and is in both histories, above the first."""
    world = await rooms(processes=2, **QUICK)
    (ann, _), (bob, _) = await identified(world, 0), await identified(world, 1)
    first = (await ann.request("joined", type="quick", name="Ann", draw=3))["room"]
    await bob.request("joined", type="quick", name="Bob", draw=3)
    await give_up_and_finish([ann, bob])

    again = (await ann.request("joined", type="race_again"))["room"]
    assert again != first
    assert (await bob.request("joined", type="race_again"))["room"] == again
    finished = await give_up_and_finish([ann, bob])
    assert all(rating is not None for rating in rated(finished[1]).values())
    assert await rooms_raced(ann) == [again, first]
    assert await rooms_raced(bob) == [again, first]


async def test_a_racer_moved_by_the_band_re_look_is_rated_and_keeps_the_race(
    rooms: MakeRooms,
) -> None:
    """Far (600 above) waits alone in a race on one process, Ann in hers on the
    other; once the bands widen, Far's look again moves Far into Ann's race. Far's
    seat there is theirs: a second tab of Far's identity is refused a seat in
    the same race, both are rated and both keep the race."""
    world = await rooms(processes=2, **{**IN_PROCESS_BANDS, "countdown_s": 5})
    ann, _ = await identified(world, 1)
    far, token = await identified(world, 0)
    await rate_far_in(world, token)

    first = (await ann.request("joined", type="quick", name="Ann", draw=3))["room"]
    await world.clock.advance(1)  # Ann's race is a second older than Far's
    own = (await far.request("joined", type="quick", name="Far", draw=3))["room"]
    assert own != first
    moved = await far.expect("joined")  # Far's look again, 3 s on
    assert moved["room"] == first and far.peer.room == first
    assert moved["player_id"] in await world.hubs[1].identities.store.room_identities(first)

    tab = await world.open(1)
    await tab.request("identity", type="identify", token=token)
    refused = await tab.request("error", type="quick", name="Far", draw=3)
    assert refused["code"] == "already-in-room"

    finished = await give_up_and_finish([far, ann])
    assert rated(finished[0]) == rated(finished[1])
    assert all(rating is not None for rating in rated(finished[0]).values())
    assert await rooms_raced(far) == [first] and await rooms_raced(ann) == [first]


async def test_a_racer_resumed_on_another_process_is_rated_and_keeps_the_race(
    rooms: MakeRooms,
) -> None:
    """Ann's page reloads onto the other process while she waits: her seat, taken
    again there, is still hers when Bob comes and they race."""
    world = await rooms(processes=2, **QUICK)
    ann, token = await identified(world, 0)
    joined = await ann.request("joined", type="quick", name="Ann", draw=3)
    await ann.close()
    back = await world.open(1)
    await back.request("identity", type="identify", token=token)
    assert (await back.resume(joined["room"], joined["token"]))["room"] == joined["room"]

    bob, _ = await identified(world, 0)
    assert (await bob.request("joined", type="quick", name="Bob", draw=3))["room"] == joined["room"]
    finished = await give_up_and_finish([back, bob])
    assert all(rating is not None for rating in rated(finished[0]).values())
    assert await rooms_raced(back) == [joined["room"]] and await rooms_raced(bob) == [
        joined["room"]
    ]
