"""A room lives its TTL after its last move, though a move refreshes the TTLs
only on a racer's first move of a race here and then once a 64th of it has
passed (``storage/refreshes.py``): a real Redis, a manual clock."""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgspec
import pytest
from canfield_protocol import MemberStatus, Phase, Role, RoomState
from canfield_server.ops.clock import ManualClock
from canfield_server.room import rules
from canfield_server.room.ports import MoveRecord, RoomSave, Stored, StoredRow
from canfield_server.storage import keys
from canfield_server.storage.embedded_redis import EmbeddedRedis
from canfield_server.storage.refreshes import Refreshes
from canfield_server.storage.store import RedisStore
from redis.asyncio import Redis

TTL_S = 6400  # a 64th: 100 s
ROOM = "ROOM"


def racing(race: int) -> RoomState:
    state = rules.add_member(rules.create_room(ROOM, "p0", "Ann"), "p1", "Bo", Role.PLAYER)
    return msgspec.structs.replace(state, phase=Phase.RACING, race=race)


def move(member_id: str, seq: int, race: int = 1) -> MoveRecord:
    """The racer's draw from the stock, its ``seq``-th action of race ``race``."""
    row = StoredRow(
        id=member_id,
        name=member_id,
        score=0,
        on_foundations=0,
        moves=seq,
        status=MemberStatus.PLAYING,
        time_ms=seq * 100,
        at=0,
    )
    return MoveRecord(ROOM, member_id, race, seq - 1, "S", b"{}", row, False)


def race_keys(member_id: str) -> list[str]:
    return [
        *keys.room_keys(ROOM),
        keys.player(ROOM, member_id),
        keys.log(ROOM, member_id),
        keys.servers(ROOM),
    ]


@pytest.fixture
async def redis(redis_server: EmbeddedRedis) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_server.url)
    try:
        yield client
    finally:
        await client.aclose()


async def fresh(redis: Redis, member_id: str) -> bool:
    """Every key of the race there is (no token or presence yet here) has its TTL."""
    found = [await redis.ttl(key) for key in race_keys(member_id)]
    there = [ttl for ttl in found if ttl != -2]
    return len(there) >= 5 and all(TTL_S - 5 <= ttl <= TTL_S for ttl in there)


async def test_a_move_refreshes_the_race_s_keys_when_they_may_have_run_down(
    redis: Redis, redis_server: EmbeddedRedis
) -> None:
    clock = ManualClock()
    store = RedisStore(redis, redis_server.url, TTL_S, b"a", clock)
    try:
        assert await store.save_room(RoomSave(0, racing(1), new_race=["p0", "p1"]))
        await redis.hset(keys.servers(ROOM), "a", 1)  # this process serves it (no TTL yet)
        # the first move creates the racer's keys and the rows: all seven get the TTL
        assert await store.apply(move("p0", 1)) == Stored()
        assert await fresh(redis, "p0")
        # within a 64th of the TTL a move refreshes nothing (one key run down shows it)
        await redis.expire(keys.log(ROOM, "p0"), 1000)
        await clock.advance(99)
        assert await store.apply(move("p0", 2)) == Stored()
        assert 990 <= await redis.ttl(keys.log(ROOM, "p0")) <= 1000
        # a 64th after the last refresh, the next move refreshes every key again
        await clock.advance(1)
        assert await store.apply(move("p0", 3)) == Stored()
        assert await fresh(redis, "p0")
        # another racer's first move refreshes too (its keys are new)
        assert await store.apply(move("p1", 1)) == Stored()
        assert await fresh(redis, "p1")
        # a new race recreates the keys: its first move refreshes, whatever the clock
        assert await store.save_room(RoomSave(1, racing(2), new_race=["p0", "p1"]))
        assert await redis.exists(keys.rows(ROOM), keys.log(ROOM, "p0")) == 0
        assert await store.apply(move("p0", 1, race=2)) == Stored()
        assert await fresh(redis, "p0")
    finally:
        await store.close()


def test_only_racers_refreshed_within_a_64th_are_remembered() -> None:
    refreshes = Refreshes(ttl_s=64)  # a 64th: 1 s
    assert refreshes.due(("R", "a", 1), 0)
    refreshes.done(("R", "a", 1), 0)
    assert not refreshes.due(("R", "a", 1), 999)
    assert refreshes.due(("R", "a", 2), 999)  # another race of the same racer
    refreshes.done(("R", "b", 1), 500)
    assert refreshes.due(("R", "a", 1), 1000)
    refreshes.done(("R", "c", 1), 1000)  # a 64th since the last sweep: "a" goes
    assert len(refreshes) == 2
    refreshes.done(("R", "d", 1), 1999)  # the next sweep waits a 64th
    assert len(refreshes) == 3
    refreshes.done(("R", "e", 1), 2000)
    assert len(refreshes) == 2  # "b" and "c" gone, "d" and "e" kept
