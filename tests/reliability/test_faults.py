"""Faults with real parts: nothing acknowledged is ever lost.

A player streams moves; a fault is injected while moves are in flight
(server SIGKILL, Redis SIGKILL, Redis down for a while, a socket cut
mid-move, one of two server processes killed). Afterwards every
acknowledged move is on the stored board, in order, and at most the one
unacknowledged move in flight was applied - which ``last_seq`` reports.
(tests/server/test_race_live.py covers a kill between moves and a short
Redis stop for one process; these add moves in flight, the race clock,
the leaderboard, pub/sub across processes and failover.)
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import msgspec
import websockets
from canfield import Game, Move
from canfield_bench.processes import ServerProcess
from canfield_client.client import RaceClient
from canfield_protocol import RoomSettings
from canfield_server.storage.embedded_redis import EmbeddedRedis

from tests.conftest import ServerFactory
from tests.reliability.conftest import (
    DEAL,
    FAST_ENV,
    Client,
    healthz,
    line_of_play,
    lobby,
    play,
    same_board,
    start,
)
from tests.server.conftest import Connect

#: moves a streaming player may send before the fault
LINE = line_of_play(DEAL, 120)


def replayed(moves: list[str]) -> Game:
    game = Game.deal(DEAL)
    for move in moves:
        game.push(Move.parse(move))
    return game


async def stream(
    client: Client, first_seq: int, acked: list[str], target: int, reached: asyncio.Event
) -> None:
    """Send the line one move at a time, recording each ack, until a fault stops it;
    ``reached`` is set at ``target`` acks, and the stream goes on into the fault."""
    try:
        for seq in range(first_seq, len(LINE) + 1):
            reply = await client.request("ack", type="move", seq=seq, move=LINE[seq - 1])
            if reply["type"] != "ack":
                assert reply["code"] == "unavailable", reply  # the only fault-made error
                assert "nothing applied" in reply["message"]
                return
            assert reply["move"] == LINE[seq - 1] and not reply["duplicate"]
            acked.append(reply["move"])
            if len(acked) == target:
                reached.set()
    except (websockets.ConnectionClosed, TimeoutError):
        return


async def fault_mid_stream(client: Client, acked: list[str], after: int, fault: Any) -> None:
    """Stream moves; inject ``fault()`` once ``after`` more acks arrived, moves in flight."""
    reached = asyncio.Event()
    task = asyncio.create_task(stream(client, len(acked) + 1, acked, len(acked) + after, reached))
    await asyncio.wait_for(reached.wait(), 30)
    fault()  # the stream's next move is already on its way
    await asyncio.wait_for(task, 30)


async def resumed(url: str, room: str, token: str) -> tuple[Client, dict[str, Any], dict[str, Any]]:
    client = Client(await websockets.connect(url, open_timeout=10))
    joined = await client.resume(room, token)
    assert joined["type"] == "joined", joined
    board = (await client.expect("board"))["board"]
    return client, joined, board


def check_nothing_lost(acked: list[str], last_seq: int, board: dict[str, Any]) -> None:
    """Every ack is stored; beyond them at most the one move in flight."""
    assert acked == LINE[: len(acked)]
    assert len(acked) <= last_seq <= len(acked) + 1, (len(acked), last_seq)
    assert same_board(board, replayed(LINE[:last_seq]))


async def test_server_sigkill_with_moves_in_flight_keeps_moves_clock_and_leaderboard(
    server_factory: ServerFactory,
    connect: Connect,
) -> None:
    srv = server_factory(env=FAST_ENV)
    host = await connect(srv.ws_url)
    room = (await host.create("Ann", deal=DEAL, time_limit_s=600))["room"]
    bob = await connect(srv.ws_url)
    await bob.join(room, "Bob")
    started = await start([host, bob])
    await play(bob, ["S", "S"])
    acked: list[str] = []
    await fault_mid_stream(host, acked, random.randint(5, 25), srv.kill)  # SIGKILL
    srv.start()

    ann2, joined, board = await resumed(srv.ws_url, room, host.joined["token"])
    check_nothing_lost(acked, joined["last_seq"], board)
    state = joined["state"]
    assert (state["starts_at"], state["ends_at"]) == (started["started_at"], started["ends_at"])
    assert state["ends_at"] == state["starts_at"] + 600_000
    rows = {r["name"]: r for r in (await ann2.expect("leaderboard"))["rows"]}
    game = replayed(LINE[: joined["last_seq"]])
    assert rows["Ann"]["moves"] == joined["last_seq"] and rows["Bob"]["moves"] == 2
    assert (rows["Ann"]["score"], rows["Ann"]["on_foundations"]) == (
        game.score,
        game.on_foundations,
    )
    bob2, bob_joined, _ = await resumed(srv.ws_url, room, bob.joined["token"])
    assert bob_joined["last_seq"] == 2
    nxt = joined["last_seq"] + 1
    reply = await ann2.request("ack", type="move", seq=nxt, move=LINE[nxt - 1])
    assert reply["type"] == "ack" and not reply["duplicate"]
    await bob2.expect("leaderboard", lambda m: any(r["moves"] == nxt for r in m["rows"]))
    await ann2.close()
    await bob2.close()


async def test_redis_sigkill_and_restart_on_its_data_loses_no_acknowledged_move(
    redis_server: EmbeddedRedis,
    server_factory: ServerFactory,
    connect: Connect,
) -> None:
    assert redis_server.appendfsync == "always"  # the embedded default
    srv = server_factory(env=FAST_ENV)
    room, (ann,) = await lobby(connect, srv.ws_url, ["Ann"])
    await start([ann])
    acked: list[str] = []
    rng = random.Random()
    faults = 0
    for _ in range(3):
        await fault_mid_stream(ann, acked, rng.randint(3, 15), redis_server.kill)  # SIGKILL
        faults += 1
        redis_server.start()  # same data dir, same socket: it replays its AOF
        assert healthz(srv.http_url) == 200
        again, joined, board = await resumed(srv.ws_url, room, ann.joined["token"])
        check_nothing_lost(acked, joined["last_seq"], board)
        if joined["last_seq"] > len(acked):  # the move in flight made it: the client learns so
            acked.append(LINE[len(acked)])
        await again.close()
    print(f"\nredis SIGKILL: {faults} faults, {len(acked)} moves acknowledged, 0 lost")


async def test_redis_down_for_a_while_then_back_across_two_processes(
    redis_server: EmbeddedRedis,
    server_factory: ServerFactory,
    connect: Connect,
) -> None:
    one, two = server_factory(env=FAST_ENV), server_factory(env=FAST_ENV)
    ann = await connect(one.ws_url)
    room = (await ann.create("Ann", deal=DEAL))["room"]
    bob = await connect(two.ws_url)
    await bob.join(room, "Bob")
    await start([ann, bob])
    await play(ann, LINE[:3])
    await bob.expect("leaderboard", lambda m: any(r["moves"] == 3 for r in m["rows"]))

    redis_server.kill()
    for srv in (one, two):
        assert healthz(srv.http_url) == 503
    for client, seq in ((ann, 4), (bob, 1), (ann, 4)):  # no half-applied move, every time
        down = await client.request("ack", type="move", seq=seq, move=LINE[seq - 1])
        assert down["type"] == "error" and down["code"] == "unavailable", down
    late = await connect(two.ws_url)
    refused = await late.request("joined", type="join", room=room, name="Cy", role="spectator")
    assert refused["code"] == "unavailable"
    assert (await ann.request("pong", type="ping", t=1))["type"] == "pong"  # the socket lives

    redis_server.start()
    assert healthz(one.http_url) == 200 and healthz(two.http_url) == 200
    ack = await ann.request("ack", type="move", seq=4, move=LINE[3])
    assert ack["type"] == "ack" and not ack["duplicate"]
    assert same_board(ack["board"], replayed(LINE[:4]))
    # process two hears process one again: its room bus resubscribed by itself
    await bob.expect("leaderboard", lambda m: any(r["moves"] == 4 for r in m["rows"]))
    await play(bob, ["S"])
    await ann.expect(
        "leaderboard", lambda m: any(r["name"] == "Bob" and r["moves"] == 1 for r in m["rows"])
    )
    more = LINE[4:6]
    await play(ann, more, first_seq=5)
    await bob.expect("leaderboard", lambda m: any(r["moves"] == 6 for r in m["rows"]))
    assert (await late.join(room, "Cy", "spectator"))["type"] == "joined"


async def test_a_socket_cut_mid_move_applies_it_once_or_not_and_says_which(
    fast_server: ServerProcess,
    connect: Connect,
) -> None:
    room, (ann,) = await lobby(connect, fast_server.ws_url, ["Ann"])
    await start([ann])
    token = ann.joined["token"]
    await ann.close()
    rng = random.Random()
    outcomes = {"applied": 0, "not applied": 0}
    seq = 0
    for seq in range(1, 41):
        ws = await websockets.connect(fast_server.ws_url, open_timeout=10)
        client = Client(ws)
        resumed = await client.resume(room, token)
        assert resumed.get("last_seq") == seq - 1, resumed
        frame = json.dumps({"type": "move", "seq": seq, "move": LINE[seq - 1]})
        cut_in_frame = seq % 2 == 0
        if cut_in_frame:  # the cut lands inside the frame: half its bytes went out
            ws.protocol.send_text(frame.encode())
            wire = ws.protocol.data_to_send()[0]
            ws.transport.write(wire[: len(wire) // 2])
        else:  # the whole frame went out; the cut lands a moment later
            await client.ws.send(frame)
            await asyncio.sleep(rng.choice([0.0, 0.0005, 0.002]))  # vary the moment
        ws.transport.abort()  # no ack read, no closing handshake
        again = Client(await websockets.connect(fast_server.ws_url, open_timeout=10))
        joined = await again.resume(room, token)
        assert "last_seq" in joined, joined
        assert (
            joined["last_seq"] == seq - 1 if cut_in_frame else joined["last_seq"] in (seq - 1, seq)
        ), joined
        retry = await again.request("ack", type="move", seq=seq, move=LINE[seq - 1])
        assert retry["type"] == "ack" and retry["move"] == LINE[seq - 1]
        applied = joined["last_seq"] == seq
        assert retry["duplicate"] is applied  # a retry never applies a move twice
        outcomes["applied" if applied else "not applied"] += 1
        assert same_board(retry["board"], replayed(LINE[:seq]))
        await again.close()
    print(f"\nsocket cuts mid-move: {outcomes}")
    final = Client(await websockets.connect(fast_server.ws_url, open_timeout=10))
    await final.resume(room, token)
    await final.request("ack", type="give_up", seq=seq + 1)
    finished = await final.expect("finished")
    assert list(finished["replays"].values()) == [[*LINE[:seq], "G"]]  # each move exactly once
    await final.close()


async def test_players_of_a_killed_process_continue_on_the_other(
    server_factory: ServerFactory,
) -> None:
    one, two = server_factory(env=FAST_ENV), server_factory(env=FAST_ENV)
    async with RaceClient(one.ws_url) as ann, RaceClient(two.ws_url) as bob:
        await ann.create("Ann", RoomSettings(deal=DEAL))
        await bob.join(ann.room or "", "Bob")
        await ann.start(force=True)
        await asyncio.gather(ann.wait_started(10), bob.wait_started(10))
        for move in LINE[:5]:
            await ann.move(move)
        one.kill()
        # the address now leads to the process still up, as the proxy would send it;
        # the client notices the lost socket, reconnects and resumes with its token
        ann.url = two.ws_url
        began = time.monotonic()
        for move in LINE[5:10]:
            ack = await ann.move(move)
            assert not ack.duplicate and ack.move == move
        assert ann.seq == 10 and not ann.closed.is_set()
        assert time.monotonic() - began < 30
        assert same_board_struct(ann, replayed(LINE[:10]))

        async def bob_sees_ten() -> None:
            async for board in bob.leaderboards():
                if any(r.name == "Ann" and r.moves == 10 for r in board.rows):
                    return

        await asyncio.wait_for(bob_sees_ten(), 10)
        await bob.give_up()
        await ann.give_up()
        results = await asyncio.gather(ann.wait_finished(10), bob.wait_finished(10))
        ids = {r.name: r.id for r in results[0].standings}
        assert results[0].replays[ids["Ann"]] == [*LINE[:10], "G"]


def same_board_struct(client: RaceClient, game: Game) -> bool:
    assert client.board is not None
    return same_board(msgspec.to_builtins(client.board), game)
