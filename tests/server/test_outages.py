"""Storage outages in process: the stores fail when a test says so
(``storage.memory.failing``: the room stores, and the identity, daily,
daily-deal, rating and integrity stores), on the manual clock, in
milliseconds. What a player sees: a clear ``unavailable`` error, nothing
applied, and nothing acknowledged lost once storage is back.

The same paths run against a killed redis-server in
``tests/reliability/test_faults.py`` and ``test_race_live.py``; here each
outage is exact (which calls fail, how often), so what the room logic does
about it is pinned call by call.
"""

from __future__ import annotations

import msgspec
import pytest
from canfield_protocol import Phase
from canfield_server.room import identifiers
from canfield_server.room.ports import RoomSave
from canfield_server.room.results import OUTAGE_TRIES
from canfield_server.storage.errors import STORAGE_ERRORS
from canfield_server.storage.memory import MemoryBackend
from canfield_server.storage.memory.failing import Faults, StorageDown, failing
from canfield_server.storage.memory.store import MemoryRoomStore

from tests.server.conftest import MakeRooms
from tests.server.helpers import FAST, lobby, play, start


async def test_a_failing_adapter_raises_the_storage_error_and_applies_nothing() -> None:
    faults = Faults()
    store = failing(MemoryRoomStore(MemoryBackend(), 60, b"a"), faults)
    faults.fail("due_rooms", times=2)
    await store.schedule("ROOM", 5)  # not chosen: goes through
    for _ in range(2):
        with pytest.raises(StorageDown) as raised:
            await store.due_rooms(10, 5)
        assert isinstance(raised.value, STORAGE_ERRORS)  # what a Redis adapter raises
    assert await store.due_rooms(10, 5) == ["ROOM"]  # the two failures are spent
    faults.down = True  # every call fails now, until healed
    with pytest.raises(StorageDown):
        await store.schedule("ROOM", None)
    faults.heal()
    await store.schedule("ROOM", None)
    assert await store.due_rooms(10, 5) == []
    assert faults.failed == ["due_rooms", "due_rooms", "schedule"]
    assert store.origin == b"a" and store.presence_stale_ms == 15_000  # read through


async def test_results_are_retried_while_storage_is_down_and_written_once(
    rooms: MakeRooms,
) -> None:
    world = await rooms(**FAST)
    room, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"])
    await start([ann, bob])
    await play(ann, ["S"])
    assert (await ann.request("ack", type="give_up", seq=2))["type"] == "ack"
    # the race is over in storage with Bob's give-up; saving its results fails
    # three times (the back-off between the tries runs on the manual clock)
    world.faults.fail("save_room", times=3)
    assert (await bob.request("ack", type="give_up", seq=1))["type"] == "ack"
    finished = await ann.expect("finished")
    assert world.faults.failed == ["save_room"] * 3
    assert {r["name"]: r["status"] for r in finished["standings"]} == {
        "Ann": "gave_up",
        "Bob": "gave_up",
    }
    assert (await bob.expect("finished"))["standings"] == finished["standings"]
    record = await world.hubs[0].store.load_room(room)
    assert record is not None and record.final is not None
    assert msgspec.json.decode(record.final)["standings"] == finished["standings"]
    # written once: no second announcement follows
    assert (await ann.request("pong", type="ping", t=1))["type"] == "pong"
    assert [m["type"] for m in ann.log].count("finished") == 1


async def test_results_are_tried_outage_tries_times_then_given_up(rooms: MakeRooms) -> None:
    world = await rooms(**FAST)
    room, (ann,) = await lobby(world.open, 0, ["Ann"])
    await start([ann])
    world.faults.fail("save_room")  # down for longer than the results wait
    assert (await ann.request("ack", type="give_up", seq=1))["type"] == "ack"
    while world.faults.failed.count("save_room") < OUTAGE_TRIES:
        assert await world.clock.jump(), "the results gave up before their last try"
        await world.clock.settle()
    await world.clock.advance(60)  # no try after the last
    assert world.faults.failed == ["save_room"] * OUTAGE_TRIES
    record = await world.hubs[0].store.load_room(room)
    # the race is over in storage (the move ended it), its results not written
    assert record is not None and record.state.phase == Phase.FINISHED and record.final is None
    assert "finished" not in [m["type"] for m in ann.log]


async def test_the_timer_sweep_pauses_while_storage_is_down_and_ends_the_race_after(
    rooms: MakeRooms,
) -> None:
    world = await rooms(processes=2, timer_sweep_s=1.0, **FAST)
    one, two = world.hubs
    room, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"])
    await start([ann, bob])
    # the race's time runs out, known only to storage: process one's own timers
    # never learn of it, so only a sweep (process two's) can end the race
    record = await one.store.load_room(room)
    assert record is not None
    ended = msgspec.structs.replace(record.state, ends_at=world.clock.now_ms() - 1)
    assert await one.store.save_room(RoomSave(record.ver, ended)) is not None
    await one.store.schedule(room, ended.ends_at)
    world.faults.fail("due_rooms", times=3)
    two.start()
    try:
        finished = await ann.expect("finished")  # the clock jumps sweep to sweep
    finally:
        await two.stop()
    assert world.faults.failed == ["due_rooms"] * 3  # three sweeps paused, the fourth ran
    assert {r["status"] for r in finished["standings"]} == {"timed_out"}
    assert (await bob.expect("finished"))["standings"] == finished["standings"]


async def test_while_the_identity_store_is_down_identify_is_refused_clearly_and_issues_nothing(
    rooms: MakeRooms,
) -> None:
    world = await rooms()
    known = await world.open(0)
    mine = await known.request("identity", type="identify")
    token = mine["token"]
    issued = dict(world.backend.identities)

    world.faults.down = True  # Redis unreachable: every store's calls fail
    for asked in ({}, {"token": token}):  # a new player, and one coming back
        client = await world.open(0)
        refused = await client.request("identity", type="identify", **asked)
        assert refused["type"] == "error" and refused["code"] == "unavailable", refused
        assert "nothing applied" in refused["message"]
    assert world.backend.identities == issued  # no identity issued, none changed
    assert world.faults.failed and all(f.startswith("identity.") for f in world.faults.failed)

    world.faults.heal()
    back = await world.open(0)
    again = await back.request("identity", type="identify", token=token)
    assert again["type"] == "identity" and again["id"] == mine["id"] and again["new"] is False
    assert (await (await world.open(0)).request("identity", type="identify"))["new"] is True


async def test_a_daily_move_refused_in_an_outage_is_played_again_after_and_none_is_lost(
    rooms: MakeRooms,
) -> None:
    """The daily's moves while its store is down get a clear error, the move's
    number with it; the player sends it again once storage is back; the moves
    acknowledged before and after are all in the finished race."""
    world = await rooms()
    ann = await world.open(0)
    await ann.request("identity", type="identify")
    assert (await ann.request("daily_started", type="daily", name="Ann", draw=3))["type"] == (
        "daily_started"
    )
    await play(ann, ["S"])  # acknowledged before the outage

    world.faults.fail("daily.apply")
    refused = await ann.request("ack", type="move", seq=2, move="S")
    assert refused["type"] == "error" and refused["code"] == "unavailable", refused
    assert refused["seq"] == 2
    world.faults.heal()

    again = await ann.request("ack", type="move", seq=2, move="S")
    assert again["type"] == "ack" and not again.get("duplicate"), again
    assert (await ann.request("ack", type="give_up", seq=3))["type"] == "ack"
    done = await ann.expect("daily_finished")
    assert done["row"]["moves"] == 2 and done["players"] == 1  # both draws count
    assert world.faults.failed == ["daily.apply"]


async def test_a_daily_start_in_an_outage_is_refused_and_claims_no_attempt(
    rooms: MakeRooms,
) -> None:
    """Asked while the day's deal cannot be read, the daily is refused clearly;
    once storage is back the player starts it afresh (not 'played already')."""
    world = await rooms()
    ann = await world.open(0)
    await ann.request("identity", type="identify")
    world.faults.fail("deals.deal", "deals.known")
    refused = await ann.request("daily_started", type="daily", name="Ann", draw=3)
    assert refused["type"] == "error" and refused["code"] == "unavailable", refused
    world.faults.heal()
    started = await ann.request("daily_started", type="daily", name="Ann", draw=3)
    assert started["type"] == "daily_started" and started["resumed"] is False, started


async def test_a_public_race_whose_ratings_cannot_be_read_is_finished_and_rated_once_after(
    rooms: MakeRooms,
) -> None:
    """The ratings are read as the results are written: while the rating store is
    down the results wait (retried on the manual clock), then come with ratings,
    stored once."""
    world = await rooms(rating_min_races=1, rating_min_opponents=1)
    ann, bob = await world.open(0, ip="10.0.1.1"), await world.open(0, ip="10.0.2.1")
    tokens = [(await c.request("identity", type="identify"))["token"] for c in (ann, bob)]
    room = (await ann.request("joined", type="quick", name="Ann", draw=3))["room"]
    assert (await bob.request("joined", type="quick", name="Bob", draw=3))["room"] == room
    for racer in (ann, bob):
        await racer.expect("started")  # a quick race of two starts by itself
    assert (await ann.request("ack", type="give_up", seq=1))["type"] == "ack"
    world.faults.fail("ratings.ratings", times=2)
    assert (await bob.request("ack", type="give_up", seq=1))["type"] == "ack"
    finished = await ann.expect("finished")
    assert world.faults.failed == ["ratings.ratings"] * 2
    assert all(row.get("rating") is not None for row in finished["standings"]), finished
    assert (await bob.expect("finished"))["standings"] == finished["standings"]
    for token in tokens:
        points = await world.ratings.rating_history(identifiers.token_hash(token), 3, 10)
        assert len(points) == 1  # rated once, however many tries the results took
