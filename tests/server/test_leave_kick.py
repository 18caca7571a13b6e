"""Leaving for good and the host's kick: the room rules alone, then races.

The rules need no sockets; the races run in process (``inprocess.py``), one
or two hubs' worth; a bot's seat is taken by a real bot on a real server.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from canfield_bench.processes import ServerProcess
from canfield_protocol import CLOSE_KICKED, Kick, Leave, Role, decode_client
from canfield_server.room import rules as R

from tests.server.conftest import Connect, MakeRooms
from tests.server.helpers import DEAL, code_of, lobby, play, start


def room() -> R.RoomState:
    """Ann hosts; Bob and Cy play (Bob a bot), Eve watches: in join order Eve, Bob, Cy."""
    state = R.create_room("ABCDEF", "ann", "Ann")
    state = R.add_member(state, "eve", "Eve", Role.SPECTATOR)
    state = R.add_member(state, "bob", "Bob", Role.PLAYER, bot=True)
    return R.add_member(state, "cy", "Cy", Role.PLAYER)


# ---------------------------------------------------------------- the rules


def test_leaving_removes_the_seat_of_a_player_or_a_spectator() -> None:
    state = room()
    without_cy = R.remove_member(state, "cy")
    assert [m.id for m in without_cy.members] == ["ann", "eve", "bob"]
    without_eve = R.remove_member(without_cy, "eve")
    assert [m.id for m in without_eve.members] == ["ann", "bob"]
    assert without_eve.host_id == "ann"
    assert len(state.members) == 4  # the input state is never changed
    # the name is free again
    assert R.member(R.add_member(without_cy, "cy2", "cy", Role.PLAYER), "cy2") is not None


def test_a_leaving_host_hands_over_to_a_person_here_a_player_first_never_a_bot() -> None:
    state = room()
    assert R.remove_member(state, "ann").host_id == "cy"  # a person before an earlier bot
    no_player = R.remove_member(R.remove_member(state, "cy"), "ann")
    assert no_player.host_id == "eve"  # a watching person, never the bot
    away = R.set_connected(state, "cy", False, away_until=1)
    assert R.remove_member(away, "ann").host_id == "eve"  # a person here before one away
    only_bob = R.remove_member(R.remove_member(state, "eve"), "cy")
    assert R.remove_member(only_bob, "ann").host_id == ""  # only a bot left: nobody hosts
    only_eve = R.remove_member(R.remove_member(R.remove_member(state, "cy"), "bob"), "ann")
    assert only_eve.host_id == "eve"
    empty = R.remove_member(only_eve, "eve")
    assert empty.members == [] and empty.host_id == ""


def test_leaving_mid_race_keeps_the_race_on_for_the_others() -> None:
    racing, _ = R.start_race(room(), "ann", 1_000, 3.0, force=True)
    left = R.remove_member(racing, "ann")
    assert (left.phase, left.race, left.starts_at) == ("racing", 1, 4_000)
    assert left.host_id == "cy" and R.member(left, "ann") is None


def test_only_the_host_kicks_and_never_themselves_or_a_stranger() -> None:
    state = room()
    assert code_of(lambda: R.kick(state, "cy", "bob")) == "not-host"
    assert code_of(lambda: R.kick(state, "ann", "ann")) == "not-allowed"
    assert code_of(lambda: R.kick(state, "ann", "nobody")) == "unknown-player"
    assert code_of(lambda: R.remove_member(state, "nobody")) == "unknown-player"
    kicked = R.kick(state, "ann", "eve")
    assert [m.id for m in kicked.members] == ["ann", "bob", "cy"]
    finished = R.finish_race(R.start_race(state, "ann", 0, 0, force=True)[0])
    assert R.member(R.kick(finished, "ann", "cy"), "cy") is None  # any phase


def test_leave_and_kick_messages_decode_with_their_schema() -> None:
    assert isinstance(decode_client(b'{"type": "leave"}'), Leave)
    kick = decode_client(b'{"type": "kick", "player_id": "89112c33"}')
    assert isinstance(kick, Kick) and kick.player_id == "89112c33"
    assert code_of(lambda: decode_client(b'{"type": "kick"}')) == "bad-message"
    assert code_of(lambda: decode_client(b'{"type": "leave", "who": 1}')) == "bad-message"


# ---------------------------------------------------------------- real races


def members(msg: dict[str, Any]) -> set[str]:
    return {m["name"] for m in msg["members"]}


async def test_a_race_without_time_limit_ends_once_a_gone_player_is_kicked(
    rooms: MakeRooms,
) -> None:
    world = await rooms(countdown_s=0.3)
    code, (ann, bob, cy) = await lobby(world.open, 0, ["Ann", "Bob", "Cy"])
    assert ann.joined["state"]["settings"]["time_limit_s"] is None
    await start([ann, bob, cy])
    await play(bob, ["S"])
    bob_id, bob_token = bob.joined["player_id"], bob.joined["token"]
    await bob.close()  # gone for good, the seat left behind

    def bob_is(status: str) -> Callable[[dict[str, Any]], bool]:
        return lambda m: any(r["id"] == bob_id and r["status"] == status for r in m["rows"])

    await ann.expect("leaderboard", bob_is("disconnected"))
    refused = await cy.request("error", type="kick", player_id=bob_id)
    assert refused["code"] == "not-host"

    await ann.send(type="kick", player_id=bob_id)
    seated = await cy.expect("room", lambda m: "Bob" not in members(m))
    assert members(seated) == {"Ann", "Cy"} and seated["phase"] == "racing"
    await cy.expect("leaderboard", bob_is("gave_up"))  # his board is locked

    assert (await ann.request("ack", type="give_up", seq=1))["move"] == "G"
    assert (await cy.request("ack", type="give_up", seq=1))["move"] == "G"
    final = await ann.expect("finished")
    assert {r["name"]: r["status"] for r in final["standings"]} == {
        "Ann": "gave_up",
        "Bob": "gave_up",
        "Cy": "gave_up",
    }
    assert final["replays"][bob_id] == ["S", "G"]

    again = await world.open()
    assert (await again.resume(code, bob_token))["code"] == "bad-token"


async def test_leaving_mid_race_gives_up_and_the_race_ends_with_the_others(
    rooms: MakeRooms,
) -> None:
    world = await rooms(countdown_s=0.3)
    code, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"])
    await start([ann, bob])
    left = await bob.request("left", type="leave")
    assert left == {"type": "left", "room": code}
    assert (await bob.request("error", type="move", seq=1, move="S"))["code"] == "not-in-room"
    assert (await ann.expect("room", lambda m: "Bob" not in members(m)))["phase"] == "racing"
    assert (await ann.request("ack", type="give_up", seq=1))["move"] == "G"
    final = await ann.expect("finished")
    assert [r["status"] for r in final["standings"]] == ["gave_up", "gave_up"]


async def test_leaving_the_lobby_frees_the_seat_and_the_token_stops_working(
    rooms: MakeRooms,
) -> None:
    world = await rooms(countdown_s=0.3)
    code, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"])
    eve = await world.open()
    await eve.join(code, "Eve", "spectator")
    token = bob.joined["token"]
    twin = await world.open()  # Bob's second tab
    assert (await twin.resume(code, token))["player_id"] == bob.joined["player_id"]

    assert (await bob.request("left", type="leave"))["room"] == code
    assert (await twin.expect("left"))["room"] == code  # every connection of the seat
    seated = await ann.expect("room", lambda m: "Bob" not in members(m))
    assert members(seated) == {"Ann", "Eve"}
    assert (await eve.request("left", type="leave"))["type"] == "left"
    assert members(await ann.expect("room", lambda m: "Eve" not in members(m))) == {"Ann"}

    assert (await twin.resume(code, token))["code"] == "bad-token"
    # the leaver's connection is open and in no room: the name "Bob" is free to take
    assert (await bob.join(code, "Bob"))["type"] == "joined"
    assert members(await ann.expect("room", lambda m: "Bob" in members(m))) == {"Ann", "Bob"}


async def test_the_host_kicks_across_processes_and_the_kicked_connection_closes(
    rooms: MakeRooms,
) -> None:
    world = await rooms(processes=2, countdown_s=0.3)
    ann = await world.open(0)
    code = (await ann.create("Ann", deal=DEAL))["room"]
    cy = await world.open(1)
    await cy.join(code, "Cy")
    await ann.expect("room", lambda m: "Cy" in members(m))
    assert (await ann.request("error", type="kick", player_id=ann.joined["player_id"]))[
        "code"
    ] == "not-allowed"
    unknown = await ann.request("error", type="kick", player_id="nobody")
    assert unknown["code"] == "unknown-player" and "nobody" in unknown["message"]

    await ann.send(type="kick", player_id=cy.joined["player_id"])
    kicked = await cy.expect("kicked")
    assert kicked["room"] == code and kicked["message"]
    assert cy.peer.closed == (CLOSE_KICKED, "removed by the host")
    assert members(await ann.expect("room", lambda m: "Cy" not in members(m))) == {"Ann"}
    for process in (0, 1):
        again = await world.open(process)
        assert (await again.resume(code, cy.joined["token"]))["code"] == "bad-token"


async def test_a_leaving_host_hands_the_room_to_the_earliest_joined_player(
    rooms: MakeRooms,
) -> None:
    world = await rooms(countdown_s=0.3)
    _, (ann, bob, cy) = await lobby(world.open, 0, ["Ann", "Bob", "Cy"])
    bob_id = bob.joined["player_id"]
    await ann.request("left", type="leave")
    for client in (bob, cy):
        handed = await client.expect("room", lambda m: "Ann" not in members(m))
        assert handed["host_id"] == bob_id
    assert (await cy.request("error", type="start"))["code"] == "not-host"
    await bob.send(type="start", force=True)  # the new host's powers work
    for client in (bob, cy):
        await client.expect("started")


async def test_the_host_removes_a_bot_it_added(
    fast_server: ServerProcess,
    connect: Connect,
) -> None:
    ann = await connect(fast_server.ws_url)
    code = (await ann.create("Ann", deal=DEAL))["room"]
    await ann.send(type="add_bot", pace_s=0.05, strength="easy")
    seated = await ann.expect("room", lambda m: len(m["members"]) == 2)
    bot = next(m for m in seated["members"] if m["bot"])
    await ann.send(type="kick", player_id=bot["id"])
    assert members(await ann.expect("room", lambda m: len(m["members"]) == 1)) == {"Ann"}
    assert (await ann.request("pong", type="ping", t=1))["type"] == "pong"
    log = fast_server.log_path.read_text(errors="replace")
    # a connection that took the seat was let go; one still taking it was refused
    took_seat = f"member.joined room={code} player={bot['id']}" in log
    assert not took_seat or f"member.unseated room={code} player={bot['id']}" in log
    assert "handler failed" not in log
