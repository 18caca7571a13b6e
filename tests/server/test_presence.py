"""Presence and timers on a real redis-server, with two hubs (two processes' worth).

Promise (room/presence.py): a heartbeat never finds a member who just
joined "not connected" (joins and heartbeats run concurrently, round after
round, with a grace time as short as the heartbeat); and a room's timers
run with nobody connected anywhere: once every connection is gone, the
sweep gives up the seats whose grace ran out and ends the race, and a
race whose time ran out ends at the next sweep.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import msgspec
import pytest
from canfield_protocol import Create, Join, Leave, Role, Start
from canfield_server.ops.clock import ManualClock
from canfield_server.ops.config import Settings
from canfield_server.room.hub import Hub
from canfield_server.room.ports import RoomRecord, RoomSave
from canfield_server.storage import keys
from canfield_server.storage.embedded_redis import EmbeddedRedis
from canfield_server.storage.store import RedisStore

from tests.server.helpers import DEAL, hubs_on
from tests.server.inprocess import MemoryPeer

ROUNDS = 120
TIMEOUT = 20.0


@pytest.fixture
async def held_hubs(redis_server: EmbeddedRedis) -> AsyncIterator[tuple[ManualClock, list[Hub]]]:
    """Two hubs on one redis-server (heartbeat and grace both 0.1 s, sweeps by
    hand) on a clock that moves only when told: no heartbeat goes stale because
    the machine paused, so a member judged away was judged by the race between a
    join and a beat alone; a grace or a time limit runs out when the test says."""
    clock = ManualClock()
    settings = Settings(
        countdown_s=0.05, presence_s=0.1, away_grace_s=0.1, room_updates_hz=0, timer_sweep_s=0
    )
    async with hubs_on(redis_server.url, settings, clock) as two:
        yield clock, two


async def stored(hub: Hub, code: str) -> RoomRecord:
    record = await hub.store.load_room(code)
    assert record is not None
    return record


async def test_a_heartbeat_never_finds_a_new_member_away(
    held_hubs: tuple[ManualClock, list[Hub]],
) -> None:
    clock, (one, two) = held_hubs
    host = MemoryPeer()
    await one.handle(host, Create(name="Ann"))
    room = (await host.expect("joined"))["room"]
    rng = random.Random(7)
    peers = [host]
    for n in range(ROUNDS):
        hub = (one, two)[n % 2]
        peer = MemoryPeer()
        peers.append(peer)

        async def join(hub: Hub = hub, peer: MemoryPeer = peer, n: int = n) -> None:
            await asyncio.sleep(rng.random() * 0.002)
            await hub.handle(peer, Join(room=room, name=f"Fan {n}", role=Role.SPECTATOR))

        async def beat(hub: Hub) -> None:
            await asyncio.sleep(rng.random() * 0.002)
            await hub.presence.beat()

        await asyncio.gather(join(), beat(one), beat(two))
        assert (await peer.expect("joined"))["room"] == room
    await asyncio.gather(one.presence.beat(), two.presence.beat())
    await clock.advance(0.3)  # longer than the grace: a seat wrongly given up would be gone
    state = (await stored(one, room)).state
    assert len(state.members) == ROUNDS + 1
    assert [m.name for m in state.members if not m.connected] == []


async def start_race(clock: ManualClock, hub: Hub) -> tuple[str, MemoryPeer, MemoryPeer]:
    host, guest = MemoryPeer(), MemoryPeer()
    await hub.handle(host, Create(name="Ann"))
    room = (await host.expect("joined"))["room"]
    await hub.handle(guest, Join(room=room, name="Bob"))
    await guest.expect("joined")
    await hub.handle(host, Start(force=True))
    await clock.advance(hub.settings.countdown_s)  # the countdown runs out
    await host.expect("started")
    return room, host, guest


async def sweep_until_finished(clock: ManualClock, hub: Hub, room: str) -> None:
    async with asyncio.timeout(TIMEOUT):
        while True:
            await hub.presence.sweep()
            record = await stored(hub, room)
            if record.final:
                return
            await clock.advance(0.05)  # the sweep is a clock: run it again, later


async def test_a_race_nobody_is_connected_to_ends_after_the_grace(
    held_hubs: tuple[ManualClock, list[Hub]],
) -> None:
    clock, (one, two) = held_hubs
    room, host, guest = await start_race(clock, one)
    for peer in (host, guest):  # every connection goes: the room is served nowhere
        await one.detach(peer)
    assert room not in one.sessions and room not in two.sessions
    gone = (await stored(one, room)).state
    assert {m.connected for m in gone.members} == {False}
    # the other process, which never served the room, settles it from Redis
    # nothing ends while the grace lasts
    await two.presence.sweep()
    assert (await stored(two, room)).final is None
    await clock.advance(two.settings.away_grace_s)
    await sweep_until_finished(clock, two, room)
    record = await stored(two, room)
    assert record.final is not None
    standings = msgspec.json.decode(record.final)["standings"]
    assert {r["status"] for r in standings} == {"left"}
    assert record.state.members == []  # no ghost keeps a seat
    assert await two.store.due_rooms(clock.now_ms() + 3_600_000, 10) == []  # nothing to time
    assert room not in two.sessions  # settled, then let go


async def test_a_race_whose_time_ran_out_ends_at_the_next_sweep(
    held_hubs: tuple[ManualClock, list[Hub]],
) -> None:
    clock, (one, two) = held_hubs
    room, host, guest = await start_race(clock, one)
    # the clock of the race runs out while both are still connected to process one
    record = await stored(one, room)
    ended = msgspec.structs.replace(record.state, ends_at=clock.now_ms() - 1)
    assert await one.store.save_room(RoomSave(record.ver, ended)) is not None
    await one.store.schedule(room, ended.ends_at)
    await sweep_until_finished(clock, two, room)
    finished_record = await stored(two, room)
    assert finished_record.final is not None
    final = msgspec.json.decode(finished_record.final)
    assert {r["status"] for r in final["standings"]} == {"timed_out"}
    for peer in (host, guest):  # the players, on the other process, are told
        finished = await peer.expect("finished")
        assert finished["standings"] == final["standings"]
    assert DEAL  # the same helpers as test_hub


async def test_a_crowd_passing_through_leaves_the_presence_table_small(
    held_hubs: tuple[ManualClock, list[Hub]],
) -> None:
    """A count back at 0 goes at once: each arrival's and departure's read of
    the room's presence stays the size of who is there, not of who ever was."""
    _, (one, _) = held_hubs
    store = one.store
    assert isinstance(store, RedisStore)  # hubs_on: the hubs keep rooms in Redis
    host = MemoryPeer()
    await one.handle(host, Create(name="Ann"))
    room = (await host.expect("joined"))["room"]
    for n in range(40):
        fan = MemoryPeer()
        await one.handle(fan, Join(room=room, name=f"Fan {n}", role=Role.SPECTATOR))
        await fan.expect("joined")
        await one.handle(fan, Leave())
        await fan.expect("left")

    async def counted() -> list[bytes]:
        table = await store.redis.hgetall(keys.presence(room))
        fields = [field for field in table if isinstance(field, bytes)]
        assert len(fields) == len(table), "a client without decode_responses reads bytes"
        return [field for field in fields if not field.startswith(b"@")]

    # the last departure is counted out just after its "left", off its reply's path
    async with asyncio.timeout(TIMEOUT):
        while one.rooms.tasks:
            await asyncio.gather(*one.rooms.tasks)
    assert await counted() == [f"{host.member_id}|{store.origin.decode()}".encode()]
