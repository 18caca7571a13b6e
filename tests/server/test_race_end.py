"""Races always end, and fairly: the room logic in process (``inprocess.py``).

Hubs over the in-memory adapters on a manual clock: a grace time or a
30-second time limit runs out the moment a test waits for what it brings.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from canfield import Game
from canfield.solver import solve
from canfield_protocol import RANDOM_DEAL, ErrorCode, ProtocolError

from tests.server.conftest import MakeRooms, SameBoard
from tests.server.helpers import DEAL, FAST, SolverStub, lobby, member, play, seated, start

#: a deal the solver wins in milliseconds
WINNABLE_DEAL = "CF1-D3-AAADKOH"


def row(msg: dict[str, Any], name: str) -> dict[str, Any]:
    return next(r for r in msg.get("rows", msg.get("standings", [])) if r["name"] == name)


async def test_a_host_who_drops_mid_race_hands_over_and_the_race_ends_without_them(
    rooms: MakeRooms,
) -> None:
    world = await rooms(**FAST)
    room, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"])
    await start([ann, bob])
    await play(ann, ["S"])
    await ann.close()  # the host's tab is closed

    away = await bob.expect("room", lambda m: bool((member(m, "Ann") or {}).get("away_until")))
    assert seated(away, "Ann")["connected"] is False
    assert away["host_id"] == seated(away, "Ann")["id"]  # still host within the grace time
    assert 0 < seated(away, "Ann")["away_until"] - away["server_time"] <= 1000
    handed = await bob.expect("room", lambda m: member(m, "Ann") is None)
    assert handed["host_id"] == bob.joined["player_id"]  # the person still here hosts now

    await bob.send(type="give_up", seq=1)
    finished = await bob.expect("finished")  # at once: nobody left to wait for
    assert row(finished, "Ann")["status"] == "left" and row(finished, "Ann")["on_foundations"] >= 0
    assert row(finished, "Bob")["status"] == "gave_up"
    assert finished["replays"][seated(away, "Ann")["id"]] == ["S", "G"]


async def test_a_guest_away_past_the_grace_time_is_out_and_results_come_when_the_rest_finish(
    rooms: MakeRooms,
) -> None:
    world = await rooms(**FAST)
    room, (ann, bob, cy) = await lobby(world.open, 0, ["Ann", "Bob", "Cy"])
    await start([ann, bob, cy])
    await play(bob, ["S", "S"])
    bob_id = bob.joined["player_id"]
    await bob.close()
    left = await ann.expect("leaderboard", lambda m: row(m, "Bob")["status"] == "left")
    assert row(left, "Bob")["moves"] == 2  # ranked by the progress they had
    await ann.send(type="give_up", seq=1)
    await ann.expect("ack")
    assert not [m for m in ann.log if m["type"] == "finished"]  # Cy still plays
    await cy.send(type="give_up", seq=1)
    finished = await ann.expect("finished")
    assert {r["name"]: r["status"] for r in finished["standings"]} == {
        "Ann": "gave_up",
        "Bob": "left",
        "Cy": "gave_up",
    }
    assert finished["replays"][bob_id] == ["S", "S", "G"]
    # the seat is gone: the old token opens nothing
    back = await world.open()
    reply = await back.request("joined", type="resume", room=room, token=bob.joined["token"])
    assert reply["code"] == "bad-token"


async def test_back_within_the_grace_time_the_board_is_as_it_was(
    rooms: MakeRooms,
    same_board: SameBoard,
) -> None:
    world = await rooms(**{**FAST, "away_grace_s": 30.0})
    room, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"])
    await start([ann, bob])
    acks = await play(bob, ["S", "S", "S"])
    await bob.close()
    await ann.expect("room", lambda m: bool((member(m, "Bob") or {}).get("away_until")))
    again = await world.open()
    joined = await again.resume(room, bob.joined["token"])
    assert joined["last_seq"] == 3
    board = (await again.expect("board"))["board"]
    assert board == acks[-1]["board"]
    assert same_board(board, Game.replay(DEAL, ["S", "S", "S"]))
    here = await ann.expect("room", lambda m: seated(m, "Bob")["connected"])
    assert seated(here, "Bob")["away_until"] is None


async def test_the_host_ends_the_race_early_with_the_standings_so_far(rooms: MakeRooms) -> None:
    world = await rooms(**FAST)
    room, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"])
    assert (await bob.request("error", type="end_race"))["code"] == "not-host"
    assert (await ann.request("error", type="end_race"))["code"] == "wrong-phase"
    await start([ann, bob])
    await play(bob, ["S"])
    assert (await bob.request("error", type="end_race"))["code"] == "not-host"
    await ann.send(type="end_race")
    finished = await bob.expect("finished")
    standings = finished["standings"]
    assert {r["status"] for r in standings} == {"stopped"}  # stopped mid-play
    assert row(finished, "Bob")["moves"] == 1
    # their time is the race's length when it was stopped, the same for both
    assert row(finished, "Ann")["time_ms"] == row(finished, "Bob")["time_ms"]
    assert row(finished, "Bob")["time_ms"] >= row(finished, "Bob")["reached_ms"]
    # the base card home each, from the start: no rule tells them apart, so they share 1st
    assert [r["rank"] for r in standings] == [1, 1]
    late = await bob.request("error", type="move", seq=2, move="S")
    assert late["code"] == "wrong-phase"


async def test_bots_leave_with_the_last_person_and_never_host(rooms: MakeRooms) -> None:
    world = await rooms(**FAST)
    ann = await world.open()
    room = (await ann.create("Ann", deal=DEAL))["room"]
    robot = await world.open()
    joined = await robot.request("joined", type="join", room=room, name="Robo", bot=True)
    assert seated(joined, "Robo")["bot"] is True
    # a bot is always ready: the host starts without being asked to confirm
    await ann.send(type="start")
    await ann.expect("started")
    await ann.send(type="leave")
    await ann.expect("left")
    kicked = await robot.expect("kicked")  # no person left to race: the bot goes too
    assert kicked["room"] == room
    assert robot.peer.closed is not None  # and its connection closed
    watcher = await world.open()
    reply = await watcher.request("joined", type="join", room=room, name="Late", role="spectator")
    assert reply["type"] == "joined" and member(reply, "Robo") is None
    assert reply["state"]["host_id"] == reply["player_id"]  # a person hosts, not a bot


async def test_start_waits_for_ready_players_unless_the_host_confirms(rooms: MakeRooms) -> None:
    world = await rooms(**FAST)
    room, (ann, bob, cy) = await lobby(world.open, 0, ["Ann", "Bob", "Cy"])
    refused = await ann.request("countdown", type="start")
    assert refused["code"] == "not-ready" and refused["params"]["names"] == ["Bob", "Cy"]
    await bob.send(type="ready", ready=True)
    await ann.expect("room", lambda m: seated(m, "Bob")["ready"])
    refused = await ann.request("countdown", type="start")
    assert refused["params"]["names"] == ["Cy"]
    assert (await ann.request("countdown", type="start", force=True))["type"] == "countdown"
    for client in (ann, bob, cy):
        await client.expect("started")


async def test_a_late_joiner_watches_then_races_from_the_rematch(rooms: MakeRooms) -> None:
    world = await rooms(**FAST)
    room, (ann,) = await lobby(world.open, 0, ["Ann"])
    await start([ann])
    zed = await world.open()
    joined = await zed.join(room, "Zed")
    assert joined["role"] == "spectator" and seated(joined, "Zed")["waiting"] is True
    assert (await zed.request("ack", type="move", seq=1, move="S"))["code"] == "not-player"
    await ann.send(type="give_up", seq=1)
    await zed.expect("finished")
    await ann.send(type="rematch")
    lobby_again = await zed.expect("room", lambda m: m["phase"] == "lobby")
    assert seated(lobby_again, "Zed")["role"] == "player"
    assert seated(lobby_again, "Zed")["waiting"] is False
    await zed.send(type="ready", ready=True)
    await ann.expect("room", lambda m: seated(m, "Zed")["ready"])
    await ann.send(type="start")
    board = (await zed.expect("started"))["board"]
    assert board is not None  # Zed races this time
    assert (await zed.request("ack", type="move", seq=1, move="S"))["type"] == "ack"


async def test_who_comes_in_mid_race_gets_the_race_so_far_in_counts_never_cards(
    rooms: MakeRooms,
) -> None:
    """A spectator who joins late draws the race chart from the start: every racer's
    cards home over time (``progress``), before the first leaderboard."""
    world = await rooms(**FAST)
    room, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"], deal="CF1-D3-AAAAAAS")
    await start([ann, bob])
    await play(ann, ["1-F", "2-F"])  # two cards home: 3 with the base card
    eve = await world.open()
    await eve.join(room, "Eve", "spectator")
    progress = await eve.expect("progress")
    assert "leaderboard" not in [m["type"] for m in eve.log]  # the chart's past comes first
    started = await ann.expect("leaderboard")
    assert progress["started_at"] > 0 and progress["server_time"] >= progress["started_at"]
    ann_id = row(started, "Ann")["id"]
    # Ann's steps to 1, 2 and 3 cards; Bob has not moved yet (his line starts at the base card)
    assert [(r["id"], len(r["reached"])) for r in progress["racers"]] == [(ann_id, 4)]
    assert set(progress["racers"][0]) == {"id", "reached"}  # counts only: no card in it
    assert progress["racers"][0]["reached"] == sorted(progress["racers"][0]["reached"])
    first = await eve.expect("leaderboard")
    assert row(first, "Ann")["on_foundations"] == 3


async def test_racers_cut_off_by_the_clock_are_timed_out_with_the_race_length(
    rooms: MakeRooms,
) -> None:
    world = await rooms(**FAST)
    ann = await world.open()
    room = (await ann.create("Ann", deal=DEAL, time_limit_s=30))["room"]
    bob = await world.open()
    await bob.join(room, "Bob")
    await start([ann, bob])
    await play(bob, ["S"])
    began = world.clock.now_ms()
    finished = await ann.expect("finished")
    assert world.clock.now_ms() - began >= 29_000  # the clock ended it, nobody else did
    for name in ("Ann", "Bob"):
        assert row(finished, name)["status"] == "timed_out"
        assert row(finished, name)["time_ms"] == 30_000


async def test_a_random_race_reveals_a_code_that_reproduces_every_board(
    rooms: MakeRooms,
    same_board: SameBoard,
) -> None:
    world = await rooms(**FAST)
    ann = await world.open()
    room = (await ann.create("Ann"))["room"]  # a random deal
    bob = await world.open()
    await bob.join(room, "Bob")
    await ann.send(type="start", force=True)
    boards = {}
    for client in (ann, bob):
        boards[client] = (await client.expect("started"))["board"]
    assert "deal" not in boards[ann]  # nothing names the deal while it runs
    acks = await play(ann, ["S", "S"])
    await ann.send(type="give_up", seq=3)
    await bob.send(type="give_up", seq=1)
    finished = await bob.expect("finished")
    code = finished["deal"]
    assert same_board(boards[bob], Game.deal(code))
    ann_id = ann.joined["player_id"]
    assert same_board(acks[-1]["board"], Game.replay(code, finished["replays"][ann_id][:2]))


async def test_look_alike_names_are_refused_and_names_are_normalised(rooms: MakeRooms) -> None:
    world = await rooms(**FAST)
    room, _ = await lobby(world.open, 0, ["Host"])
    for name in ("Ноst", "Ｈｏｓｔ", "HOST", "H0st"):  # Cyrillic, full-width, case, zero
        client = await world.open()
        refused = await client.request("joined", type="join", room=room, name=name)
        assert refused["code"] == "bad-name", name
    wide = await world.open()
    joined = await wide.request("joined", type="join", room=room, name="Ｂｏｂ")
    assert member(joined, "Bob") is not None  # stored in its plain form


async def test_spectator_churn_from_one_address_cannot_fill_a_room(rooms: MakeRooms) -> None:
    world = await rooms(**FAST, max_spectators_per_room=10)
    room, (ann,) = await lobby(world.open, 0, ["Ann"])
    refused = 0
    for n in range(60):  # join, drop, join again: as fast as a script can
        churn = await world.open()
        reply = await churn.request(
            "joined", type="join", room=room, name=f"W{n}", role="spectator"
        )
        refused += reply["type"] == "error" and reply["code"] == "rate-limited"
        await churn.close()
    assert refused > 0  # joins per address are capped
    # every seat was freed: the room holds only the host once the drops are counted
    await ann.expect("room", lambda m: len(m["members"]) == 1, timeout=30)
    # a spectator from another address still gets in
    real = await world.open(ip="127.0.0.2")
    reply = await real.request("joined", type="join", room=room, name="Real", role="spectator")
    assert reply["type"] == "joined"
    await real.close()


async def test_in_a_first_finish_room_the_first_win_ends_the_race(rooms: MakeRooms) -> None:
    line = solve(WINNABLE_DEAL, 30).moves
    world = await rooms(**FAST)
    room, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"], deal=WINNABLE_DEAL)
    await ann.send(type="settings", first_finish_ends=True)
    await bob.expect("room", lambda m: m["settings"]["first_finish_ends"])
    await start([ann, bob])
    await play(bob, ["S"])
    await play(ann, line)
    finished = await bob.expect("finished")
    assert [(r["name"], r["status"]) for r in finished["standings"]] == [
        ("Ann", "won"),
        ("Bob", "stopped"),
    ]


class NoProvenDeal(SolverStub):
    """A solver with no proven deal to give: it says so at once, or never answers."""

    def __init__(self, answers: bool) -> None:
        self.answers = answers
        self.asked = 0

    async def take(self, draw: int, room: str) -> Any:
        self.asked += 1
        if not self.answers:
            await asyncio.Event().wait()  # a solver busy far beyond any start's patience
        raise ProtocolError(ErrorCode.UNAVAILABLE, "no proven winnable deal is ready")


@pytest.mark.parametrize("answers", [True, False], ids=["says-none", "never-answers"])
async def test_a_race_starts_on_any_deal_when_no_proven_one_comes(
    rooms: MakeRooms, answers: bool
) -> None:
    """A new room deals proven-winnable deals; when none comes (none ready, or
    not within the time a start waits: ``proven_deal_wait_s``, here 0.2 s), the
    race starts anyway on a random deal."""
    solver = NoProvenDeal(answers)
    world = await rooms(solver=solver, **{**FAST, "proven_deal_wait_s": 0.2})
    room, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"], deal=RANDOM_DEAL)
    assert ann.joined["state"]["settings"]["winnable_only"] is True  # the default
    await start([ann, bob])
    assert solver.asked == 1
