"""Whole races against real parts: server processes, a redis-server, websockets clients.

The room rules under them (illegal moves, resuming, messages out of place)
run in process too (the ``rooms`` fixture, ``inprocess.py``).
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from canfield import Game, Move
from canfield_bench.processes import ServerProcess
from canfield_server.storage.embedded_redis import EmbeddedRedis

from tests.conftest import ServerFactory
from tests.server.conftest import Connect, LineOfPlay, MakeRooms, SameBoard
from tests.server.helpers import DEAL, healthz, lobby, play, start


async def test_a_whole_race_of_three_players_watched_by_a_spectator(
    shared_server: ServerProcess,
    connect: Connect,
    line_of_play: LineOfPlay,
    same_board: SameBoard,
) -> None:
    room, (ann, bob, cy) = await lobby(connect, shared_server.ws_url, ["Ann", "Bob", "Cy"])
    eve = await connect(shared_server.ws_url)
    assert (await eve.join(room, "Eve", "spectator"))["role"] == "spectator"
    assert eve.joined["state"]["settings"]["deal"] == "custom"  # the code stays secret

    await ann.send(type="start", force=True)
    for client in (ann, bob, cy, eve):
        countdown = await client.expect("countdown")
        assert countdown["starts_at"] > countdown["server_time"]
    boards = [(await c.expect("started"))["board"] for c in (ann, bob, cy)]
    assert (await eve.expect("started"))["board"] is None
    game = Game.deal(DEAL)
    assert all(same_board(b, game) for b in boards)  # one deal for all, at one moment

    line = line_of_play(DEAL, 12)
    for ack, move in zip(await play(ann, line), line, strict=True):
        game.push(Move.parse(move))
        assert ack["move"] == move and same_board(ack["board"], game)
    await play(bob, ["S"])

    def ann_at_the_end(msg: dict[str, Any]) -> bool:
        rows = {r["name"]: r for r in msg["rows"]}
        return rows["Ann"]["moves"] == len(line) and rows["Bob"]["moves"] == 1

    for client in (ann, bob, cy, eve):  # live updates reach players and the spectator
        board = await client.expect("leaderboard", ann_at_the_end)
        assert {r["name"] for r in board["rows"]} == {"Ann", "Bob", "Cy"}
        ann_row = next(r for r in board["rows"] if r["name"] == "Ann")
        assert ann_row["on_foundations"] == game.on_foundations
        assert ann_row["score"] == game.score and ann_row["status"] == "playing"

    assert (await bob.request("ack", type="give_up", seq=2))["move"] == "G"
    assert (await cy.request("ack", type="give_up", seq=1))["move"] == "G"
    assert (await ann.request("ack", type="give_up", seq=len(line) + 1))["move"] == "G"
    results = [await c.expect("finished") for c in (ann, bob, cy, eve)]
    assert all(r == results[0] for r in results)
    final = results[0]
    assert final["deal"] == DEAL
    ids = {r["name"]: r["id"] for r in final["standings"]}
    assert final["replays"] == {ids["Ann"]: [*line, "G"], ids["Bob"]: ["S", "G"], ids["Cy"]: ["G"]}
    # Bob and Cy: only the base card home, from the start: nothing tells them apart
    assert [(r["name"], r["rank"]) for r in final["standings"]][0] == ("Ann", 1)
    assert [r["rank"] for r in final["standings"]] == [1, 2, 2]
    assert all(r["status"] == "gave_up" for r in final["standings"])
    counts = [(r["on_foundations"]) for r in final["standings"]]
    assert counts == sorted(counts, reverse=True)

    # players never saw a board but their own; the spectator saw none
    for client, own in ((bob, "S"), (cy, None)):
        for msg in client.log:
            if msg.get("board") and msg["type"] == "ack":
                assert msg["move"] in (own, "G")
    assert not any(m.get("board") for m in eve.log)

    await ann.send(type="rematch")
    lobby_again = await eve.expect("room", lambda m: m["phase"] == "lobby")
    assert lobby_again["settings"]["deal"] == "random" and len(lobby_again["members"]) == 4


async def test_illegal_moves_duplicates_and_gaps_change_nothing(
    rooms: MakeRooms,
    same_board: SameBoard,
) -> None:
    world = await rooms(countdown_s=0.3)
    _, (ann,) = await lobby(world.open, 0, ["Ann"])
    await start([ann])
    game = Game.deal(DEAL)

    illegal = await ann.request("ack", type="move", seq=1, move="R-F")
    assert illegal["type"] == "error" and illegal["code"] == "illegal-move"
    assert illegal["rule"] and illegal["seq"] == 1

    first = await ann.request("ack", type="move", seq=1, move="S")
    game.push(Move.parse("S"))
    assert not first["duplicate"] and same_board(first["board"], game)
    retry = await ann.request("ack", type="move", seq=1, move="S")
    assert retry["duplicate"] and retry["move"] == "S" and same_board(retry["board"], game)

    gap = await ann.request("ack", type="move", seq=5, move="S")
    assert gap["code"] == "seq-gap" and gap["last_seq"] == 1

    tap = await ann.request("ack", type="tap", seq=2, card="6H")
    tapped = game.tap_move(Game.deal(DEAL).tableau[3][0])
    assert tapped is not None
    assert tap["move"] == tapped.text()
    game.push(Move.parse(tap["move"]))
    assert same_board(tap["board"], game)
    undo = await ann.request("ack", type="undo", seq=3)
    game.pop()
    assert undo["move"] == "U" and same_board(undo["board"], game)

    # the stored log has each action once, in order
    await ann.request("ack", type="give_up", seq=4)
    final = await ann.expect("finished")
    assert list(final["replays"].values()) == [["S", tap["move"], "U", "G"]]


async def test_a_race_adopted_at_or_past_its_start_is_dealt_at_once(rooms: MakeRooms) -> None:
    """A start whose write, or the bus bringing it to another process, takes longer
    than the countdown (a busy machine) is dealt on adoption: every racer gets the
    board, on both processes. A countdown of 0 makes every start so (the board
    never came: seen as a browser's race that never showed, a bench's start unanswered)."""
    world = await rooms(processes=2, countdown_s=0)
    host = await world.open(0)
    room = (await host.create("Ann", deal=DEAL))["room"]
    far = await world.open(1)
    assert (await far.join(room, "Bob"))["type"] == "joined"
    started = await start([host, far])
    game = Game.deal(DEAL)
    (far_started,) = [m for m in far.log if m["type"] == "started"]
    assert far_started["board"] == started["board"]
    assert {k: v for k, v in started["board"].items() if k != "useful_move"} == game.view()
    for client in (host, far):
        assert (await client.request("ack", type="move", seq=1, move="S"))["type"] == "ack"


async def test_bad_frames_get_errors_and_the_connection_lives_on(
    shared_server: ServerProcess, connect: Connect
) -> None:
    client = await connect(shared_server.ws_url)
    cases = [
        ("{not json", "bad-json"),
        ('{"type": "teleport"}', "unknown-type"),
        ('{"type": "move", "seq": "one", "move": "S"}', "bad-message"),
        ('{"type": "move", "seq": 1, "move": "S"}', "not-in-room"),
        ('{"type": "join", "room": "ZZZZZZ", "name": "Ann"}', "unknown-room"),
        ('{"type": "hello", "v": 9}', "unsupported-version"),
        (json.dumps({"type": "ping", "t": 1, "pad": "x" * 5000}), "too-large"),
    ]
    for frame, code in cases:
        await client.ws.send(frame)
        reply = await client.expect("error")
        assert reply["code"] == code, (frame[:40], reply)
    await client.ws.send(b'{"type": "ping"}')
    assert (await client.expect("error"))["code"] == "binary"
    pong = await client.request("pong", type="ping", t=42)
    assert pong["t"] == 42


async def test_resume_with_the_token_restores_board_score_and_seat(
    rooms: MakeRooms,
    line_of_play: LineOfPlay,
    same_board: SameBoard,
) -> None:
    world = await rooms(countdown_s=0.3)
    room, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"])
    await start([ann, bob])
    line = line_of_play(DEAL, 8)
    acks = await play(bob, line)
    token, bob_id = bob.joined["token"], bob.joined["player_id"]
    await bob.close()

    def bob_is(status: str) -> Callable[[dict[str, Any]], bool]:
        return lambda m: any(r["id"] == bob_id and r["status"] == status for r in m["rows"])

    await ann.expect("leaderboard", bob_is("disconnected"))

    again = await world.open()
    wrong = await again.resume(room, "not-" + token)
    assert wrong["code"] == "bad-token"
    joined = await again.resume(room, token)
    assert joined["player_id"] == bob_id and joined["last_seq"] == len(line)
    board = await again.expect("board")
    assert board["board"] == acks[-1]["board"] and board["last_seq"] == len(line)
    await ann.expect("leaderboard", bob_is("playing"))
    game = Game.deal(DEAL)
    for move in line:
        game.push(Move.parse(move))
    assert same_board(board["board"], game)
    nxt = await again.request("ack", type="move", seq=len(line) + 1, move="S")
    assert nxt["type"] == "ack" and not nxt["duplicate"]


async def test_two_processes_share_rooms_and_one_board_never_forks(
    server_factory: ServerFactory,
    connect: Connect,
    same_board: SameBoard,
) -> None:
    one = server_factory(env={"CANFIELD_COUNTDOWN_S": "0.3"})
    two = server_factory(env={"CANFIELD_COUNTDOWN_S": "0.3"})
    host = await connect(one.ws_url)
    room = (await host.create("Ann", deal=DEAL))["room"]
    far = await connect(two.ws_url)
    assert (await far.join(room, "Bob"))["type"] == "joined"
    await host.expect("room", lambda m: len(m["members"]) == 2)  # crossed processes
    await start([host, far])

    await play(far, ["S", "S"])
    await host.expect(
        "leaderboard", lambda m: any(r["name"] == "Bob" and r["moves"] == 2 for r in m["rows"])
    )
    await play(host, ["S"])
    await far.expect(
        "leaderboard", lambda m: any(r["name"] == "Ann" and r["moves"] == 1 for r in m["rows"])
    )

    # Bob's second connection, on the other process, races the first one
    twin = await connect(one.ws_url)
    assert (await twin.resume(room, far.joined["token"]))["last_seq"] == 2
    await twin.expect("board")
    for seq in range(3, 23):
        await asyncio.gather(
            far.send(type="move", seq=seq, move="S"), twin.send(type="move", seq=seq, move="S")
        )

    def seq_is(seq: int) -> Callable[[dict[str, Any]], bool]:
        return lambda m: m["seq"] == seq

    acks_far = [await far.expect("ack", seq_is(s)) for s in range(3, 23)]
    acks_twin = [await twin.expect("ack", seq_is(s)) for s in range(3, 23)]
    for a, b in zip(acks_far, acks_twin, strict=True):
        assert [a["duplicate"], b["duplicate"]].count(False) == 1  # applied exactly once
    game = Game.deal(DEAL)
    for _ in range(22):
        game.push(Move.parse("S"))
    third = await connect(two.ws_url)
    assert (await third.resume(room, far.joined["token"]))["last_seq"] == 22
    assert same_board((await third.expect("board"))["board"], game)


async def test_a_killed_server_restarts_with_every_acknowledged_move(
    server_factory: ServerFactory,
    connect: Connect,
    line_of_play: LineOfPlay,
    same_board: SameBoard,
) -> None:
    srv = server_factory(env={"CANFIELD_COUNTDOWN_S": "0.3"})
    room, (ann, bob) = await lobby(connect, srv.ws_url, ["Ann", "Bob"])
    await start([ann, bob])
    line = line_of_play(DEAL, 10)
    acks = await play(ann, line)
    tokens = ann.joined["token"], bob.joined["token"]
    srv.kill()  # SIGKILL: no shutdown code runs
    srv.start()
    ann2, bob2 = await connect(srv.ws_url), await connect(srv.ws_url)
    joined = await ann2.resume(room, tokens[0])
    assert joined["last_seq"] == len(line)
    board = (await ann2.expect("board"))["board"]
    assert board == acks[-1]["board"]
    game = Game.deal(DEAL)
    for move in line:
        game.push(Move.parse(move))
    assert same_board(board, game)
    assert (await bob2.resume(room, tokens[1]))["last_seq"] == 0
    more = await ann2.request("ack", type="move", seq=len(line) + 1, move="S")
    assert more["type"] == "ack"


async def test_redis_down_means_unavailable_and_nothing_applied(
    redis_server: EmbeddedRedis,
    server_factory: ServerFactory,
    connect: Connect,
    same_board: SameBoard,
) -> None:
    srv = server_factory(env={"CANFIELD_COUNTDOWN_S": "0.3"})
    _, (ann,) = await lobby(connect, srv.ws_url, ["Ann"])
    await start([ann])
    await play(ann, ["S"])
    redis_server.stop()
    assert healthz(srv.http_url) == 503
    down = await ann.request("ack", type="move", seq=2, move="S")
    assert down["type"] == "error" and down["code"] == "unavailable"
    redis_server.start()
    assert healthz(srv.http_url) == 200
    back = await ann.request("ack", type="move", seq=2, move="S")
    game = Game.deal(DEAL)
    game.push(Move.parse("S"))
    game.push(Move.parse("S"))
    assert back["type"] == "ack" and not back["duplicate"] and same_board(back["board"], game)


@pytest.mark.parametrize("path", ["/", "/r/ABC234"])
def test_the_web_page_and_share_links_are_served(shared_server: ServerProcess, path: str) -> None:
    with urllib.request.urlopen(shared_server.http_url + path, timeout=5) as resp:
        assert resp.status == 200
        assert b"<html" in resp.read().lower()


async def test_out_of_place_messages_are_refused_and_change_nothing(rooms: MakeRooms) -> None:
    world = await rooms(countdown_s=0.3)
    room, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"])
    eve = await world.open()
    await eve.join(room, "Eve", "spectator")
    assert (await bob.request("error", type="start"))["code"] == "not-host"
    assert (await ann.request("error", type="move", seq=1, move="S"))["code"] == "wrong-phase"
    assert (await ann.request("error", type="join", room=room, name="Al"))["code"] == (
        "already-in-room"
    )
    bad = await ann.request("error", type="settings", deal="CF1-D3-NOPE")
    assert bad["code"] == "bad-deal-code" and "letters" in bad["message"]
    await start([ann, bob, eve])
    assert (await eve.request("error", type="move", seq=1, move="S"))["code"] == "not-player"
    late = await world.open()
    seated = await late.join(room, "Zed")  # mid-race: watches now, races from the rematch
    assert seated["role"] == "spectator"
    zed = next(m for m in seated["state"]["members"] if m["name"] == "Zed")
    assert zed["waiting"] is True and zed["role"] == "spectator"
    assert (await ann.request("error", type="settings", draw=1))["code"] == "wrong-phase"
    first = await ann.request("ack", type="move", seq=1, move="S")
    assert first["type"] == "ack" and first["board"]["stock"]["count"] == 31


async def test_players_of_a_crashed_process_show_disconnected_elsewhere(
    server_factory: ServerFactory,
    connect: Connect,
) -> None:
    env = {"CANFIELD_COUNTDOWN_S": "0.3", "CANFIELD_PRESENCE_S": "0.2"}
    one, two = server_factory(env=env), server_factory(env=env)
    ann = await connect(one.ws_url)
    room = (await ann.create("Ann", deal=DEAL))["room"]
    bob = await connect(two.ws_url)
    await bob.join(room, "Bob")
    await start([ann, bob])
    await play(bob, ["S"])
    bob_id = bob.joined["player_id"]
    two.kill()  # SIGKILL: Bob's process never says goodbye

    def bob_is(status: str) -> Callable[[dict[str, Any]], bool]:
        return lambda m: any(r["id"] == bob_id and r["status"] == status for r in m["rows"])

    await ann.expect("leaderboard", bob_is("disconnected"))
    again = await connect(one.ws_url)
    assert (await again.resume(room, bob.joined["token"]))["last_seq"] == 1
    await ann.expect("leaderboard", bob_is("playing"))


async def test_the_host_adds_a_bot_that_joins_and_races(
    shared_server: ServerProcess, connect: Connect
) -> None:
    ann = await connect(shared_server.ws_url)
    await ann.create("Ann", deal=DEAL)
    await ann.send(type="add_bot", pace_s=0.05, strength="easy")
    seated = await ann.expect("room", lambda m: len(m["members"]) == 2)
    bot = next(m for m in seated["members"] if m["name"] != "Ann")
    assert bot["bot"] and bot["role"] == "player" and bot["name"].startswith("Bot")
    await ann.send(type="start", force=True)
    await ann.expect("started")
    await ann.expect(
        "leaderboard", lambda m: any(r["id"] == bot["id"] and r["moves"] >= 3 for r in m["rows"])
    )
