"""The ``ArenaStore`` contract, run against Redis (a real redis-server) and the
in-memory twin, as ``test_ports_contract.py`` runs the other ports: what
``room/arena*`` relies on holds for both."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import msgspec
import pytest
from canfield_protocol import ArenaResult
from canfield_server.ops.clock import ManualClock
from canfield_server.room.ports import ArenaRecord, ArenaStore, HeatPlace, HeatRecord
from canfield_server.storage.arena_store import RedisArenaStore
from canfield_server.storage.memory import MemoryArenaStore, MemoryBackend
from redis.asyncio import Redis

CODE = "ARENA234"


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[ArenaStore]:
    if request.param == "memory":
        yield MemoryArenaStore(MemoryBackend(), ManualClock().now_ms)
        return
    redis = Redis.from_url(request.getfixturevalue("redis_server").url)
    try:
        yield RedisArenaStore(redis)
    finally:
        await redis.aclose()


def record(**changes: object) -> ArenaRecord:
    base = ArenaRecord(code=CODE, name="Friday", draw=3, minutes=30, starts_at=1000, host="h")
    return msgspec.structs.replace(base, **changes)


def win(racer: str, points: int, mark: str, bonus: int = 0) -> HeatPlace:
    return HeatPlace(racer, points, True, bonus, mark)


def off(racer: str, mark: str) -> HeatPlace:
    return HeatPlace(racer, 1, False, 0, mark)


async def test_an_arena_is_made_once_and_changed_only_over_its_version(store: ArenaStore) -> None:
    assert await store.create(record(), 3600)
    assert not await store.create(record(name="Other"), 3600)
    found = await store.load(CODE)
    assert found is not None and found[0] == record()
    ver = found[1]
    assert await store.load("NONE2345") is None
    before = await store.version(CODE)
    new_ver = await store.save(record(minutes=60), ver)
    assert new_ver is not None and new_ver != ver
    assert await store.save(record(minutes=90), ver) is None  # stale
    loaded = await store.load(CODE)
    assert loaded is not None and loaded[0].minutes == 60
    assert await store.version(CODE) != before
    assert await store.finish(CODE) and not await store.finish(CODE)


async def test_a_waiting_racer_is_taken_into_one_heat_and_seated_once(store: ArenaStore) -> None:
    await store.create(record(), 3600)
    for n, racer in enumerate(["a", "b", "c"]):
        assert await store.enter(CODE, racer, racer.upper())
        await store.wait(CODE, racer, 100 + n)
    assert await store.waiting(CODE) == {"a": 100, "b": 101, "c": 102}
    assert await store.unplaced(CODE, ["a", "b", "c", "z"]) == []  # waiting; z: not in it
    assert await store.take(CODE, ["a", "b"], "HEAT01", least=2, until_ms=500) == ["a", "b"]
    # a and b are taken: c alone is no heat, and stays waiting
    assert await store.take(CODE, ["a", "b", "c"], "HEAT02", least=2, until_ms=600) == []
    assert await store.waiting(CODE) == {"c": 102}
    assert await store.take(CODE, ["a", "b", "c"], "HEAT02", least=1, until_ms=600) == ["c"]
    assert await store.waiting(CODE) == {}
    assert await store.assigned(CODE, ["a", "b", "c", "z"]) == {
        "a": "HEAT01",
        "b": "HEAT01",
        "c": "HEAT02",
    }
    assert not await store.claim(CODE, "a", "HEAT02")
    assert await store.claim(CODE, "a", "HEAT01")
    assert not await store.claim(CODE, "a", "HEAT01")  # once
    assert await store.assigned(CODE, ["a"]) == {}
    # both heats are forming until settled; past their time, stale
    assert await store.stale(CODE, 499) == []
    assert await store.stale(CODE, 600) == ["HEAT01", "HEAT02"]
    await store.settle(CODE, "HEAT01")  # b never claimed its place: it is gone
    assert await store.stale(CODE, 600) == ["HEAT02"]
    assert await store.assigned(CODE, ["a", "b", "c"]) == {"c": "HEAT02"}
    assert await store.unplaced(CODE, ["a", "b", "c"]) == ["a", "b"]
    # removed: out of the standing and the waiting, and never back in
    await store.wait(CODE, "b", 200)
    await store.remove(CODE, "b")
    assert await store.waiting(CODE) == {}
    assert not await store.enter(CODE, "b", "B")
    await store.wait(CODE, "b", 300)
    assert await store.waiting(CODE) == {}
    assert set(await store.entries(CODE, ["a", "b", "c"])) == {"a", "c"}
    await store.unwait(CODE, "c")


async def test_heats_are_scored_once_with_the_streak_and_the_standing_is_ranked(
    store: ArenaStore,
) -> None:
    await store.create(record(), 3600)
    for racer in "abc":
        await store.enter(CODE, racer, racer.upper())
    heat = HeatRecord(room="HEAT01", racers=["a", "b", "c"], deal="CF1-D3-AAAAACL", opened_ms=5)
    assert await store.heat(CODE, "HEAT01") is None  # not opened yet
    await store.open_heat(CODE, heat)
    assert [h.room for h in await store.running(CODE)] == ["HEAT01"]
    assert await store.heat(CODE, "HEAT01") == heat
    assert await store.raced(CODE, ["z", "b"], "CF1-D3-AAAAACL")
    assert not await store.raced(CODE, ["z"], "CF1-D3-AAAAACL")
    assert not await store.raced(CODE, ["a"], "CF1-D3-AAAAACM")
    await store.seat(CODE, "HEAT01", "m1", "a")
    await store.berserk(CODE, "HEAT01", "m1")
    assert await store.seats(CODE, "HEAT01") == {"m1": "a"}
    assert await store.berserks(CODE, "HEAT01") == {"m1"}
    # a: podium, podium (+1 berserk), podium (doubled: 2 in a row before), then off
    given = await store.heat_over(CODE, "HEAT01", [win("a", 5, "1"), off("b", "4")])
    assert given == {"a": 5, "b": 1}
    assert await store.heat_over(CODE, "HEAT01", [win("a", 5, "1")]) is None  # once
    assert await store.running(CODE) == []
    assert await store.heat(CODE, "HEAT01") == heat  # over, and still read by its seats
    assert await store.heat_over(CODE, "H2", [win("a", 3, "2", bonus=1), off("b", "-")]) == {
        "a": 4,
        "b": 1,
    }
    assert await store.heat_over(CODE, "H3", [win("a", 3, "2", bonus=1)]) == {"a": 8}
    assert await store.heat_over(CODE, "H4", [off("a", "5"), win("c", 5, "1")]) == {
        "a": 1,
        "c": 5,
    }
    top, count = await store.standing(CODE, 10)
    assert count == 3
    assert [(e.racer, e.points, e.streak, e.heats, e.last) for e in top] == [
        ("a", 18, 0, 4, "1225"),
        ("c", 5, 1, 1, "1"),
        ("b", 2, 0, 2, "4-"),
    ]
    assert [e.racer for e in (await store.standing(CODE, 2))[0]] == ["a", "c"]
    lines = await store.entries(CODE, ["b", "c", "zz"])
    assert {r: (e.points, rank) for r, (e, rank) in lines.items()} == {"b": (2, 3), "c": (5, 2)}
    # ties share a rank
    await store.heat_over(CODE, "H5", [win("b", 3, "2")])
    lines = await store.entries(CODE, ["b", "c"])
    assert lines["b"][1] == lines["c"][1] == 2


async def test_places_kept_are_the_last_ten_and_one_process_forms_the_heats(
    store: ArenaStore,
) -> None:
    await store.create(record(), 3600)
    await store.enter(CODE, "a", "A")
    for n in range(12):
        await store.heat_over(CODE, f"H{n}", [off("a", str(n % 8 + 1))])
    (line,), _ = await store.standing(CODE, 1)
    assert line.last == "3456781234"
    assert await store.lock(CODE, "p1", 60_000)
    assert await store.lock(CODE, "p1", 60_000)  # kept
    assert not await store.lock(CODE, "p2", 60_000)


async def test_an_identity_keeps_its_newest_arena_results(store: ArenaStore) -> None:
    await store.create(record(), 3600)
    assert await store.enter(CODE, "a", "A", "hash-a")
    assert await store.enter(CODE, "b", "B")
    assert await store.owners(CODE) == {"a": "hash-a"}
    for n in range(4):
        await store.keep_results({"hash-a": f"r{n}".encode(), "hash-b": b"x"}, 3, 3600)
    assert await store.results("hash-a", 10) == [b"r3", b"r2", b"r1"]
    assert await store.results("hash-a", 1) == [b"r3"]
    assert await store.results("nobody", 5) == []


async def test_public_arenas_are_listed_by_their_start_and_old_ones_leave(
    store: ArenaStore,
) -> None:
    hour = 3_600_000
    await store.publish("PUBLIC23", 5 * hour, keep_ms=2 * hour)
    await store.publish("PUBLIC34", 6 * hour, keep_ms=2 * hour)
    await store.publish("PUBLIC23", 5 * hour, keep_ms=2 * hour)  # listed once
    assert await store.publics(0, 10 * hour) == ["PUBLIC23", "PUBLIC34"]
    assert await store.publics(5 * hour + 1, 10 * hour) == ["PUBLIC34"]
    await store.publish("PUBLIC45", 8 * hour, keep_ms=2 * hour)  # 5 h is 3 h before it
    assert await store.publics(0, 10 * hour) == ["PUBLIC34", "PUBLIC45"]


async def test_private_arenas_are_tracked_by_their_start_apart_from_the_public_list(
    store: ArenaStore,
) -> None:
    hour = 3_600_000
    # made in any order (a private arena may start tomorrow), trimmed by the time now
    await store.track("LATER234", 30 * hour, since_ms=2 * hour)
    await store.track("SOON2345", 5 * hour, since_ms=2 * hour)
    await store.track("SOON2345", 5 * hour, since_ms=2 * hour)  # tracked once
    assert await store.tracked(0, 40 * hour) == ["SOON2345", "LATER234"]
    assert await store.tracked(0, 10 * hour) == ["SOON2345"]
    assert await store.publics(0, 40 * hour) == []  # never listed as public
    await store.track("NEXT2345", 7 * hour, since_ms=6 * hour)  # 5 h is before 6 h: gone
    assert await store.tracked(0, 40 * hour) == ["NEXT2345", "LATER234"]


async def test_a_racer_holds_one_arena_heat_at_a_time(store: ArenaStore) -> None:
    assert await store.racer_heat("r1") is None
    assert await store.hold_racer("r1", "ARENA234/HEAT23", 60_000)
    assert await store.hold_racer("r1", "ARENA234/HEAT23", 60_000)  # the same heat: kept
    assert not await store.hold_racer("r1", "OTHER234/HEAT34", 60_000)
    assert await store.racer_heat("r1") == "ARENA234/HEAT23"
    await store.free_racer("r1", "OTHER234/HEAT34")  # not the heat held: nothing
    assert await store.racer_heat("r1") == "ARENA234/HEAT23"
    await store.free_racer("r1", "ARENA234/HEAT23")
    assert await store.racer_heat("r1") is None
    assert await store.hold_racer("r1", "OTHER234/HEAT34", 60_000)


async def test_two_formations_at_once_never_share_a_racer_nor_leave_one_alone(
    store: ArenaStore,
) -> None:
    """Two processes forming heats from one waiting (as when the lock moved while a
    formation ran): every racer in one heat at most, and no heat of one."""
    await store.create(record(), 3600)
    racers = [f"r{n}" for n in range(9)]
    for n, racer in enumerate(racers):
        await store.enter(CODE, racer, racer.upper())
        await store.wait(CODE, racer, n)
    # overlapping groups, as two formations of a slightly different waiting cut them
    groups = [racers[0:5], racers[5:9], racers[0:3], racers[3:6], racers[6:9], racers[4:6]]
    taken = await asyncio.gather(
        *(
            store.take(CODE, group, f"HEAT{n:02}", least=2, until_ms=1000)
            for n, group in enumerate(groups)
        )
    )
    put = [racer for heat in taken for racer in heat]
    assert sorted(put) == sorted(set(put)), taken  # nobody in two heats
    assert all(len(heat) != 1 for heat in taken), taken
    assert set(put) | set(await store.waiting(CODE)) == set(racers)


async def test_a_result_under_review_is_held_off_the_standing_and_released_back(
    store: ArenaStore,
) -> None:
    await store.create(record(), 3600)
    for racer in "ab":
        await store.enter(CODE, racer, racer.upper())
    # b's result in HEAT02 is flagged before that heat is scored: it scores off the standing
    assert await store.hold(CODE, "HEAT02", "b")
    assert not await store.hold(CODE, "HEAT02", "b")  # once
    await store.heat_over(CODE, "HEAT01", [win("a", 5, "1"), off("b", "2")])
    assert await store.hold(CODE, "HEAT01", "a")  # scored already: its 5 leave
    await store.heat_over(CODE, "HEAT02", [win("b", 5, "1"), off("a", "2")])
    lines = await store.entries(CODE, ["a", "b"])
    assert [(r, lines[r][0].points, lines[r][0].heats) for r in "ab"] == [("a", 1, 2), ("b", 1, 2)]
    assert await store.release(CODE, "HEAT01", "a")
    assert not await store.release(CODE, "HEAT01", "a")
    assert not await store.release(CODE, "HEAT09", "a")  # never held
    top, _ = await store.standing(CODE, 5)
    assert [(e.racer, e.points) for e in top] == [("a", 6), ("b", 1)]
    assert await store.release(CODE, "HEAT02", "b")
    top, _ = await store.standing(CODE, 5)
    assert [(e.racer, e.points) for e in top] == [("a", 6), ("b", 6)]


async def test_an_arena_result_is_rewritten_in_place_in_a_history(store: ArenaStore) -> None:
    def result(code: str, place: int) -> bytes:
        return msgspec.json.encode(
            ArenaResult(
                code=code, name="F", draw=3, place=place, racers=2, points=1, heats=1,
                ended_at=0, public=False, every=0, trophy=0,
            )
        )  # fmt: skip

    await store.keep_results({"o1": result("OLDER234", 1)}, 10, 3600)
    await store.keep_results({"o1": result(CODE, 2), "o2": result(CODE, 1)}, 10, 3600)
    await store.rewrite_results(CODE, {"o1": result(CODE, 1), "o3": result(CODE, 2)})
    kept = [msgspec.json.decode(r, type=ArenaResult) for r in await store.results("o1", 10)]
    assert [(r.code, r.place) for r in kept] == [(CODE, 1), ("OLDER234", 1)]
    assert await store.results("o3", 10) == []  # none kept: none written
