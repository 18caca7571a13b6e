"""Best-of-N series: the rule, sans I/O, then a whole series in process."""

from __future__ import annotations

from typing import Literal

from canfield_protocol import MemberStatus, Role, Row, Series, SettingsMsg
from canfield_server.room import rules as R

from tests.server.conftest import MakeRooms
from tests.server.helpers import DEAL, lobby


def row(member_id: str, rank: int) -> Row:
    return Row(
        rank=rank,
        id=member_id,
        name=member_id.title(),
        score=0,
        on_foundations=0,
        moves=0,
        status=MemberStatus.GAVE_UP,
        time_ms=0,
    )


def series_room(best_of: Literal[1, 3, 5, 7]) -> R.RoomState:
    state = R.create_room("ABCDEF", "ann", "Ann")
    state = R.add_member(state, "bob", "Bob", Role.PLAYER)
    return R.update_settings(state, "ann", SettingsMsg(best_of=best_of))


def race(state: R.RoomState, *order: str, tied: int = 1) -> R.RoomState:
    """One race whose standings are ``order`` (first place first; the first
    ``tied`` share first place)."""
    racing, _ = R.start_race(state, "ann", 0, 0, force=True)
    ranks = [1 if n < tied else n + 1 for n in range(len(order))]
    return R.finish_race(racing, [row(m, rank) for m, rank in zip(order, ranks, strict=True)])


def test_a_tie_for_first_is_a_win_for_each_racer_of_it() -> None:
    state = race(series_room(3), "ann", "bob", tied=2)
    assert wins(state) == {"ann": 1, "bob": 1}
    state = race(R.rematch(state, "ann"), "bob", "ann")
    assert wins(state) == {"ann": 1, "bob": 2} and series(state).winner_id is None  # 2-1, one left


def wins(state: R.RoomState) -> dict[str, int]:
    assert state.series is not None
    return {s.id: s.wins for s in state.series.scores}


def series(state: R.RoomState) -> Series:
    assert state.series is not None
    return state.series


def test_a_series_ends_as_soon_as_nobody_can_catch_the_leader() -> None:
    state = race(series_room(5), "ann", "bob")
    assert wins(state) == {"ann": 1, "bob": 0} and series(state).winner_id is None
    state = race(R.rematch(state, "ann"), "ann", "bob")
    state = race(R.rematch(state, "ann"), "bob", "ann")
    assert series(state).races == 3 and series(state).winner_id is None  # 2-1, two to go
    state = race(R.rematch(state, "ann"), "ann", "bob")
    assert wins(state) == {"ann": 3, "bob": 1}
    assert series(state).winner_id == "ann"  # 3 of 5: Bob cannot catch up
    fresh = R.rematch(state, "ann")
    assert fresh.series is None  # the next race starts a new series
    assert series(race(fresh, "bob", "ann")).races == 1


def test_a_tie_after_the_last_race_goes_to_the_better_place_in_it() -> None:
    state = R.create_room("ABCDEF", "ann", "Ann")
    for member_id in ("bob", "cy"):
        state = R.add_member(state, member_id, member_id.title(), Role.PLAYER)
    state = R.update_settings(state, "ann", SettingsMsg(best_of=3))
    state = race(state, "ann", "bob", "cy")
    state = race(R.rematch(state, "ann"), "bob", "cy", "ann")
    state = race(R.rematch(state, "ann"), "cy", "bob", "ann")  # 1-1-1
    assert series(state).races == 3 and series(state).winner_id == "cy"


def test_single_races_keep_no_series_and_a_new_setting_starts_over() -> None:
    assert race(series_room(1), "ann", "bob").series is None
    state = race(series_room(3), "ann", "bob")
    lobby_again = R.rematch(state, "ann")
    assert lobby_again.series is not None
    changed = R.update_settings(lobby_again, "ann", SettingsMsg(best_of=5))
    assert changed.series is None


def test_a_racer_who_leaves_keeps_their_score_in_the_tally() -> None:
    state = race(series_room(3), "bob", "ann")
    without_bob = R.remove_member(R.rematch(state, "ann"), "bob")
    state = race(without_bob, "ann")
    assert wins(state) == {"bob": 1, "ann": 1} and series(state).winner_id is None
    state = race(R.rematch(state, "ann"), "ann")
    assert series(state).winner_id == "ann"


async def test_a_best_of_three_to_its_end(rooms: MakeRooms) -> None:
    world = await rooms(countdown_s=0.3)
    room, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"], deal=DEAL)
    await ann.send(type="settings", best_of=3)
    await bob.expect("room", lambda m: m["settings"]["best_of"] == 3)
    champion = None
    for number in (1, 2, 3):
        if number > 1:  # a rematch deals anew: the same deal again, for the line below
            reply = await ann.request("room", type="settings", deal=DEAL)
            assert reply["type"] == "room", reply
        await ann.send(type="start", force=True)
        for client in (ann, bob):
            await client.expect("started")
        # the winner of each race puts a card home before both give up (no tie)
        leader = (ann, bob)[number % 2]
        for seq, move in enumerate(["S", "S", "S", "S", "W-F"], start=1):
            assert (await leader.request("ack", type="move", seq=seq, move=move))["type"] == "ack"
        for client in (ann, bob):
            await client.send(type="give_up", seq=6 if client is leader else 1)
        standings = (await bob.expect("finished"))["standings"]
        first = standings[0]["id"]
        assert first == leader.joined["player_id"] and [r["rank"] for r in standings] == [1, 2]
        # the room that ends the race carries the tally (it comes with the results)
        tallies = [m["series"] for m in bob.log if m["type"] == "room" and m.get("series")]
        series = tallies[-1]
        assert series["races"] == number
        assert {s["id"]: s["wins"] for s in series["scores"]}[first] >= 1
        if series["winner_id"]:
            champion = series["winner_id"]
            break
        await ann.send(type="rematch")
        await bob.expect("room", lambda m: m["phase"] == "lobby")
    assert champion is not None and series["races"] in (2, 3)
    assert max(s["wins"] for s in series["scores"]) == 2
    await ann.send(type="rematch")  # a decided series: the next race starts a new one
    fresh = await bob.expect("room", lambda m: m["phase"] == "lobby")
    assert fresh["series"] is None
