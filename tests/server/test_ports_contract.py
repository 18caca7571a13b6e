"""One contract for each storage port, run against the Redis adapters (on a real
redis-server) and the in-memory ones: what the room logic relies on, the Lua
scripts' guarantees included, holds for both, so tests that run the room
logic in memory test what a server does.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, cast

import msgspec
import pytest
from canfield_protocol import Cap, MemberStatus, Phase, Role, RoomState
from canfield_server.ops.clock import ManualClock
from canfield_server.ops.config import Settings
from canfield_server.room import rules
from canfield_server.room.events import RoomEvent, RowEvent, unpack
from canfield_server.room.integrity import Signals
from canfield_server.room.ports import (
    REVIEW_CLEARED,
    REVIEW_CONFIRMED,
    REVIEW_OPEN,
    Band,
    Behind,
    ChallengeStore,
    DailyDeals,
    DailyMove,
    DailyStore,
    IdentitiesRefused,
    IdentityBudget,
    IdentityStore,
    IntegrityStore,
    LadderRow,
    MatchQueue,
    MoveRecord,
    NoAttempt,
    RaceOver,
    RaceSearch,
    RatingChange,
    RatingPoint,
    RatingStore,
    ReviewCase,
    RoomBudget,
    RoomSave,
    RoomsRefused,
    RoomStore,
    Stored,
    StoredRating,
    StoredRow,
    Taken,
    Waiting,
    daily_result,
    race_of,
    room_result,
)
from canfield_server.solving.daily_deal import DailyDealer, candidate
from canfield_server.solving.deal_pool import DealPool
from canfield_server.storage import keys, player_keys
from canfield_server.storage.challenge_store import RedisChallengeStore
from canfield_server.storage.daily_store import RedisDailyStore
from canfield_server.storage.history import RedisIdentityStore
from canfield_server.storage.integrity_store import RedisIntegrityStore
from canfield_server.storage.matchmaking import RedisMatchQueue
from canfield_server.storage.memory import (
    MemoryBackend,
    MemoryBus,
    MemoryChallengeStore,
    MemoryDailyDeals,
    MemoryDailyStore,
    MemoryIdentityStore,
    MemoryIntegrityStore,
    MemoryMatchQueue,
    MemoryRatingStore,
    MemoryRoomStore,
)
from canfield_server.storage.pubsub import RedisBus
from canfield_server.storage.rating_store import RedisRatingStore
from canfield_server.storage.store import RedisStore
from redis.asyncio import Redis

TTL_S = 600
MAX_RACES = 3
#: a new identity's lifetime here (a kept one: a day, ``retention_days=1``)
NEW_IDENTITY_S = 3600
TIMEOUT = 10.0


#: the daily deals' secret (``CANFIELD_DAILY_SECRET``)
SECRET = b"contract"


class _WinsAll:
    """The solver's part of ``DailyDealer``: every deal proves winnable."""

    async def prove(self, code: str, owner: str, timeout_s: float, wait_s: float) -> int | None:
        return 50

    async def remember_par(self, code: str, par: int | None) -> None:
        pass


@dataclass
class World:
    """One storage (a Redis, or a memory backend) and its adapters, on a manual clock."""

    kind: str
    clock: ManualClock
    backend: Any
    url: str = ""

    def store(self, origin: bytes) -> RoomStore:
        if self.kind == "memory":
            return MemoryRoomStore(self.backend, TTL_S, origin, self.clock)
        return RedisStore(self.backend, self.url, TTL_S, origin, self.clock)

    def bus(self) -> MemoryBus | RedisBus:
        return MemoryBus(self.backend) if self.kind == "memory" else RedisBus(self.backend)

    async def listening(self, code: str, subscribers: int = 1) -> None:
        """Until ``subscribers`` subscriptions to ``code`` are live (Redis confirms
        a SUBSCRIBE on its own time; an event published before that is not heard)."""
        if self.kind == "memory":
            return
        async with asyncio.timeout(TIMEOUT):
            while (await self.backend.pubsub_numsub(keys.channel(code)))[0][1] < subscribers:
                await asyncio.sleep(0.01)

    def identities(self) -> IdentityStore:
        if self.kind == "memory":
            return MemoryIdentityStore(
                self.backend,
                max_races=MAX_RACES,
                clock=self.clock,
                retention_days=1,
                new_ttl_s=NEW_IDENTITY_S,
            )
        return RedisIdentityStore(
            self.backend,
            retention_days=1,
            max_races=MAX_RACES,
            room_ttl_s=TTL_S,
            url=self.url,
            clock=self.clock,
            new_ttl_s=NEW_IDENTITY_S,
        )

    async def lifetime_s(self, token_hash: str) -> float:
        """Seconds an identity has left (its key's TTL; the memory one's time), or -2."""
        if self.kind == "memory":
            found = self.backend.identities.get(token_hash)
            return -2 if found is None else (found["until"] - self.clock.now_ms()) / 1000
        return float(await self.backend.ttl(player_keys.identity(token_hash)))

    def queue(self) -> MatchQueue:
        if self.kind == "memory":
            return MemoryMatchQueue(self.backend)
        return RedisMatchQueue(self.backend, self.url)

    def daily(self) -> DailyStore:
        if self.kind == "memory":
            return MemoryDailyStore(self.backend)
        return RedisDailyStore(self.backend, self.url, retention_days=1)

    def deals(self) -> DailyDeals:
        """One process's daily deals: every candidate proves winnable here."""
        if self.kind == "memory":
            return MemoryDailyDeals(
                self.backend, lambda date, draw: candidate(SECRET, date, draw, 0)
            )
        settings = Settings(daily_secret=SECRET.decode(), daily_ahead_every_s=0)
        return DailyDealer(self.backend, cast(DealPool, _WinsAll()), settings)

    def ratings(self) -> RatingStore:
        if self.kind == "memory":
            return MemoryRatingStore(self.backend, max_points=MAX_RACES)
        return RedisRatingStore(self.backend, retention_days=1, max_points=MAX_RACES)

    def challenges(self) -> ChallengeStore:
        if self.kind == "memory":
            return MemoryChallengeStore(self.backend, self.clock)
        return RedisChallengeStore(self.backend)

    async def challenge_gone_after(self, challenge_id: str, ms: int) -> None:
        """Let ``ms`` pass: the memory clock moves; Redis's keys expire on its own
        clock (a real wait, ``ms`` kept short by the test)."""
        if self.kind == "memory":
            await self.clock.advance(ms / 1000)
            return
        async with asyncio.timeout(TIMEOUT):
            while await self.backend.exists(player_keys.challenge(challenge_id)):
                await asyncio.sleep(0.02)

    def integrity(self) -> IntegrityStore:
        if self.kind == "memory":
            return MemoryIntegrityStore(self.backend)
        return RedisIntegrityStore(self.backend, retention_days=1)


@pytest.fixture(params=["memory", "redis"])
async def world(request: pytest.FixtureRequest) -> AsyncIterator[World]:
    clock = ManualClock()
    if request.param == "memory":
        yield World("memory", clock, MemoryBackend())
        return
    server = request.getfixturevalue("redis_server")
    redis = Redis.from_url(server.url)
    try:
        yield World("redis", clock, redis, server.url)
    finally:
        await redis.aclose()


def lobby(code: str = "ROOM", players: int = 2) -> RoomState:
    state = rules.create_room(code, "p0", "Ann")
    for n in range(1, players):
        state = rules.add_member(state, f"p{n}", f"Guest {n}", Role.PLAYER)
    return state


def racing(state: RoomState, race: int = 1) -> RoomState:
    return msgspec.structs.replace(state, phase=Phase.RACING, race=race)


def row(member_id: str, moves: int, status: MemberStatus = MemberStatus.PLAYING) -> StoredRow:
    return StoredRow(
        id=member_id,
        name=member_id,
        score=moves,
        on_foundations=1,
        moves=moves,
        status=status,
        time_ms=moves * 100,
        at=0,
    )


def move(
    member_id: str, base_seq: int, race: int = 1, done: bool = False, code: str = "ROOM"
) -> MoveRecord:
    status = MemberStatus.GAVE_UP if done else MemberStatus.PLAYING
    return MoveRecord(
        code,
        member_id,
        race,
        base_seq,
        "G" if done else "S",
        f"snap{base_seq + 1}".encode(),
        row(member_id, base_seq + 1, status),
        done,
    )


async def close(*adapters: Any) -> None:
    for adapter in adapters:
        await adapter.close()


# ---------------------------------------------------------------- rooms


async def test_a_room_is_saved_only_over_the_version_it_was_read_at(world: World) -> None:
    store = world.store(b"a")
    state = lobby()
    assert await store.load_room("ROOM") is None
    assert await store.save_room(RoomSave(0, state)) == 1
    assert await store.save_room(RoomSave(0, state)) is None  # it exists now
    renamed = rules.add_member(state, "p9", "Zed", Role.SPECTATOR)
    assert await store.save_room(RoomSave(1, renamed, deal="CF1-D3-AAAAACL")) == 2
    assert await store.save_room(RoomSave(1, state)) is None  # someone saved first
    record = await store.load_room("ROOM")
    assert record is not None
    assert (record.state, record.ver, record.deal, record.final) == (
        renamed,
        2,
        "CF1-D3-AAAAACL",
        None,
    )
    await close(store)


async def test_moves_check_the_race_and_the_sequence_and_the_last_one_ends_it(
    world: World,
) -> None:
    store = world.store(b"a")
    assert await store.save_room(RoomSave(0, lobby())) == 1
    assert await store.apply(move("p0", 0)) == RaceOver("lobby")  # no race on
    assert await store.save_room(RoomSave(1, racing(lobby()), new_race=["p0", "p1"])) == 2
    assert await store.apply(move("p0", 0)) == Stored()
    assert await store.apply(move("p0", 0)) == Behind(1)  # the board moved on: reload
    assert await store.apply(move("p0", 1, race=2)) == RaceOver("racing")  # not this race
    assert await store.log_entry("ROOM", "p0", 1) == "S"
    assert await store.log_entry("ROOM", "p0", 2) == ""
    assert await store.load_player("ROOM", "p0") == (b"snap1", ["S"])
    assert await store.load_player("ROOM", "p1") == (None, [])
    # the race chart's source: only the snapshots there are, read together
    assert await store.snapshots("ROOM", ["p0", "p1"]) == {"p0": b"snap1"}
    assert await store.apply(move("p0", 1, done=True)) == Stored()  # one of two done
    # the last: race over
    assert await store.apply(move("p1", 0, done=True)) == Stored(race_over=True)
    assert await store.rows("ROOM") == {
        "p0": row("p0", 2, MemberStatus.GAVE_UP),
        "p1": row("p1", 1, MemberStatus.GAVE_UP),
    }
    assert await store.logs("ROOM", ["p0", "p1"]) == {"p0": ["S", "G"], "p1": ["G"]}
    record = await store.load_room("ROOM")
    assert record is not None and record.state.phase == Phase.FINISHED and record.ver == 3
    assert await store.apply(move("p0", 2)) == RaceOver("finished")
    await close(store)


async def test_a_new_race_starts_from_clean_boards_and_results(world: World) -> None:
    store = world.store(b"a")
    await store.save_room(RoomSave(0, racing(lobby()), new_race=["p0", "p1"]))
    await store.apply(move("p0", 0))
    finished = msgspec.structs.replace(racing(lobby()), phase=Phase.FINISHED)
    assert await store.save_room(RoomSave(1, finished, final=b'{"type":"finished"}')) == 2
    record = await store.load_room("ROOM")
    assert record is not None and record.final == b'{"type":"finished"}'
    assert await store.save_room(RoomSave(2, racing(lobby(), race=2), new_race=["p0", "p1"])) == 3
    record = await store.load_room("ROOM")
    assert record is not None and record.final is None
    assert await store.load_player("ROOM", "p0") == (None, [])
    assert await store.rows("ROOM") == {}
    assert await store.apply(move("p0", 0, race=2)) == Stored()
    await close(store)


async def test_the_time_limit_ends_a_race_once(world: World) -> None:
    store = world.store(b"a")
    await store.save_room(RoomSave(0, racing(lobby()), new_race=["p0", "p1"]))
    assert await store.finish("ROOM", 2) is False  # not this race
    assert await store.finish("ROOM", 1) is True
    assert await store.finish("ROOM", 1) is False  # once, however many try
    record = await store.load_room("ROOM")
    assert record is not None and record.state.phase == Phase.FINISHED and record.ver == 2
    await close(store)


async def test_tokens_open_a_seat_until_it_is_revoked(world: World) -> None:
    store = world.store(b"a")
    await store.save_room(RoomSave(0, lobby(), token=("hash0", "p0")))
    await store.save_room(RoomSave(1, lobby(), token=("hash1", "p1")))
    await store.save_room(RoomSave(2, lobby(), token=("hash1b", "p1")))
    assert await store.member_for_token("ROOM", "hash0") == "p0"
    assert await store.member_for_token("ROOM", "hash1b") == "p1"
    assert await store.member_for_token("ROOM", "nope") is None
    await store.save_room(RoomSave(3, lobby(players=1), revoke="p1"))
    assert await store.member_for_token("ROOM", "hash1") is None
    assert await store.member_for_token("ROOM", "hash1b") is None
    assert await store.member_for_token("ROOM", "hash0") == "p0"
    await close(store)


#: two open rooms per address, three new ones a minute
BUDGET = RoomBudget(max_open=2, max_new=3, window_ms=60_000)


def finished(state: RoomState) -> RoomState:
    return msgspec.structs.replace(state, phase=Phase.FINISHED)


async def test_an_address_holds_its_open_rooms_and_a_burst_of_new_ones(world: World) -> None:
    store, ip = world.store(b"a"), "10.0.0.1"
    start = world.clock.now_ms()
    lapse = start + TTL_S * 1000

    async def create(code: str) -> RoomsRefused | None:
        refused = await store.claim_room(ip, code, BUDGET)
        if refused is None:
            assert await store.save_room(RoomSave(0, lobby(code), creator=ip)) == 1
        return refused

    assert await create("ROOMA") is None
    assert await create("ROOMB") is None
    # two open: the third waits for one to close (at the latest, the first's lapse)
    assert await create("ROOMC") == RoomsRefused(Cap.OPEN_ROOMS, 2, lapse)
    assert await store.claim_room("10.0.0.2", "ROOMX", BUDGET) is None  # another address
    # a room whose race is over no longer counts ...
    assert await store.save_room(RoomSave(1, finished(lobby("ROOMA")))) == 2
    assert await create("ROOMC") is None
    # ... nor one that every person left (the refused attempt above counted nothing)
    assert await store.save_room(RoomSave(1, rules.remove_member(lobby("ROOMB", 1), "p0"))) == 2
    # three made within a minute: the fourth waits for the first to leave the window
    assert await create("ROOMD") == RoomsRefused(Cap.NEW_ROOMS, 3, start + 60_000)
    await world.clock.advance(60)
    assert await create("ROOMD") is None
    # racing again opens a room again: three open now, over the limit of two
    assert await store.save_room(RoomSave(2, lobby("ROOMA"))) == 3
    assert await create("ROOME") == RoomsRefused(Cap.OPEN_ROOMS, 2, lapse)
    # one room TTL after they opened, rooms count no more (their keys expire by then)
    await world.clock.advance(TTL_S)
    assert await create("ROOME") is None
    await close(store)


# ---------------------------------------------------------------- presence


async def test_connections_count_per_process_and_a_silent_process_stops_counting(
    world: World,
) -> None:
    one, two = world.store(b"one"), world.store(b"two")
    await one.save_room(RoomSave(0, lobby(), present="p0"))  # the join counts its connection
    assert await one.presence("ROOM", "p0", +1) == 2
    assert await two.presence("ROOM", "p0", +1) == 3
    assert await one.presence("ROOM", "p0", -1) == 2
    assert await one.beat({"ROOM": 1}) == {"ROOM": {"p0"}}
    # process two goes silent: after the staleness limit its connection is not counted
    await world.clock.advance(one.presence_stale_ms / 1000 + 1)
    assert await one.presence("ROOM", "p0", -1) == 0
    assert await one.beat({"ROOM": 1}) == {"ROOM": set()}
    await close(one, two)


async def test_a_crowd_that_came_and_went_leaves_nobody_counted(world: World) -> None:
    one, two = world.store(b"one"), world.store(b"two")
    await one.save_room(RoomSave(0, lobby(players=1)))
    for n in range(30):
        store = (one, two)[n % 2]
        assert await store.presence("ROOM", f"fan{n}", +1) == 1
        assert await store.presence("ROOM", f"fan{n}", -1) == 0
    assert await one.presence("ROOM", "p0", +1) == 1
    assert await one.beat({"ROOM": 1}) == {"ROOM": {"p0"}}
    assert await two.beat({"ROOM": 1}) == {"ROOM": {"p0"}}
    await close(one, two)


# ---------------------------------------------------------------- timers


async def test_due_times_move_only_the_way_asked_and_are_claimed_once(world: World) -> None:
    store = world.store(b"a")
    await store.schedule("ROOM", 1_000)
    await store.schedule("ROOM", 2_000, earlier=True)  # later: kept at 1,000
    assert await store.due_rooms(1_999, 10) == ["ROOM"]
    await store.schedule("ROOM", 500, earlier=True)
    await store.beat({"ROOM": 3_000})  # a beat's watchdog only moves it later
    await store.beat({"ROOM": 2_500})
    assert await store.due_rooms(2_999, 10) == []
    await store.schedule("OTHER", 100)
    assert await store.due_rooms(3_000, 10) == ["OTHER", "ROOM"]
    assert await store.due_rooms(3_000, 1) == ["OTHER"]
    assert await store.claim_due("ROOM", 2_000, 30_000) is False  # not due yet
    assert await store.claim_due("ROOM", 3_000, 30_000) is True
    assert await store.claim_due("ROOM", 3_000, 30_000) is False  # taken: leased on
    assert await store.due_rooms(32_999, 10) == ["OTHER"]
    await store.schedule("OTHER", None)
    assert await store.due_rooms(40_000, 10) == ["ROOM"]
    assert await store.claim_due("NOWHERE", 3_000, 30_000) is False
    await close(store)


# ---------------------------------------------------------------- events


async def nothing() -> None:
    """A bus's resync handler where nothing is to be resynced."""


async def test_room_changes_reach_the_other_processes_and_rows_only_when_shared(
    world: World,
) -> None:
    one, two = world.store(b"one"), world.store(b"two")
    heard: asyncio.Queue[bytes] = asyncio.Queue()

    bus = world.bus()
    bus.start(lambda code, payload: heard.put_nowait(payload), nothing)
    try:
        await bus.subscribe("ROOM")
        await world.listening("ROOM")

        async def next_event() -> tuple[bytes, Any]:
            return unpack(await asyncio.wait_for(heard.get(), TIMEOUT))

        await one.serve_room("ROOM")
        await one.save_room(RoomSave(0, racing(lobby()), new_race=["p0", "p1"]))
        origin, event = await next_event()
        assert origin == b"one" and isinstance(event, RoomEvent) and event.ver == 1
        assert event.state == racing(lobby())
        await one.apply(move("p0", 0))  # only process one serves the room: no row event
        await two.serve_room("ROOM")
        await one.apply(move("p0", 1))
        origin, event = await next_event()
        assert isinstance(event, RowEvent) and event.row == row("p0", 2)
        assert heard.empty()
    finally:
        await bus.stop()
        await close(one, two)


async def test_a_room_unsubscribed_is_heard_no_more(world: World) -> None:
    store = world.store(b"one")
    heard: asyncio.Queue[str] = asyncio.Queue()

    bus = world.bus()
    bus.start(lambda code, payload: heard.put_nowait(code), nothing)
    try:
        for code in ("ROOM", "ROOMB"):
            await bus.subscribe(code)
            await world.listening(code)
        await bus.unsubscribe("ROOM")
        # published in this order on one connection: ROOM's would come first
        await store.save_room(RoomSave(0, lobby("ROOM")))
        await store.save_room(RoomSave(0, lobby("ROOMB")))
        assert await asyncio.wait_for(heard.get(), TIMEOUT) == "ROOMB"
        assert heard.empty()
    finally:
        await bus.stop()
        await close(store)


def into(queue: asyncio.Queue[tuple[str, bytes]]) -> Callable[[str, bytes], None]:
    """A bus's event handler that queues what it hears."""

    def heard(code: str, payload: bytes) -> None:
        queue.put_nowait((code, payload))

    return heard


async def test_a_signal_published_reaches_every_process_subscribed_to_its_code(
    world: World,
) -> None:
    """What changes no room (an arena's heat formed) is published on the bus itself,
    and heard by every subscriber of its code, the publisher's own bus too."""
    heard: list[asyncio.Queue[tuple[str, bytes]]] = [asyncio.Queue(), asyncio.Queue()]
    buses = [world.bus(), world.bus()]
    for bus, queue in zip(buses, heard, strict=True):
        bus.start(into(queue), nothing)
    try:
        for bus in buses:
            await bus.subscribe("a:ARENA234")
        await world.listening("a:ARENA234", subscribers=2)
        await buses[0].publish("a:ARENA234", b"formed")
        for queue in heard:
            assert await asyncio.wait_for(queue.get(), TIMEOUT) == ("a:ARENA234", b"formed")
        await buses[1].publish("a:OTHER234", b"nobody listens")
        await buses[1].publish("a:ARENA234", b"again")
        for queue in heard:
            assert await asyncio.wait_for(queue.get(), TIMEOUT) == ("a:ARENA234", b"again")
    finally:
        for bus in buses:
            await bus.stop()


# ---------------------------------------------------------------- identities


async def test_identities_keep_streaks_histories_and_replays(world: World) -> None:
    store = world.identities()
    assert await store.identity("h") is None
    assert await store.note_daily("h", "2026-12-01", "2026-11-30") == 0  # no such identity
    assert await store.identity_created("h") is None
    await store.new_identity("h", "pub")
    assert await store.identity_created("h") is not None
    assert await store.identity("h") == ("pub", 0, "")
    assert await store.note_daily("h", "2026-12-01", "2026-11-30") == 1
    assert await store.note_daily("h", "2026-12-01", "2026-11-30") == 1  # same day
    assert await store.note_daily("h", "2026-12-02", "2026-12-01") == 2
    assert await store.note_daily("h", "2026-12-05", "2026-12-04") == 1  # a day missed
    assert await store.identity("h") == ("pub", 1, "2026-12-05")
    await store.add_races([("h", f"race{n}".encode()) for n in range(5)])
    assert await store.races("h", 10) == [b"race4", b"race3", b"race2"]  # newest, kept 3
    assert await store.races("h", 2) == [b"race4", b"race3"]
    assert await store.delete_races("h") == 3
    assert await store.races("h", 10) == []
    await store.link_member("ROOM", "p0", "h")
    assert await store.room_identities("ROOM") == {"p0": "h"}
    assert await store.room_networks("ROOM") == {}  # no network (an in-process peer)
    await store.link_member("ROOM", "p1", "h2", "203.0.113.0/24")
    await store.link_member("ROOM", "p0", "h", "198.51.100.0/24")
    assert await store.room_networks("ROOM") == {"p0": "198.51.100.0/24", "p1": "203.0.113.0/24"}
    await store.link_member("ROOM", "p0", "h")  # the seat taken again from no network
    assert await store.room_networks("ROOM") == {"p1": "203.0.113.0/24"}
    await store.save_replay("r1", b"{}")
    assert await store.load_replay("r1") == b"{}"
    assert await store.load_replay("r2") is None
    await close(store)


async def test_a_new_identity_lives_a_day_until_it_finishes_a_race(world: World) -> None:
    store = world.identities()
    await store.new_identity("new", "pub1", "203.0.113.0/24")
    await store.new_identity("old", "pub2")
    assert await store.identity_network("new") == "203.0.113.0/24"
    assert await store.identity_network("old") is None  # issued without an address
    assert await store.identity_network("none") is None
    assert 0 < await world.lifetime_s("new") <= NEW_IDENTITY_S
    await world.clock.advance(600)
    await store.note_daily("new", "2026-12-01", "2026-11-30")
    assert await store.identity("new") == ("pub1", 1, "2026-12-01")
    # used, but it finished nothing: still the lifetime it was issued with
    assert await world.lifetime_s("new") <= NEW_IDENTITY_S
    await store.add_races([("old", b"race")])  # a finished race keeps it
    assert NEW_IDENTITY_S < await world.lifetime_s("old") <= 86_400
    assert await world.lifetime_s("new") <= NEW_IDENTITY_S  # untouched
    assert await store.identity("old") == ("pub2", 0, "")
    assert await store.identity_network("new") == "203.0.113.0/24"
    await close(store)


async def test_a_network_spends_a_budget_of_new_identities_and_it_refills(
    world: World,
) -> None:
    store = world.identities()
    budget = IdentityBudget(burst=3, per_hour=60)  # one back a minute
    start = world.clock.now_ms()
    assert [await store.claim_identity("net-a", budget) for _ in range(3)] == [None] * 3
    refused = await store.claim_identity("net-a", budget)
    assert refused is not None and (refused.burst, refused.per_hour) == (3, 60)
    assert abs(refused.retry_at - (start + 60_000)) <= 1
    assert await store.claim_identity("net-b", budget) is None  # its own bucket
    await world.clock.advance(30)  # half an identity back: still refused, same time
    again = await store.claim_identity("net-a", budget)
    assert again is not None and abs(again.retry_at - (start + 60_000)) <= 1
    await world.clock.advance(30)
    assert await store.claim_identity("net-a", budget) is None
    assert await store.claim_identity("net-a", budget) is not None
    await world.clock.advance(3600)  # an hour on: full again, not more
    assert [await store.claim_identity("net-a", budget) for _ in range(4)] == [None] * 3 + [
        IdentitiesRefused(3, 60, world.clock.now_ms() + 60_000)
    ]
    never = await store.claim_identity("net-c", IdentityBudget(burst=1, per_hour=0))
    assert never is None
    never = await store.claim_identity("net-c", IdentityBudget(burst=1, per_hour=0))
    assert never == IdentitiesRefused(1, 0, -1)
    await close(store)


# ---------------------------------------------------------------- daily


def daily_move(player: str, base_seq: int, score: float, done: bool = False) -> DailyMove:
    return DailyMove(
        "2026-12-01", 3, player, base_seq, "S", b"snap", row(player, base_seq + 1), score, done
    )


async def test_a_daily_attempt_is_claimed_once_and_ranked(world: World) -> None:
    store = world.daily()
    claimed = await store.claim("2026-12-01", 3, "b", "Bob", 1_000, row("b", 0), 5.0)
    assert claimed == (True, 1_000)
    again = await store.claim("2026-12-01", 3, "b", "Bob", 2_000, row("b", 0), 5.0)
    assert again == (False, 1_000)
    assert await store.apply(daily_move("nobody", 0, 1.0)) == NoAttempt()
    assert await store.apply(daily_move("b", 0, 4.0)) == Stored()
    assert await store.apply(daily_move("b", 0, 4.0)) == Behind(1)
    await store.claim("2026-12-01", 3, "a", "Ann", 1_500, row("a", 0), 4.0)
    await store.claim("2026-12-01", 3, "c", "Cy", 1_600, row("c", 0), 9.0)
    attempt = await store.attempt("2026-12-01", 3, "b")
    assert attempt is not None
    assert (attempt.started_at, attempt.snapshot, attempt.log, attempt.done) == (
        1_000,
        b"snap",
        ["S"],
        False,
    )
    assert await store.attempt("2026-12-01", 3, "z") is None
    assert await store.attempt("2026-12-01", 1, "b") is None  # another draw mode
    count, top, mine = await store.standing("2026-12-01", 3, "c", 2)
    # ties in score go by player id, as a sorted set orders them
    assert count == 3 and [r.id for r in top] == ["a", "b"] and mine == (3, row("c", 0))
    assert await store.apply(daily_move("b", 1, 1.0, done=True)) == Stored()
    assert await store.apply(daily_move("b", 2, 1.0)) == NoAttempt()  # over
    count, top, mine = await store.standing("2026-12-01", 3, None, 5)
    assert [r.id for r in top] == ["b", "a", "c"] and mine is None
    # the first player of a network keeps their rank; a later one is held out,
    # decided once (a resume asks again); a reason given wins; no network: ranked
    net = "198.51.100.0/24"
    assert await store.hold("2026-12-01", 3, "a", net, "") == ""
    assert await store.hold("2026-12-01", 3, "b", net, "") == "network-played"
    assert await store.hold("2026-12-01", 3, "a", net, "") == ""
    assert await store.hold("2026-12-01", 3, "c", "", "") == ""
    assert await store.hold("2026-12-01", 3, "d", "203.0.113.0/24", "new-identity") == (
        "new-identity"
    )
    assert await store.hold("2026-12-01", 3, "e", "203.0.113.0/24", "") == "network-played"
    assert await store.hold("2026-12-01", 1, "b", net, "") == ""  # another draw mode
    held = await store.held("2026-12-01", 3, ["a", "b", "c", "d", "z"])
    assert held == {"b": "network-played", "d": "new-identity"}
    assert await store.held("2026-12-01", 3, []) == {}
    # who started first from a network: the evidence a review case shows
    assert await store.network_first("2026-12-01", 3, net) == "a"
    assert await store.network_first("2026-12-01", 3, "203.0.113.0/24") == "d"
    assert await store.network_first("2026-12-01", 1, net) == "b"
    assert await store.network_first("2026-12-01", 3, "192.0.2.0/24") is None
    await close(store)


async def test_a_day_s_deal_is_chosen_once_and_every_replica_has_it(world: World) -> None:
    one, two = world.deals(), world.deals()  # two processes
    assert await one.known("2026-12-01", 3) is None
    code = await one.deal("2026-12-01", 3)
    assert code == candidate(SECRET, "2026-12-01", 3, 0)  # the first candidate that wins
    assert await one.deal("2026-12-01", 3) == code  # the same however often asked
    assert await one.known("2026-12-01", 3) == code
    assert await two.known("2026-12-01", 3) == code  # and the same on every replica
    assert await two.deal("2026-12-01", 3) == code
    assert await two.known("2026-12-01", 1) is None  # each draw mode its own
    assert await two.known("2026-12-02", 3) is None  # each day its own
    other = await two.deal("2026-12-01", 1)
    assert other != code and await one.known("2026-12-01", 1) == other


async def test_a_pool_gathers_close_ratings_first_and_live_races_are_listed(world: World) -> None:
    first, second = world.queue(), world.queue()  # two processes
    try:
        near = Band(points=100, widen_points=200, widen_ms=1_000, most_points=500)

        def look(
            rating: int, now_ms: int, offer: str = "", mine: str = "", pool: str = "d3"
        ) -> RaceSearch:
            return RaceSearch(pool, rating, now_ms, near, ttl_s=TTL_S, offer=offer, mine=mine)

        assert await first.find_race(look(1000, 0)) is None
        assert await first.find_race(look(1000, 0, offer="AAAAAA")) == "AAAAAA"
        # the other process, a close racer: the same race, nothing new opened
        assert await second.find_race(look(1090, 10, offer="BBBBBB")) == "AAAAAA"
        assert await second.find_race(look(1000, 10, pool="d1")) is None  # another draw mode
        # a far racer opens a race of their own; a racer close to it joins that one
        assert await second.find_race(look(1400, 20, offer="FFFFFF")) == "FFFFFF"
        assert await first.find_race(look(1350, 30)) == "FFFFFF"
        # the bands widen with the wait (100, then 300 after 1 s): 1250 is 250 from
        # AAAAAA and 150 from FFFFFF; the closer race whose band holds it wins
        assert await first.find_race(look(1250, 500)) is None
        assert await first.find_race(look(1250, 1_000)) == "AAAAAA"
        assert await first.find_race(look(1250, 1_020)) == "FFFFFF"  # the closer
        # never beyond the most: 600 away is too far however long they wait
        assert await first.find_race(look(1600 + 400, 60_000)) is None
        # a race that takes nobody more leaves the pool
        await second.close_race("d3", "FFFFFF")
        assert await first.find_race(look(1400, 60_000)) == "AAAAAA"
        # a race open longer than the room lives is forgotten
        assert await first.find_race(look(1000, TTL_S * 1000 + 1)) is None
        await first.close_race("d3", "AAAAAA")  # gone already: nothing happens

        # a racer alone in their race looks again as the bands widen: their own race
        # is never the answer and stays in the pool (its wait kept) while none other
        # takes them; once one does, theirs leaves the pool and they move there
        assert await first.find_race(look(3000, 0, offer="KKKKKK")) == "KKKKKK"
        assert await first.find_race(look(3000, 10, mine="KKKKKK")) == "KKKKKK"
        assert await second.find_race(look(3400, 10, offer="LLLLLL")) == "LLLLLL"
        assert await second.find_race(look(3400, 400, mine="LLLLLL")) == (
            "LLLLLL"  # 400 apart, bands of 100 yet
        )
        # at 2 s KKKKKK's band is 500 (opened at 0; LLLLLL's, opened at 10, is 300)
        assert await second.find_race(look(3400, 2_000, mine="LLLLLL")) == "KKKKKK"
        assert await first.find_race(look(3380, 2_000)) == "KKKKKK"
        await first.close_race("d3", "KKKKKK")
        assert await first.find_race(look(3400, 2_000)) is None  # LLLLLL left
        # a race that left comes back when its racer finds none other, opened anew
        assert await second.find_race(look(3400, 2_000, mine="LLLLLL")) == "LLLLLL"
        assert await first.find_race(look(3550, 2_000)) is None  # band 100
        assert await first.find_race(look(3550, 2_500)) is None
        assert await first.find_race(look(3550, 3_000)) == "LLLLLL"
        await first.close_race("d3", "LLLLLL")
        # a race whose racer found another as someone joined it gathers again
        await second.reopen_race("d3", "LLLLLL", 3400, 3_000, TTL_S)
        assert await first.find_race(look(3420, 3_000)) == "LLLLLL"
        assert await first.find_race(look(3550, 3_000)) is None  # waits anew
        await first.close_race("d3", "LLLLLL")

        await first.live_add("AAAAAA", 1_000)
        await second.live_add("BBBBBB", 2_000)
        assert await first.live(10) == ["BBBBBB", "AAAAAA"]
        assert await first.live(1) == ["BBBBBB"]
        await second.live_drop("BBBBBB")
        assert await first.live(10) == ["AAAAAA"]

        # finished races' racers kept for ghost offers: the closest ratings first, the newest few
        assert await first.past_near("d3", 1000, 4) == []
        await first.keep_past("d3", "ana", 1200, keep=3)
        await second.keep_past("d3", "bob", 900, keep=3)
        await second.keep_past("d1", "cy", 1000, keep=3)
        assert await first.past_near("d3", 1000, 4) == ["bob", "ana"]
        assert await first.past_near("d3", 1000, 1) == ["bob"]
        assert await second.past_near("d3", 1150, 4) == ["ana", "bob"]
        assert await first.past_near("d1", 5000, 4) == ["cy"]
        await first.keep_past("d3", "dan", 1000, keep=3)
        await first.keep_past("d3", "eve", 2000, keep=3)  # ana, the oldest, goes
        assert await second.past_near("d3", 1300, 1) == ["dan"]
        assert await second.past_near("d3", 1700, 4) == ["eve", "dan", "bob"]
        assert await second.past_near("d3", 1000, 2) == ["dan", "bob"]
        # a tie: the lower entry first, each entry once
        await first.keep_past("d3", "fay", 1000, keep=3)  # bob goes
        assert await first.past_near("d3", 1000, 4) == ["dan", "fay", "eve"]
    finally:
        await close(first, second)


async def test_a_pool_counts_its_lone_racers_until_they_stop_or_go_quiet(world: World) -> None:
    """What a waiting screen says: how many wait alone in the pool (each counted
    until its ``until`` unless told again), and when the racer's race opened."""
    first, second = world.queue(), world.queue()  # two processes
    try:
        band = Band(points=100, widen_points=100, widen_ms=5_000, most_points=1000)
        look = RaceSearch("d3", 1000, 1_000, band, ttl_s=TTL_S, offer="AAAAAA")
        assert await first.find_race(look) == "AAAAAA"
        seen = await first.still_waiting("d3", "AAAAAA/a1", "AAAAAA", 1_000, 11_000)
        assert seen == Waiting(racers=1, opened_ms=1_000)
        # another racer, on the other process, in another race of the pool
        seen = await second.still_waiting("d3", "BBBBBB/b1", "BBBBBB", 2_000, 12_000)
        assert seen == Waiting(racers=2, opened_ms=None)  # BBBBBB is not in the pool
        assert (await second.still_waiting("d1", "CCCCCC/c1", "CCCCCC", 2_000, 12_000)).racers == 1
        # told again: still one seat each
        assert (await first.still_waiting("d3", "AAAAAA/a1", "AAAAAA", 6_000, 16_000)).racers == 2
        # a racer not told again past their ``until`` is no longer counted
        assert (await first.still_waiting("d3", "AAAAAA/a1", "AAAAAA", 13_000, 23_000)).racers == 1
        # one who stops (company came, left, moved) at once
        await second.still_waiting("d3", "BBBBBB/b1", "BBBBBB", 14_000, 24_000)
        await second.stopped_waiting("d3", ["BBBBBB/b1", "ZZZZZZ/none"])
        await second.stopped_waiting("d3", [])
        assert (await first.still_waiting("d3", "AAAAAA/a1", "AAAAAA", 15_000, 25_000)).racers == 1
    finally:
        await close(first, second)


# ---------------------------------------------------------------- ratings


def rated(name: str, rating: int, races: int) -> tuple[StoredRating, LadderRow]:
    mu = 25.0 + rating / 1000  # a mean no float text round trip may change
    return (
        StoredRating(mu=mu, sigma=8.0 / 3, races=races, name=name),
        LadderRow(name=name, rating=rating, deviation=107, races=races),
    )


def point(at: int, rating: int) -> RatingPoint:
    return RatingPoint(at=at, rating=rating, deviation=100, change=5, rank=1, players=3)


async def test_ratings_keep_their_history_and_order_the_ladder(world: World) -> None:
    store = world.ratings()
    assert await store.ratings(3, ["a", "b"]) == {}
    assert await store.ladder(3, 10) == []
    a, a_row = rated("Ann", 1200, 5)
    b, b_row = rated("Bob", 1300, 5)
    c, c_row = rated("Cy", 1200, 5)
    new, _ = rated("New", 1500, 1)
    await store.save_ratings(3, [("a", a, point(1, 1200), a_row), ("b", b, point(1, 1300), b_row)])
    await store.save_ratings(3, [("c", c, point(1, 1200), c_row), ("n", new, point(1, 1500), None)])
    assert await store.ratings(3, ["a", "n", "z"]) == {"a": a, "n": new}
    assert await store.ratings(1, ["a"]) == {}  # another draw mode
    # best first; an equal rating goes by identity, descending (a sorted set read
    # high to low); below the minimum (no row): not listed
    assert [r.name for r in await store.ladder(3, 10)] == ["Bob", "Cy", "Ann"]
    assert await store.ladder(3, 1) == [b_row]
    assert await store.ladder_of(3, 2) == [("b", b_row), ("c", c_row)]
    assert await store.ladder(3, 0) == []
    # a row taken away leaves the ladder
    await store.save_ratings(3, [("b", b, point(2, 1290), None)])
    assert [r.name for r in await store.ladder(3, 10)] == ["Cy", "Ann"]
    for at in range(3, 7):
        await store.save_ratings(3, [("a", a, point(at, 1200 + at), a_row)])
    history = await store.rating_history("a", 3, 10)
    assert [p.at for p in history] == [6, 5, 4]  # newest first, kept 3
    assert await store.rating_history("a", 3, 2) == history[:2]
    assert await store.rating_history("a", 1, 10) == []
    # each race is claimed once, whoever asks again (a retry, another process)
    assert await store.claim_race("K7QX2M", 2)
    assert not await store.claim_race("K7QX2M", 2)
    assert await store.claim_race("K7QX2M", 3) and await store.claim_race("B8ZZ2M", 2)
    # races rated per pair of identities, per UTC day
    assert await store.pairs_rated("2026-12-01", ["a:b", "a:c"]) == {}
    await store.note_pairs("2026-12-01", ["a:b", "a:c"])
    await store.note_pairs("2026-12-01", ["a:b"])
    await store.note_pairs("2026-12-02", ["a:b"])
    assert await store.pairs_rated("2026-12-01", ["a:b", "a:c", "b:c"]) == {"a:b": 2, "a:c": 1}
    assert await store.pairs_rated("2026-12-02", ["a:b", "a:c"]) == {"a:b": 1}
    assert await store.pairs_rated("2026-12-02", []) == {}
    # distinct opponents per identity and draw mode, counting the ones asked about
    assert await store.opponents(3, {"a": ["b", "c"], "z": []}) == {"a": 2, "z": 0}
    await store.note_opponents(3, {"a": ["b", "c"], "b": ["a"], "z": []})
    await store.note_opponents(3, {"a": ["b"]})
    assert await store.opponents(3, {"a": ["b", "d"], "b": [], "c": ["a"]}) == {
        "a": 3,
        "b": 1,
        "c": 1,
    }
    assert await store.opponents(1, {"a": ["b"]}) == {"a": 1}  # another draw mode
    # what a rated race changed is kept, to be given back
    assert await store.race_changes("K7QX2M", 2) == (0, {})
    changes = {"a": RatingChange(1.25, -0.5), "b": RatingChange(-1.0, -0.25)}
    await store.save_race_changes("K7QX2M", 2, 3, changes)
    assert await store.race_changes("K7QX2M", 2) == (3, changes)
    await close(store)


# ---------------------------------------------------------------- integrity review


def assessed(
    result: str, at: int, *, reasons: list[str], identity: str | None = "h1"
) -> ReviewCase:
    return ReviewCase(
        result=result,
        kind="public",
        at=at,
        draw=3,
        room="K7QX2M",
        race_no=1,
        identity=identity,
        public_id="pub1" if identity else None,
        member_id="p1",
        name="Ann",
        replay="/replay/abc",
        network="10.0.0.0/24",
        shares=["pub2"],
        signals=Signals(
            actions=3,
            moves_per_s=1.5,
            think_ms=[900, 1000, 1100],
            think_median_ms=1000,
            think_spread=0.2,
            decision_think_ms=1000,
            forced_think_ms=None,
            over_par=0,
            solver_agreement=0.95,
            checked_moves=3,
        ),
        reasons=reasons,
    )


async def test_flagged_results_wait_for_one_decision_and_a_confirmation_bars(world: World) -> None:
    store = world.integrity()
    first, second, plain = room_result("K7QX2M", 1, "p1"), room_result("K7QX2M", 2, "p1"), "x"
    assert first == "K7QX2M:1:p1" and daily_result("2026-12-04", 3, "pub1") == "d-2026-12-04-3-pub1"
    assert await store.case(first) is None and await store.open_cases(10) == []
    # a status a caller sends is not taken: reasons flag a case, none leave it unflagged
    flagged = assessed(first, 100, reasons=["solver agreement 95%"])
    assert await store.record(msgspec.structs.replace(flagged, status=REVIEW_CLEARED))
    assert await store.record(assessed(second, 200, reasons=["too fast"], identity=None))
    assert await store.record(assessed(plain, 300, reasons=[]))
    # once per result: a second assessment of it changes nothing
    assert not await store.record(assessed(first, 400, reasons=[]))
    stored = await store.case(first)
    assert stored == msgspec.structs.replace(flagged, status=REVIEW_OPEN)
    assert (await store.case(plain)) == assessed(plain, 300, reasons=[])
    assert [c.result for c in await store.open_cases(10)] == [second, first]  # newest first
    assert [c.result for c in await store.open_cases(1)] == [second]
    assert await store.open_cases(0) == []
    assert await store.statuses([first, plain, "unknown"]) == {first: REVIEW_OPEN}
    assert await store.statuses([]) == {}
    assert await store.under_review(["h1", "h2"]) == {"h1"}
    # a flagged daily result is listed in its day, by public id
    day = msgspec.structs.replace(
        assessed(daily_result("2026-12-04", 3, "pub1"), 250, reasons=["x"]),
        kind="daily",
        room=None,
        race_no=None,
        date="2026-12-04",
    )
    assert await store.record(day)
    assert await store.race_flags("daily:2026-12-04:3") == {"pub1": REVIEW_OPEN}
    assert await store.race_flags("daily:2026-12-04:1") == {}
    # a room race's by member id, under its replay
    assert race_of(flagged) == "abc"
    assert await store.race_flags("abc") == {"p1": REVIEW_OPEN}
    assert await store.decide(day.result, False, "op", 260) is not None
    assert await store.race_flags("daily:2026-12-04:3") == {"pub1": REVIEW_CLEARED}
    # a decision is taken once, and only of an open case
    assert await store.decide(plain, True, "op", 500) is None
    assert await store.decide("unknown", True, "op", 500) is None
    confirmed = await store.decide(first, True, "op", 500)
    assert confirmed == msgspec.structs.replace(
        flagged, status=REVIEW_CONFIRMED, decided_by="op", decided_at=500
    )
    assert await store.decide(first, False, "op2", 600) is None
    assert await store.case(first) == confirmed
    assert await store.barred(["h1", "h2"]) == {"h1"}
    assert await store.barred_players(["pub1", "pub2"]) == {"pub1"}
    assert await store.barred([]) == set()
    assert await store.under_review(["h1"]) == set()
    # clearing bars nobody; a case without an identity bars nobody either
    cleared = await store.decide(second, False, "op", 700)
    assert cleared is not None and cleared.status == REVIEW_CLEARED
    assert await store.open_cases(10) == []
    assert [c.result for c in await store.decided_cases(10)] == [second, first, day.result]
    assert await store.decided_cases(1) == [cleared]  # the latest decision first
    assert (await store.decided_cases(2))[1] == confirmed
    assert await store.statuses([first, second]) == {
        first: REVIEW_CONFIRMED,
        second: REVIEW_CLEARED,
    }
    await close(store)


# ---------------------------------------------------------------- challenges


async def test_a_challenge_keeps_each_taker_s_best_within_its_bounds_and_expires(
    world: World,
) -> None:
    store = world.challenges()
    assert await store.load("c1") is None
    assert await store.record("c1", "t1", b"row", 5.0, 3) == Taken.GONE  # no challenge
    await store.create("c1", b"body", 60_000)
    assert await store.load("c1") == b"body"
    assert await store.standing("c1") == []
    assert await store.record("c1", "t1", b"t1:50", 50.0, 3) == Taken.PLACED
    assert await store.record("c1", "t2", b"t2:40", 40.0, 3) == Taken.PLACED
    assert await store.record("c1", "t1", b"t1:60", 60.0, 3) == Taken.KEPT  # worse: kept
    assert await store.record("c1", "t1", b"t1:50b", 50.0, 3) == Taken.KEPT  # as good
    assert await store.standing("c1") == [b"t2:40", b"t1:50"]
    assert await store.record("c1", "t1", b"t1:30", 30.0, 3) == Taken.PLACED  # better
    assert await store.record("c1", "t3", b"t3:70", 70.0, 3) == Taken.PLACED
    assert await store.standing("c1") == [b"t1:30", b"t2:40", b"t3:70"]
    # full: a worse fourth is not kept, a better one pushes the worst out
    assert await store.record("c1", "t4", b"t4:80", 80.0, 3) == Taken.OUTSIDE
    assert await store.record("c1", "t5", b"t5:35", 35.0, 3) == Taken.PLACED
    assert await store.standing("c1") == [b"t1:30", b"t5:35", b"t2:40"]
    # ties by taker id, the last one out first
    assert await store.record("c1", "t0", b"t0:40", 40.0, 3) == Taken.PLACED
    assert await store.standing("c1") == [b"t1:30", b"t5:35", b"t0:40"]
    assert await store.standing("other") == []

    await store.create("short", b"s", 300)
    assert await store.record("short", "t1", b"r", 1.0, 3) == Taken.PLACED
    await world.challenge_gone_after("short", 400)
    assert await store.load("short") is None
    assert await store.standing("short") == []  # gone with it
    assert await store.record("short", "t2", b"r", 1.0, 3) == Taken.GONE
    if world.kind == "redis":
        assert not await world.backend.exists(player_keys.challenge_rank("short"))
    await close(store)


async def test_challenges_made_are_counted_per_maker_in_a_window(world: World) -> None:
    store = world.challenges()
    assert [await store.spend("id:a", 300) for _ in range(3)] == [1, 2, 3]
    assert await store.spend("net:b", 300) == 1  # each maker its own count
    if world.kind == "memory":
        await world.clock.advance(0.4)
    else:
        async with asyncio.timeout(TIMEOUT):
            while await world.backend.exists(player_keys.challenges_made("id:a")):
                await asyncio.sleep(0.02)
    assert await store.spend("id:a", 300) == 1  # a new window
    await close(store)
