"""Arenas in process: six racers on two processes (hubs on one in-memory store,
a manual clock) race heats; points, the streak and berserk as documented
(``room/arena_rules.py``), the standing the same on both processes."""

from __future__ import annotations

import asyncio
from collections import Counter
from functools import cache
from types import SimpleNamespace
from typing import Any

import pytest
from canfield.solver import WINNABLE, solve
from canfield_protocol import MemberStatus, Row
from canfield_server.ops.config import Settings
from canfield_server.room.arena_rules import form_heats, heat_places, heats_due, podium_size
from canfield_server.room.integrity import Signals
from canfield_server.room.ports import HeatPlace, Proven

from tests.server.conftest import MakeRooms
from tests.server.helpers import SolverStub
from tests.server.inprocess import HubClient, Rooms

#: deals the solver wins in well under a second (a heat each, none raced twice)
DEALS = [
    "CF1-D3-AAADKOH",
    "CF2-D3-SC2F1KY2HH2ZEDH6RVHFA20AWZ",
    "CF2-D3-CEM06TA03K4V0334K4G753DE50",
    "CF2-D3-0B694WEE7XF6MFFE9GH85S32SN",
]
NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"]
#: a gather long enough for all six to finish before the next heat forms
ARENA: dict[str, Any] = {"countdown_s": 1.0, "arena_gather_s": 30.0, "arena_seat_wait_s": 2.0}


@cache
def line(deal: str) -> list[str]:
    result = solve(deal, timeout_s=20)
    assert result.result == WINNABLE, deal
    return [str(m) for m in result.moves]


class Deals(SolverStub):
    """The solver's pool: each deal of ``DEALS`` once, in turn."""

    def __init__(self) -> None:
        self.given: list[str] = []

    async def take(self, draw: int, room: str) -> Proven:
        code = DEALS[len(self.given) % len(DEALS)]
        self.given.append(code)
        return Proven(code, len(line(code)))


def row(member: str, rank: int, status: MemberStatus = MemberStatus.WON) -> Row:
    return Row(
        rank=rank, id=member, name=member, score=0, on_foundations=0, moves=1, status=status,
        time_ms=0,
    )  # fmt: skip


# ---------------------------------------------------------------- the rules


def test_places_score_by_the_table_ties_share_and_leaving_scores_nothing() -> None:
    rows = [row("a", 1), row("b", 2), row("c", 2), row("d", 4), row("e", 5, MemberStatus.LEFT)]
    racer_of = {m: m.upper() for m in "abcde"}
    places = heat_places(rows, racer_of, berserk={"a", "d"})
    assert places == [
        HeatPlace("A", 5, True, 1, "1"),
        # 2nd and 3rd tied: (3 + 2) / 2 rounded half up
        HeatPlace("B", 3, True, 0, "2"),
        HeatPlace("C", 3, True, 0, "2"),
        HeatPlace("D", 1, False, 1, "4"),
        HeatPlace("E", 0, False, 0, "-"),
    ]
    assert [podium_size(n) for n in (1, 2, 3, 4, 8)] == [0, 1, 2, 3, 3]
    # a seat of no racer (a bot) scores nothing; a heat of one is a finish
    assert heat_places([row("x", 1)], {}, set()) == []
    assert heat_places([row("x", 1)], {"x": "X"}, set()) == [HeatPlace("X", 1, False, 0, "1")]


def test_heats_group_neighbours_in_the_standing_and_are_never_of_one() -> None:
    points = {f"r{n}": n for n in range(10)}
    waiting = {f"r{n}": 1000 for n in range(10)}
    seven = {f"r{n}": 1000 for n in range(7)}
    assert form_heats(seven, points, 3999, gather_ms=3000) == []
    assert len(form_heats(seven, points, 4000, gather_ms=3000)) == 1
    # a full heat waits: at once, cut into heats of about the same size
    heats = form_heats(waiting, points, 1000, gather_ms=3000)
    assert heats == [[f"r{n}" for n in range(9, 4, -1)], [f"r{n}" for n in range(4, -1, -1)]]
    full = {f"r{n}": 1000 for n in range(8)}
    assert form_heats(full, points, 1000, gather_ms=3000) == [
        sorted(full, key=lambda r: -points[r])
    ]
    # nine: five and four, never eight and one
    nine = {f"r{n}": 1000 for n in range(9)}
    assert sorted(map(len, form_heats(nine, points, 1000, gather_ms=3000))) == [4, 5]
    # alone: however long, no heat of one; the next finisher makes a pair at once
    alone = {"r1": 0}
    assert form_heats(alone, points, 3_600_000, gather_ms=3000) == []
    pair = {"r1": 0, "r2": 3_600_000}
    assert form_heats(pair, points, 3_600_000, gather_ms=3000) == [["r2", "r1"]]
    # due exactly when heats form (the former reads no standing before)
    cases = [(seven, 3999), (seven, 4000), (full, 1000), (alone, 3_600_000), (pair, 3_600_000)]
    for waiting_now, now in cases:
        formed = form_heats(waiting_now, points, now, gather_ms=3000)
        assert heats_due(waiting_now, now, gather_ms=3000) == bool(formed)


# ---------------------------------------------------------------- in process


async def racer(world: Any, process: int, name: str) -> HubClient:
    client = await world.open(process)
    reply = await client.request("identity", type="identify")
    assert reply["type"] == "identity", reply
    return client


async def heat(clients: list[HubClient], berserk: HubClient | None = None) -> str:
    """Each racer is seated in the next heat and it starts; the heat's room."""
    rooms = set()
    for client in clients:
        joined = await client.expect("joined")
        assert joined["state"]["arena"], joined
        rooms.add(joined["room"])
    assert len(rooms) == 1, rooms
    if berserk is not None:
        reply = await berserk.request("arena_berserk_on", type="arena_berserk")
        assert reply["type"] == "arena_berserk_on", reply
    for client in clients:
        await client.expect("started")
    return rooms.pop()


async def race_in_order(world: Any, clients: list[HubClient], deal: str) -> None:
    """Each racer wins the heat's deal, one second after the one before."""
    moves = line(deal)
    for client in clients:
        for seq, move in enumerate(moves, start=1):
            reply = await client.request("ack", type="move", seq=seq, move=move)
            assert reply["type"] == "ack", reply
        await world.clock.advance(1.0)


def standing(msg: dict[str, Any]) -> list[tuple[str, int, int, int, str]]:
    return [(r["name"], r["points"], r["streak"], r["heats"], r["last"]) for r in msg["standing"]]


async def test_six_racers_on_two_processes_score_places_a_streak_and_berserk(
    rooms: MakeRooms,
) -> None:
    deals = Deals()
    world = await rooms(processes=2, solver=deals, **ARENA)
    clients = [await racer(world, n % 2, name) for n, name in enumerate(NAMES)]
    ann = clients[0]
    made = await ann.request(
        "arena", type="arena_create", name="Friday", player_name="Ann", minutes=15
    )
    assert made["type"] == "arena", made
    code = made["arena"]["code"]
    assert made["arena"]["status"] == "running" and made["me"]["name"] == "Ann"
    for client, name in zip(clients[1:], NAMES[1:], strict=True):
        reply = await client.request("arena", type="arena_join", arena=code, name=name)
        assert reply["type"] == "arena" and reply["me"]["points"] == 0, reply
    watchers = [await world.open(0), await world.open(1)]
    for watcher in watchers:
        assert (await watcher.request("arena", type="arena_watch", arena=code))["me"] is None

    # heat 1: Ann goes berserk and wins; places 1-6 in order
    first = await heat(clients, berserk=ann)
    refused = await ann.request("ack", type="undo", seq=1)
    assert refused["type"] == "error" and refused["code"] == "not-allowed", refused
    await race_in_order(world, clients, deals.given[0])
    finished = await clients[-1].expect("finished")
    assert [r.get("rating") for r in finished["standings"]] == [None] * 6  # unrated
    # heats 2 and 3: the same order; Ann's third podium in a row counts double
    for n in (1, 2):
        room = await heat(clients)
        assert room != first
        await race_in_order(world, clients, deals.given[n])
        await clients[-1].expect("finished")
    assert len(set(deals.given[:3])) == 3  # a fresh deal each heat

    for client in clients:
        await client.expect("left")  # out of heat 3, waiting for the next
    await ann.request("arena", type="arena_end")
    over = []
    for watcher in watchers:
        over.append(await watcher.expect("arena", lambda m: m["arena"]["status"] == "over"))
    expected = [
        ("Ann", 6 + 5 + 10, 3, 3, "111"),
        ("Bob", 3 + 3 + 6, 3, 3, "222"),
        ("Cat", 2 + 2 + 4, 3, 3, "333"),
        ("Dan", 3, 0, 3, "444"),
        ("Eve", 3, 0, 3, "555"),
        ("Fay", 3, 0, 3, "666"),
    ]
    assert standing(over[0]) == standing(over[1])
    # Dan, Eve and Fay tie on points: in racer id order, sharing 4th place
    assert standing(over[0])[:3] == expected[:3]
    assert sorted(standing(over[0])[3:]) == expected[3:]
    assert [r["rank"] for r in over[0]["standing"]] == [1, 2, 3, 4, 4, 4]
    # each racer's place is kept in their history (/me)
    for client, place, points in [(ann, 1, 21), (clients[1], 2, 12), (clients[5], 4, 3)]:
        kept = await client.request("arena_history", type="arena_history")
        assert [
            (a["code"], a["place"], a["racers"], a["points"], a["heats"]) for a in kept["arenas"]
        ] == [(code, place, 6, points, 3)]


async def two_in_a_slow_ticking_arena(
    rooms: MakeRooms, tick_s: float, processes: int
) -> tuple[Any, HubClient, HubClient, str]:
    """Ann makes an arena (a 2 s gather, a tick every ``tick_s``) and Bob joins,
    on the last of ``processes``: the world, Ann, Bob and the arena's code."""
    settings = {**ARENA, "arena_tick_s": tick_s, "arena_gather_s": 2.0}
    world = await rooms(processes=processes, solver=Deals(), **settings)
    ann, bob = await racer(world, 0, "Ann"), await racer(world, processes - 1, "Bob")
    made = await ann.request(
        "arena", type="arena_create", name="Friday", player_name="Ann", minutes=15
    )
    code = made["arena"]["code"]
    await bob.request("arena", type="arena_join", arena=code, name="Bob")
    return world, ann, bob, code


async def test_a_finisher_is_in_the_next_heat_without_waiting_for_a_tick(
    rooms: MakeRooms,
) -> None:
    """Two racers on two processes, whose ticks come a minute apart: once the
    first heat formed (at a tick), each racer's give-up takes them out of the heat
    at once, the lock's holder forms the next heat once the gather ends (told by
    the waiting's signal), and each racer's process seats them as soon as it hears
    it formed: the next heat starts after the gather and the countdown, no tick."""
    tick_s = 60.0
    world, ann, bob, _ = await two_in_a_slow_ticking_arena(rooms, tick_s, processes=2)
    first = await heat([ann, bob])  # formed at the first tick
    finished_at = world.clock.now_ms()
    for client in (ann, bob):
        await client.request("ack", type="give_up", seq=1)
    for client in (ann, bob):
        assert (await client.expect("left"))["room"] == first
    assert world.clock.now_ms() == finished_at  # out at once, not at a tick
    second = await heat([ann, bob])
    assert second != first
    took_s = (world.clock.now_ms() - finished_at) / 1000
    # the gather (2 s) and the countdown (1 s), with the timers' slack: no tick
    assert took_s < 2.0 + 1.0 + 0.1 < tick_s, took_s


async def test_a_heat_formed_while_its_racer_is_taken_out_of_the_last_seats_them_after(
    rooms: MakeRooms, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A racer put in the waiting on their way out of a heat can be put in the
    next heat before that way ends (its ``formed`` heard meanwhile): they are
    seated as soon as they are out, not at their process's next tick."""
    tick_s = 60.0
    world, ann, bob, code = await two_in_a_slow_ticking_arena(rooms, tick_s, processes=1)
    await heat([ann, bob])
    arenas = world.hubs[0].arenas
    assert arenas is not None
    runner = arenas.heats
    real = runner._done

    async def out_then_formed(peer: Any, racer: Any, forming: bool) -> bool:
        waits = await real(peer, racer, forming)
        if racer.name == "Bob":  # both wait now: the next heat forms, Bob still busy
            found = await runner.store.load(code)
            assert found is not None and racer.racer in runner.busy
            await runner.former._form(found[0], world.clock.now_ms() + 60_000)
            for _ in range(5):
                await asyncio.sleep(0)  # its ``formed`` heard here
            assert racer.racer in runner.seat_after
        return waits

    monkeypatch.setattr(runner, "_done", out_then_formed)
    finished_at = world.clock.now_ms()
    await ann.request("ack", type="give_up", seq=1)
    await ann.expect("left")
    await bob.request("ack", type="give_up", seq=1)
    await heat([ann, bob])
    assert (world.clock.now_ms() - finished_at) / 1000 < tick_s


async def test_a_racer_seated_late_waits_again_and_clears_no_board_of_the_heat(
    rooms: MakeRooms, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A racer put in a heat that started without them (their seat came after the
    seat wait), whose seat reads the time before the heat's countdown ended (a
    busy process), is not seated: a seat then would be a new race's, clearing the
    boards of those racing (their next move: ``seq-gap``). They wait again."""
    deals = Deals()
    world = await rooms(processes=1, solver=deals, **ARENA)
    ann, bob, cat = [await racer(world, 0, name) for name in ("Ann", "Bob", "Cat")]
    made = await ann.request(
        "arena", type="arena_create", name="Friday", player_name="Ann", minutes=15
    )
    code = made["arena"]["code"]
    await bob.request("arena", type="arena_join", arena=code, name="Bob")
    room = await heat([ann, bob])
    moves = line(deals.given[0])
    assert (await ann.request("ack", type="move", seq=1, move=moves[0]))["type"] == "ack"
    arenas = world.hubs[0].arenas
    assert arenas is not None
    await cat.request("arena", type="arena_join", arena=code, name="Cat")
    peer, cat_racer = next(
        (p, r) for p, r in arenas.followers[code].items() if r is not None and r.name == "Cat"
    )
    assert await arenas.store.take(code, [cat_racer.racer], room, 1, 10**15) == [cat_racer.racer]
    session = world.hubs[0].rooms.get(room)
    assert session is not None and session.state.starts_at is not None
    stale = SimpleNamespace(
        now_ms=lambda: session.state.starts_at - 1, call_later=world.clock.call_later
    )
    monkeypatch.setattr(arenas.heats, "clock", stale)
    await arenas.heats._seat(peer, cat_racer, room, None)
    monkeypatch.undo()
    assert cat_racer.heat == "" and peer.room is None
    assert cat_racer.racer in await arenas.store.waiting(code)
    # Ann's board is as she left it: her next move follows her first
    assert (await ann.request("ack", type="move", seq=2, move=moves[1]))["type"] == "ack"


async def test_only_the_host_changes_an_arena_and_only_before_its_start(
    rooms: MakeRooms,
) -> None:
    world = await rooms(processes=1, **ARENA)
    ann, bob = await racer(world, 0, "Ann"), await racer(world, 0, "Bob")
    made = await ann.request(
        "arena", type="arena_create", name="Later", player_name="Ann", starts_in_s=600
    )
    code = made["arena"]["code"]
    assert made["arena"]["status"] == "scheduled"
    await bob.request("arena", type="arena_join", arena=code, name="Bob")
    refused = await bob.request("error", type="arena_settings", minutes=60)
    assert refused["code"] == "not-host"
    changed = await ann.request("arena", type="arena_settings", minutes=60, draw=1)
    assert changed["arena"]["minutes"] == 60 and changed["arena"]["draw"] == 1
    bad = await ann.request("error", type="arena_settings", minutes=200)
    assert bad["code"] == "bad-message"
    # the host removes Bob: he is told, and cannot come back
    await ann.request("arena", type="arena_remove", racer=made["me"]["id"])  # not themselves
    assert ann.log[-1]["type"] == "error" and ann.log[-1]["code"] == "not-allowed"
    bob_id = next(r["id"] for r in changed["standing"] if r["name"] == "Bob")
    await ann.send(type="arena_remove", racer=bob_id)
    assert (await bob.expect("arena_left"))["by"] == "host"
    again = await bob.request("arena", type="arena_join", arena=code, name="Bob")
    assert again["type"] == "error" and again["code"] == "not-allowed"
    # after the start, the settings stay
    await ann.expect("arena", lambda m: m["arena"]["status"] == "running", timeout=30)
    late = await ann.request("error", type="arena_settings", minutes=30)
    assert late["code"] == "wrong-phase"


@pytest.mark.parametrize("who", ["nobody-identified"])
async def test_an_arena_needs_an_identity_and_a_known_code(rooms: MakeRooms, who: str) -> None:
    world = await rooms(processes=1, **ARENA)
    anon = await world.open(0)
    refused = await anon.request("error", type="arena_join", arena="ABCDEFGH", name="X")
    assert refused["code"] == "no-identity"
    ann = await racer(world, 0, "Ann")
    unknown = await ann.request("error", type="arena_join", arena="ABCDEFGH", name="Ann")
    assert unknown["code"] == "unknown-room"
    bad = await ann.request("error", type="arena_join", arena="AB", name="Ann")
    assert bad["code"] == "bad-message"


async def test_a_heat_whose_forming_failed_part_way_still_starts(
    rooms: MakeRooms, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process forming a heat fails once its racers are out of the waiting
    (before the heat is listed or started, as if that process died there): the
    arena lock's holder finds the heat still forming past its time and starts it
    with the racers seated, and the arena runs on to its end."""
    world = await rooms(processes=2, solver=Deals(), **ARENA)
    failed: list[str] = []
    for hub in world.hubs:
        assert hub.arenas is not None
        runner = hub.arenas.heats.former

        async def broken(record: Any, racers: Any, real: Any = runner._deal) -> str:
            if not failed:
                failed.append(record.code)
                raise RuntimeError("the forming process fails here")
            return str(await real(record, racers))

        monkeypatch.setattr(runner, "_deal", broken)
    ann, bob = await racer(world, 0, "Ann"), await racer(world, 1, "Bob")
    made = await ann.request(
        "arena", type="arena_create", name="Friday", player_name="Ann", minutes=15
    )
    code = made["arena"]["code"]
    await bob.request("arena", type="arena_join", arena=code, name="Bob")
    await heat([ann, bob])  # seated, and started though its forming failed
    assert failed == [code]
    for client in (ann, bob):
        await client.request("ack", type="give_up", seq=1)
        await client.expect("left")
    await ann.request("arena", type="arena_end")
    over = await ann.expect("arena", lambda m: m["arena"]["status"] == "over", timeout=30)
    assert sorted((r["name"], r["heats"]) for r in over["standing"]) == [("Ann", 1), ("Bob", 1)]


async def test_two_processes_forming_at_once_put_each_racer_in_one_heat_of_two_or_more(
    rooms: MakeRooms,
) -> None:
    """Both processes form heats from the same waiting at once (as when the arena
    lock passed on while a formation still ran): the store's take is atomic, so
    each racer is seated in one heat, and no heat is left with one racer."""
    world = await rooms(processes=2, solver=Deals(), **ARENA)
    clients = [await racer(world, n % 2, f"R{n}") for n in range(9)]
    made = await clients[0].request(
        "arena", type="arena_create", name="Friday", player_name="R0", minutes=15
    )
    code = made["arena"]["code"]
    for n, client in enumerate(clients[1:], start=1):
        await client.request("arena", type="arena_join", arena=code, name=f"R{n}")
    runners = [hub.arenas.heats.former for hub in world.hubs if hub.arenas is not None]
    found = await runners[0].store.load(code)
    assert found is not None
    past_the_gather = world.clock.now_ms() + 60_000
    await asyncio.gather(*(runner._form(found[0], past_the_gather) for runner in runners))
    seated = Counter([(await client.expect("joined"))["room"] for client in clients])
    assert sum(seated.values()) == 9 and min(seated.values()) >= 2, seated


class Solved:
    """The signal service's word on every line: played as a solver's (flagged)."""

    async def assess(self, owner: str, deal: str, entries: Any, par: int | None) -> Signals:
        return Signals(
            actions=len(entries), moves_per_s=1.0, think_ms=[], think_median_ms=1000,
            think_spread=0.2, decision_think_ms=None, forced_think_ms=None, over_par=0,
            solver_agreement=1.0, checked_moves=1000, won=True, net_over_par=0,
        )  # fmt: skip


async def test_a_flagged_heat_leaves_the_standing_under_review_and_comes_back_cleared() -> None:
    """Fair play in an arena: a heat result the review flags scores nothing in the
    standing (nor the podium, nor the places kept at the end) while it is under
    review; cleared, its points come back and the places kept are written again;
    confirmed, they stay out."""
    deals = Deals()
    world = Rooms(Settings(**ARENA), processes=2, solver=deals, signals=Solved())
    try:
        ann, bob = await racer(world, 0, "Ann"), await racer(world, 1, "Bob")
        made = await ann.request(
            "arena", type="arena_create", name="Friday", player_name="Ann", minutes=15
        )
        code = made["arena"]["code"]
        await bob.request("arena", type="arena_join", arena=code, name="Bob")
        room = await heat([ann, bob])
        await race_in_order(world, [ann, bob], deals.given[0])  # Ann 1st (5), Bob 2nd (3)
        for client in (ann, bob):
            await client.expect("left")
        for hub in world.hubs:  # the assessments, off the move path
            await asyncio.gather(*hub.rooms.tasks)
        cases = {c.name: c for c in await world.integrity.open_cases(10)}
        assert set(cases) == {"Ann", "Bob"} and cases["Ann"].arena == code
        await ann.request("arena", type="arena_end")
        over = await ann.expect("arena", lambda m: m["arena"]["status"] == "over", timeout=30)
        # under review: both results off the standing, and off the places kept
        standing = sorted((r["name"], r["points"], r["heats"]) for r in over["standing"])
        assert standing == [("Ann", 0, 1), ("Bob", 0, 1)]

        async def kept(client: HubClient) -> tuple[int, int]:
            found = (await client.request("arena_history", type="arena_history"))["arenas"]
            assert [a["code"] for a in found] == [code], found
            return found[0]["place"], found[0]["points"]

        assert await kept(ann) == (1, 0) and await kept(bob) == (1, 0)
        # the operator clears Ann's and confirms Bob's: Ann's 5 come back, Bob's 3 stay out
        reviews = world.hubs[0].reviews
        assert await reviews.decide(cases["Ann"].result, False, "op") is not None
        assert await reviews.decide(cases["Bob"].result, True, "op") is not None
        assert cases["Ann"].room == room
        store = world.hubs[0].arenas.store if world.hubs[0].arenas else None
        assert store is not None
        top, _ = await store.standing(code, 5)
        assert [(e.name, e.points) for e in top] == [("Ann", 5), ("Bob", 0)]
        assert await kept(ann) == (1, 5) and await kept(bob) == (2, 0)
    finally:
        await world.close()
