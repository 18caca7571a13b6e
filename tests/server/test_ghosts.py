"""Ghost races in process (``room/ghosts.py``): a finished race raced again against
its racers' recordings, on the manual clock, so a ghost's every action is seen
to land exactly at its recorded time from the live racer's start."""

from __future__ import annotations

from typing import Any

from canfield.solver import solve

from tests.server.conftest import LineOfPlay, MakeRooms
from tests.server.helpers import DEAL, FAST, seated
from tests.server.inprocess import HubClient, Rooms

#: the solver wins this Draw 3 deal in milliseconds
WINNABLE_DEAL = "CF1-D3-AAADKOH"


def row(msg: dict[str, Any], name: str) -> dict[str, Any]:
    return next(r for r in msg.get("rows", msg.get("standings", [])) if r["name"] == name)


async def record(
    world: Rooms, names: list[str], lines: list[list[str]], gaps_s: list[float], deal: str = DEAL
) -> tuple[dict[str, Any], list[HubClient]]:
    """A finished race of ``names`` on ``deal``: racer i plays ``lines[i]`` (``G``
    gives up), one action each ``gaps_s[i]`` seconds of the manual clock, all
    racers in turn. Its ``finished`` (as the first racer saw it) and clients."""
    clients = [await world.open() for _ in names]
    joined = await clients[0].create(names[0], deal=deal)
    for client, name in zip(clients[1:], names[1:], strict=True):
        assert (await client.join(joined["room"], name))["type"] == "joined"
    await clients[0].send(type="start", force=True)
    for client in clients:
        await client.expect("started")
    started_ms = world.clock.now_ms()
    due = sorted(
        (gap * (i + 1), who, i)
        for who, (line, gap) in enumerate(zip(lines, gaps_s, strict=True))
        for i in range(len(line))
    )
    for at_s, who, i in due:
        await world.clock.advance(max(0.0, started_ms / 1000 + at_s - world.clock.now_ms() / 1000))
        entry = lines[who][i]
        msg: dict[str, Any] = (
            {"type": "give_up", "seq": i + 1}
            if entry == "G"
            else {"type": "move", "seq": i + 1, "move": entry}
        )
        reply = await clients[who].request("ack", **msg)
        assert reply["type"] == "ack", reply
    return await clients[0].expect("finished"), clients


def replay_id(finished: dict[str, Any]) -> str:
    return str(finished["replay"]).rsplit("/", 1)[-1]


async def test_a_ghosts_actions_land_at_their_recorded_times(
    rooms: MakeRooms, line_of_play: LineOfPlay
) -> None:
    world = await rooms(**FAST)
    line = [*line_of_play(DEAL, 6), "G"]
    finished, (ann,) = await record(world, ["Ann"], [line], [1.3])
    ann_id = finished["standings"][0]["id"]
    times = finished["replay_times"][ann_id]
    assert times == [1300 * (i + 1) for i in range(len(line))]
    await ann.close()

    bob = await world.open()
    joined = await bob.request("joined", type="ghost_race", name="Bob", replay=replay_id(finished))
    assert joined["type"] == "joined", joined
    state = joined["state"]
    assert state["ghost_of"] == replay_id(finished) and state["public"] is False
    ghost = seated(state, "Ann")
    assert ghost["ghost"] is True and ghost["bot"] is True and ghost["id"] == ann_id
    assert state["host_id"] == joined["player_id"] and len(state["members"]) == 2
    started = await bob.expect("started")  # the countdown runs by itself: "Go"
    session = world.hubs[0].sessions[joined["room"]]

    def ghost_seq() -> int:
        slot = session.slots.get(ann_id)
        return slot.race.seq if slot is not None and slot.race is not None else 0

    assert world.clock.now_ms() == started["started_at"]
    for n, at in enumerate(times):
        # just before its recorded time the action has not landed; at it, it has
        await world.clock.advance((started["started_at"] + at - 1 - world.clock.now_ms()) / 1000)
        assert ghost_seq() == n, (n, at)
        await world.clock.advance(0.001)
        assert ghost_seq() == n + 1, (n, at)

    board = await bob.expect("leaderboard", lambda m: row(m, "Ann")["status"] == "gave_up")
    assert row(board, "Ann")["moves"] == len(line) - 1
    # the ghost's lane is counts only: no board of it, no card of it, reaches the racer
    assert all(m["type"] != "boards" for m in bob.log)
    counts = {"rank", "id", "name", "score", "on_foundations", "moves", "status"}
    counts |= {"time_ms", "reached_ms", "reserve", "tableau", "rtt_ms"}
    assert all(set(r) <= counts for m in bob.log if m["type"] == "leaderboard" for r in m["rows"])
    assert await bob.request("ack", type="give_up", seq=1)
    result = await bob.expect("finished")
    assert result["replays"][ann_id] == line
    assert result["replay_times"][ann_id] == times  # its recorded times, kept as they were
    assert row(result, "Ann")["time_ms"] == times[-1]
    assert all("rating" not in r for r in result["standings"])  # unrated


async def test_a_racer_who_wins_first_gets_results_at_once_with_the_ghosts_own_times(
    rooms: MakeRooms,
) -> None:
    world = await rooms(**FAST)
    line = solve(WINNABLE_DEAL, 30).moves
    assert line
    # Ann took 2 s an action and won; Cy gave up after three draws
    finished, clients = await record(
        world, ["Ann", "Cy"], [line, ["S", "S", "S", "G"]], [2.0, 0.5], deal=WINNABLE_DEAL
    )
    ids = {r["name"]: r["id"] for r in finished["standings"]}
    ann_ms = row(finished, "Ann")["time_ms"]
    for client in clients:
        await client.close()

    bob = await world.open()
    joined = await bob.request(
        "joined",
        type="ghost_race",
        name="Bob",
        replay=replay_id(finished),
        racers=[ids["Ann"], ids["Cy"]],
    )
    assert joined["type"] == "joined", joined
    assert [m["name"] for m in joined["state"]["members"] if m["ghost"]] == ["Ann", "Cy"]
    started = await bob.expect("started")
    for seq, move in enumerate(line, start=1):  # Bob plays Ann's line, twice as fast
        await world.clock.advance(1.0)
        assert (await bob.request("ack", type="move", seq=seq, move=move))["type"] == "ack"
    bob_ms = world.clock.now_ms() - started["started_at"]
    result = await bob.expect("finished")  # at once: the ghosts played the rest
    assert world.clock.now_ms() - started["started_at"] < ann_ms
    assert [r["name"] for r in result["standings"]] == ["Bob", "Ann", "Cy"]
    assert row(result, "Bob")["status"] == "won" and row(result, "Bob")["time_ms"] == bob_ms
    assert row(result, "Ann")["status"] == "won" and row(result, "Ann")["time_ms"] == ann_ms
    assert row(result, "Cy")["status"] == "gave_up"
    assert row(result, "Cy")["time_ms"] == row(finished, "Cy")["time_ms"]

    # race again: a new ghost race, against the same ghosts
    again = await bob.request("joined", type="race_again")
    assert again["type"] == "joined" and again["room"] != joined["room"]
    assert again["state"]["ghost_of"] == replay_id(finished)
    assert {m["id"] for m in again["state"]["members"] if m["ghost"]} == {ids["Ann"], ids["Cy"]}


async def test_a_recording_cut_off_by_the_time_limit_ends_as_it_did(
    rooms: MakeRooms, line_of_play: LineOfPlay
) -> None:
    world = await rooms(**FAST)
    ann = await world.open()
    joined = await ann.create("Ann", deal=DEAL, time_limit_s=30)
    await ann.send(type="start", force=True)
    await ann.expect("started")
    for seq, move in enumerate(line_of_play(DEAL, 3), start=1):
        await world.clock.advance(2.0)
        assert (await ann.request("ack", type="move", seq=seq, move=move))["type"] == "ack"
    finished = await ann.expect("finished")  # the limit runs out
    assert finished["standings"][0]["status"] == "timed_out"
    await ann.close()

    bob = await world.open()
    joined = await bob.request("joined", type="ghost_race", name="Ann", replay=replay_id(finished))
    # racing one's own ghost: the ghost's name gets a number
    assert [m["name"] for m in joined["state"]["members"]] == ["Ann", "Ann 2"]
    assert joined["state"]["settings"]["time_limit_s"] is None
    await bob.expect("started")
    board = await bob.expect("leaderboard", lambda m: row(m, "Ann 2")["status"] != "playing")
    assert row(board, "Ann 2")["status"] == "timed_out"
    assert row(board, "Ann 2")["time_ms"] == 30_000
    assert row(board, "Ann")["status"] == "playing"  # the live racer races on


async def test_what_cannot_be_raced_is_refused_and_nothing_changes(
    rooms: MakeRooms, line_of_play: LineOfPlay
) -> None:
    world = await rooms(**FAST)
    finished, (ann,) = await record(world, ["Ann"], [[*line_of_play(DEAL, 2), "G"]], [1.0])
    replay = replay_id(finished)
    bob = await world.open()
    refusals: dict[str, dict[str, Any]] = {
        "unknown-replay": {"replay": "r-AAAAAAAAAAAAAAAA"},
        "unknown-player": {"replay": replay, "racers": ["nobody"]},
        "bad-message": {"replay": replay, "racers": ["a", "b", "c", "d"]},
        "bad-name": {"replay": replay, "name": ""},
    }
    for code, fields in refusals.items():
        reply = await bob.request("joined", type="ghost_race", **{"name": "Bob", **fields})
        assert reply["type"] == "error" and reply["code"] == code, (code, reply)
        assert bob.peer.room is None
    # today's daily: raced once its day is over, as its replay is shown
    daily = await bob.request(
        "joined", type="ghost_race", name="Bob", replay=f"d-2031-03-14-3-{'0' * 8}"
    )
    assert daily["type"] == "error" and daily["code"] in ("not-allowed", "unknown-replay")
    # a racer mid-race may not leave it for a ghost race
    cy = await world.open()
    await cy.create("Cy", deal=DEAL)
    await cy.send(type="start", force=True)
    await cy.expect("started")
    busy = await cy.request("joined", type="ghost_race", name="Cy", replay=replay)
    assert busy["type"] == "error" and busy["code"] == "already-in-room"
    # someone joining a ghost race by its code watches it
    dan = await world.open()
    ghosted = await bob.request("joined", type="ghost_race", name="Bob", replay=replay)
    watching = await dan.join(ghosted["room"], "Dan")
    assert watching["type"] == "joined" and watching["role"] == "spectator"
    await ann.close()


async def test_a_lone_racer_is_offered_the_ghost_of_a_real_past_public_race(
    rooms: MakeRooms,
) -> None:
    world = await rooms(**FAST)
    racers = []
    for name, ip in (("Ann", "10.1.0.1"), ("Bob", "10.2.0.1")):  # two networks: both rated
        client = await world.open(ip=ip)
        assert (await client.request("identity", type="identify"))["type"] == "identity"
        await client.request("joined", type="quick", name=name, draw=3)
        racers.append(client)
    ann, bob = racers
    await ann.expect("started")
    assert (await ann.request("ack", type="move", seq=1, move="S"))["type"] == "ack"
    for client in racers:
        seq = 2 if client is ann else 1
        assert (await client.request("ack", type="give_up", seq=seq))["type"] == "ack"
    public = await ann.expect("finished")
    assert all(r.get("rating") is not None for r in public["standings"])  # rated: kept

    cy = await world.open(ip="10.3.0.1")
    await cy.request("identity", type="identify")
    joined = await cy.request("joined", type="quick", name="Cy", draw=3)
    offer = await cy.expect("ghost_offer")  # beside the bot offer, while alone
    assert offer["room"] == joined["room"] and offer["replay"] == replay_id(public)
    kept = {r["id"]: r for r in public["standings"]}[offer["racer"]]
    assert (offer["name"], offer["status"]) == (kept["name"], kept["status"])
    assert (offer["time_ms"], offer["cards"]) == (kept["time_ms"], kept["on_foundations"])
    assert (await cy.request("left", type="leave"))["type"] == "left"
    ghosted = await cy.request(
        "joined", type="ghost_race", name="Cy", replay=offer["replay"], racers=[offer["racer"]]
    )
    assert ghosted["state"]["ghost_of"] == offer["replay"] and not ghosted["state"]["public"]
    assert [m["name"] for m in ghosted["state"]["members"] if m["ghost"]] == [offer["name"]]


async def test_the_ghosts_play_on_when_the_racer_comes_back_on_another_process(
    rooms: MakeRooms, line_of_play: LineOfPlay
) -> None:
    world = await rooms(processes=2, **FAST)
    line = [*line_of_play(DEAL, 8), "G"]
    finished, (ann,) = await record(world, ["Ann"], [line], [1.0])
    await ann.close()
    bob = await world.open(0)
    joined = await bob.request("joined", type="ghost_race", name="Bob", replay=replay_id(finished))
    started = await bob.expect("started")
    await world.clock.advance(3.5)  # three of the ghost's actions played here
    await bob.close()  # the tab is closed: this process serves the room no more
    assert joined["room"] not in world.hubs[0].sessions
    back = await world.open(1)
    resumed = await back.resume(joined["room"], joined["token"])
    assert resumed["type"] == "joined"
    # the other process plays the ghost on from its fourth action, at its times
    board = await back.expect("leaderboard", lambda m: row(m, "Ann")["status"] == "gave_up")
    assert row(board, "Ann")["moves"] == len(line) - 1
    assert world.clock.now_ms() >= started["started_at"] + len(line) * 1000
    assert (await back.request("ack", type="give_up", seq=1))["type"] == "ack"
    result = await back.expect("finished")
    ann_id = finished["standings"][0]["id"]
    assert result["replays"][ann_id] == line  # each action once, none twice
    assert result["replay_times"][ann_id] == finished["replay_times"][ann_id]


async def test_a_lone_racer_is_never_offered_their_own_past_race(rooms: MakeRooms) -> None:
    """Ann and Bob raced a public race; waiting alone afterwards, each is offered
    the other's race as a ghost, never their own, though their own was kept at
    their very rating."""
    world = await rooms(**FAST)
    racers = []
    for name, ip in (("Ann", "10.1.0.1"), ("Bob", "10.2.0.1")):  # two networks: both rated
        client = await world.open(ip=ip)
        assert (await client.request("identity", type="identify"))["type"] == "identity"
        await client.request("joined", type="quick", name=name, draw=3)
        racers.append(client)
    await racers[0].expect("started")
    for client in racers:
        assert (await client.request("ack", type="give_up", seq=1))["type"] == "ack"
    public = await racers[0].expect("finished")
    ids = {r["name"]: r["id"] for r in public["standings"]}
    assert all(r.get("rating") is not None for r in public["standings"])  # both kept

    for client, other in zip(racers, ("Bob", "Ann"), strict=True):
        assert (await client.request("left", type="leave"))["type"] == "left"
        joined = await client.request("joined", type="quick", name="Again", draw=3)
        room = joined["room"]
        offer = await client.expect("ghost_offer", lambda m: bool(m["room"] == room))  # noqa: B023
        assert (offer["racer"], offer["name"]) == (ids[other], other)
        assert offer["replay"] == replay_id(public)
        assert (await client.request("left", type="leave"))["type"] == "left"
