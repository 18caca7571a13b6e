"""The operator console's API on real processes sharing one Redis: off without a
token, 401 without the right one, the whole server's rooms and processes from any
process, a notice reaching every connected page, a block refusing an address at
the handshake until it expires - each action in the log, the token never."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
import websockets
from canfield_bench.processes import ServerProcess

from tests.conftest import ServerFactory, servers_of_their_own
from tests.server.conftest import TIMEOUT, Connect, line_of_play
from tests.server.helpers import BEARER, ON, TOKEN, call, overview_until


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[ServerProcess]]:
    """Two processes with the console on, sharing a redis-server, started once for
    the tests here that act on their own rooms, members and addresses (a block
    from 127.0.0.2, guesses for 198.51.100.10). A test that reads every block, or
    each process's figures, starts a pair of its own."""
    with servers_of_their_own(tmp_path_factory.mktemp("console"), ON, count=2) as pair:
        yield pair


async def test_console_is_off_without_a_token(shared_server: ServerProcess) -> None:
    off = shared_server
    for path in ("/admin", "/admin.html", "/admin/api/overview"):
        status, _ = await call(off, path, headers=BEARER)
        assert status == 404, path


async def test_console_sees_every_process_and_acts_on_all(
    console: list[ServerProcess], connect: Connect
) -> None:
    a, b = console

    # the token, and only the token
    assert (await call(a, "/admin/api/overview"))[0] == 401
    assert (await call(a, "/admin/api/overview", headers={"Authorization": "Bearer nope"}))[
        0
    ] == 401
    assert (await call(a, "/admin/api/overview", headers={"Authorization": TOKEN}))[0] == 401
    status, page = await call(a, "/admin")
    assert status == 200 and "admin.js" in page  # the page holds no data, only the form

    # a room on one process, its spectator on the other: both processes see it whole
    host = await connect(a.ws_url)
    code = (await host.create("Ann"))["room"]
    guest = await connect(b.ws_url)
    assert (await guest.join(code, "Bo", "spectator"))["type"] == "joined"
    for server in (a, b):
        seen = await overview_until(
            server,
            lambda o: (
                any(r["code"] == code and r["connections"] == 2 for r in o["rooms"])
                and sum(p["conns"] for p in o["processes"]) >= 2
            ),
            "the room with both connections, from every process",
        )
        room = next(r for r in seen["rooms"] if r["code"] == code)
        assert room["phase"] == "lobby" and room["players"] == ["Ann"]
        assert room["spectators"] == 1 and room["processes"] == 2
        assert room["owner"] == "127.0.0.1" and room["age_s"] is not None
        assert len(seen["processes"]) == 2
        assert seen["redis"]["aof_enabled"] is True and seen["redis"]["used_memory"] > 0

    # a notice reaches every connected page, on every process, and pages that come later
    status, posted = await call(
        b, "/admin/api/notice", headers=BEARER, body={"text": "Restart at 22:00", "seconds": 60}
    )
    assert status == 200, posted
    for client in (host, guest):
        told = await client.expect("notice")
        assert told == {"type": "notice", "id": posted["id"], "text": "Restart at 22:00"}
    late = await connect(a.ws_url)
    assert (await late.expect("notice"))["id"] == posted["id"]
    bad = await call(b, "/admin/api/notice", headers=BEARER, body={"text": " ", "seconds": 60})
    assert bad[0] == 400 and "text" in bad[1]["error"]

    # a drain with a bad deadline, or of no such process, is refused and changes nothing
    drains = "/admin/api/processes/{}/drain"
    bad = await call(b, drains.format("proc-a"), headers=BEARER, body={"seconds": 0})
    assert bad[0] == 400 and "seconds" in bad[1]["error"]
    assert (await call(b, drains.format("nobody"), headers=BEARER, body={}))[0] == 404
    assert (await call(a, "/healthz"))[0] == 200  # still serving

    # a block refuses the address at the handshake on every process, then expires
    assert (await call(a, "/admin/api/block", headers=BEARER, body={"address": "x", "seconds": 5}))[
        0
    ] == 400
    status, _ = await call(
        a, "/admin/api/block", headers=BEARER, body={"address": "127.0.0.2", "seconds": 2}
    )
    assert status == 200
    listed = await overview_until(b, lambda o: o["blocks"], "the block listed")
    assert [x["address"] for x in listed["blocks"]] == ["127.0.0.2"]
    for server in (a, b):
        with pytest.raises(websockets.InvalidStatus):
            await connect(server.ws_url, "127.0.0.2")
    assert (await (await connect(b.ws_url, "127.0.0.3")).request("pong", type="ping", t=1))[
        "type"
    ] == "pong"
    deadline = time.monotonic() + TIMEOUT
    while True:  # the block lapses by itself (Redis expires it)
        try:
            await connect(b.ws_url, "127.0.0.2")
            break
        except websockets.InvalidStatus:
            assert time.monotonic() < deadline, "the block never expired"
            await asyncio.sleep(0.3)
    await overview_until(b, lambda o: not o["blocks"], "the lapsed block gone from the list")

    # every action is an audit line naming the operator by the token's hash; never the token
    logs = "".join(p.log_path.read_text() for p in (a, b))
    assert logs.count("admin.action") >= 2 and "127.0.0.2" in logs
    assert TOKEN not in logs

    # the operator's own requests never run out, however quick
    for _ in range(60):
        assert (await call(a, "/admin/api/overview", headers=BEARER))[0] == 200
    # guessing is slowed: past the address's budget, 429 even with the right token
    # (the guesses come through the proxy on this host, for an address of their own)
    guesser = {"X-Forwarded-For": "198.51.100.10"}
    statuses = [
        (
            await call(
                a, "/admin/api/overview", headers={**guesser, "Authorization": "Bearer guess"}
            )
        )[0]
        for _ in range(40)
    ]
    assert statuses[0] == 401 and statuses[-1] == 429
    assert (await call(a, "/admin/api/overview", headers={**guesser, **BEARER}))[0] == 429


async def test_closing_a_room_mid_race_gives_everyone_the_results_and_why(
    console: list[ServerProcess], connect: Connect
) -> None:
    a, b = console
    ann = await connect(a.ws_url)
    code = (await ann.create("Ann"))["room"]
    bob = await connect(b.ws_url)
    assert (await bob.join(code, "Bob"))["type"] == "joined"
    cy = await connect(b.ws_url)
    assert (await cy.join(code, "Cy", "spectator"))["type"] == "joined"
    await ann.send(type="start", force=True)
    for racer in (ann, bob):
        await racer.expect("started")

    assert (await call(a, "/admin/api/rooms/NOSUCH/close", headers=BEARER, body={}))[0] == 404
    status, _ = await call(a, f"/admin/api/rooms/{code}/close", headers=BEARER, body={})
    assert status == 200
    for client in (ann, bob, cy):  # the results so far, then why the room went
        finished = await client.expect("finished")
        assert {row["name"] for row in finished["standings"]} == {"Ann", "Bob"}
        told = await client.expect("kicked")
        assert told["by"] == "operator" and told["room"] == code
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await client.ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001
    late = await connect(b.ws_url)
    assert (await late.join(code, "Dee"))["code"] == "unknown-room"  # gone for good
    assert "close room" in a.log_path.read_text()


async def test_figures_of_every_process_from_any_process(
    server_factory: ServerFactory, connect: Connect
) -> None:
    """Moves played on two processes show in each one's figures - moves per second,
    ack and leaderboard p50/p99 - read from either process, with the solver queue
    and the public and daily activity beside them."""
    a, b = server_factory(env=ON), server_factory(env=ON)
    assert (await call(a, "/admin/api/figures"))[0] == 401
    deal = "CF1-D3-AAAAACL"
    ann = await connect(a.ws_url)
    code = (await ann.create("Ann", deal=deal))["room"]
    bob = await connect(b.ws_url)
    assert (await bob.join(code, "Bob"))["type"] == "joined"
    await ann.send(type="start", force=True)
    for racer in (ann, bob):
        await racer.expect("started")
    for racer in (ann, bob):
        for seq, move in enumerate(line_of_play(deal, 4), start=1):
            assert (await racer.request("ack", type="move", seq=seq, move=move))["type"] == "ack"

    def both_played(body: dict[str, Any]) -> bool:
        played = [p for p in body["processes"] if p["ack_p99_ms"] is not None]
        return len(played) == 2 and all(p["board_p99_ms"] is not None for p in played)

    for server in (b, a):
        seen = await overview_until(
            server, both_played, "each process's acks and leaderboards", "/admin/api/figures"
        )
        for figures in seen["processes"]:
            assert figures["name"] and figures["moves_per_s"] >= 0
            assert 0 <= figures["ack_p50_ms"] <= figures["ack_p99_ms"]
            assert 0 <= figures["board_p50_ms"] <= figures["board_p99_ms"]
            solver = figures["solver"]
            assert solver["slots"] >= 1 and solver["waiting"] >= 0
            assert isinstance(solver["owners"], list)
        activity = seen["activity"]
        assert set(activity["daily"]) == {"1", "3"} and activity["public_live"] >= 0
        assert activity["quick_open"] >= 0


async def test_removing_a_member_mid_race_as_the_hosts_kick_does(
    console: list[ServerProcess], connect: Connect
) -> None:
    """The operator removes a racer served by another process: they are told it was
    the operator and their connection closes; the room and the rest race on."""
    a, b = console
    ann = await connect(a.ws_url)
    code = (await ann.create("Ann"))["room"]
    bob = await connect(b.ws_url)
    bob_id = (await bob.join(code, "Bob"))["player_id"]
    cy = await connect(a.ws_url)
    assert (await cy.join(code, "Cy"))["type"] == "joined"
    await ann.send(type="start", force=True)
    for racer in (ann, bob, cy):
        await racer.expect("started")
    seen = await overview_until(
        a, lambda o: any(r["code"] == code for r in o["rooms"]), "the room listed"
    )
    members = next(r for r in seen["rooms"] if r["code"] == code)["members"]
    assert {m["name"]: m["id"] for m in members}["Bob"] == bob_id

    remove = "/admin/api/rooms/{}/members/{}/remove"
    # a bad room or member is refused and changes nothing
    assert (await call(a, remove.format("NOSUCH", bob_id), headers=BEARER, body={}))[0] == 404
    assert (await call(a, remove.format(code, "0000ffff"), headers=BEARER, body={}))[0] == 404
    assert (await call(a, remove.format(code, "no-such!"), headers=BEARER, body={}))[0] == 400
    assert (await call(a, remove.format(code, bob_id), body={}))[0] == 401

    status, body = await call(a, remove.format(code.lower(), bob_id), headers=BEARER, body={})
    assert status == 200, body
    told = await bob.expect("kicked")
    assert told["by"] == "operator" and told["room"] == code and not told.get("closed")
    with pytest.raises(websockets.ConnectionClosed) as closed:
        while True:
            await bob.ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001
    # the others stay, racing, and see the seat gone
    room = await ann.expect("room", lambda m: all(x["id"] != bob_id for x in m["members"]))
    assert {m["name"] for m in room["members"]} == {"Ann", "Cy"}
    assert room["phase"] == "racing"
    assert (await cy.request("pong", type="ping", t=1))["type"] == "pong"
    assert "remove member" in a.log_path.read_text()


async def test_blocking_a_range_refuses_every_address_in_it_until_lifted_or_expired(
    server_factory: ServerFactory, connect: Connect
) -> None:
    a, b = server_factory(env=ON), server_factory(env=ON)
    for bad in ("10.0.0.0/33", "10.0.0/x", "::1/129", "/24"):
        status, body = await call(
            a, "/admin/api/block", headers=BEARER, body={"address": bad, "seconds": 5}
        )
        assert status == 400 and "CIDR" in body["error"], bad
    assert (await overview_until(a, lambda o: True, "the overview"))["blocks"] == []

    # 127.0.0.4/30: .4 to .7; host bits are dropped, and IPv6 ranges are kept alike
    for rng, seconds in (("127.0.0.5/30", 60), ("2001:db8::/48", 60)):
        status, body = await call(
            a, "/admin/api/block", headers=BEARER, body={"address": rng, "seconds": seconds}
        )
        assert status == 200, body
    listed = await overview_until(b, lambda o: len(o["blocks"]) == 2, "both ranges listed")
    assert {x["address"] for x in listed["blocks"]} == {"127.0.0.4/30", "2001:db8::/48"}
    assert all(x["range"] and 0 < x["left_s"] <= 60 for x in listed["blocks"])

    async def refused(server: ServerProcess, source: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        while True:  # every process reads the ranges within about a second
            try:
                await connect(server.ws_url, source)
            except websockets.InvalidStatus:
                return
            assert time.monotonic() < deadline, f"{source} never refused"
            await asyncio.sleep(0.3)

    async def admitted(server: ServerProcess, source: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                client = await connect(server.ws_url, source)
                break
            except websockets.InvalidStatus:
                assert time.monotonic() < deadline, f"{source} never let in"
                await asyncio.sleep(0.3)
        assert (await client.request("pong", type="ping", t=1))["type"] == "pong"

    for server in (a, b):
        await refused(server, "127.0.0.6")
        await admitted(server, "127.0.0.8")  # just outside

    # lifted: in again on every process
    status, body = await call(
        a, "/admin/api/unblock", headers=BEARER, body={"address": "127.0.0.4/30"}
    )
    assert status == 200 and body["was_blocked"] is True
    for server in (a, b):
        await admitted(server, "127.0.0.6")

    # a range blocked for a second lapses by itself, and leaves the list
    status, _ = await call(
        b, "/admin/api/block", headers=BEARER, body={"address": "127.0.0.16/28", "seconds": 1}
    )
    assert status == 200
    await refused(a, "127.0.0.17")
    await admitted(a, "127.0.0.17")
    await overview_until(
        a,
        lambda o: [x["address"] for x in o["blocks"]] == ["2001:db8::/48"],
        "the lapsed range gone",
    )
    logs = a.log_path.read_text() + b.log_path.read_text()
    assert "127.0.0.4/30" in logs and "2001:db8::/48" in logs
