"""Limits, each set through its ``CANFIELD_*`` setting on a real server process.

Frame size cap, per-connection token bucket (a flood is closed with 1008),
rooms one address may create, players and spectators per room, and the
length and characters of display names. A refused request changes nothing.
"""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets
from canfield_bench.processes import ServerProcess

from tests.conftest import ServerFactory
from tests.reliability.conftest import FAST_ENV, OPEN_ENV, Client, seat_snapshot
from tests.server.conftest import Connect

SMALL_ENV = {
    **OPEN_ENV,
    "CANFIELD_MAX_FRAME_BYTES": "512",
    "CANFIELD_MAX_OPEN_ROOMS_PER_IP": "3",
    "CANFIELD_MAX_PLAYERS_PER_ROOM": "2",
    "CANFIELD_MAX_SPECTATORS_PER_ROOM": "1",
}
STRICT_ENV = {**FAST_ENV, "CANFIELD_RATE_PER_S": "5", "CANFIELD_RATE_BURST": "10"}


@pytest.fixture
def small_server(server_factory: ServerFactory) -> ServerProcess:
    return server_factory(env=SMALL_ENV)


def ping_of(size: int) -> str:
    """A valid ``ping`` frame of exactly ``size`` bytes (JSON whitespace pads it)."""
    head, tail = '{"type": "ping", "t": 5', "}"
    return head + " " * (size - len(head) - len(tail)) + tail


async def test_the_frame_cap_is_counted_in_bytes(
    small_server: ServerProcess, connect: Connect
) -> None:
    client = await connect(small_server.ws_url)
    await client.ws.send(ping_of(512))
    assert (await client.expect("pong"))["t"] == 5
    await client.ws.send(ping_of(513))
    assert (await client.expect("error"))["code"] == "too-large"
    wide = json.dumps({"type": "join", "room": "ABC234", "name": "é" * 300}, ensure_ascii=False)
    assert len(wide) < 512 < len(wide.encode())  # under the cap in characters, over in bytes
    await client.ws.send(wide)
    assert (await client.expect("error"))["code"] == "too-large"
    assert (await client.request("pong", type="ping", t=6))["t"] == 6  # the connection lives


async def test_a_flood_gets_rate_limited_then_closed_with_1008(
    server_factory: ServerFactory,
) -> None:
    srv = server_factory(env=STRICT_ENV)
    async with websockets.connect(srv.ws_url, open_timeout=10) as ws:
        for _ in range(300):
            await ws.send('{"type": "ping", "t": 1}')
        answers = []
        with pytest.raises(websockets.ConnectionClosed) as closed:
            async with asyncio.timeout(10):
                while True:
                    answers.append(json.loads(await ws.recv()))
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    assert "rate limit" in closed.value.rcvd.reason
    pongs = sum(a["type"] == "pong" for a in answers)
    limited = [a for a in answers if a["type"] == "error"]
    assert 10 <= pongs <= 15  # the burst, plus what the rate refilled meanwhile
    assert limited and all(a["code"] == "rate-limited" for a in limited)
    assert len(answers) < 60  # closed long before the 300 frames were answered
    # a polite connection from the same address is untouched
    async with websockets.connect(srv.ws_url, open_timeout=10) as ws:
        polite = Client(ws)
        for t in range(8):
            assert (await polite.request("pong", type="ping", t=t))["type"] == "pong"


async def test_rooms_per_address_players_and_spectators_per_room(
    small_server: ServerProcess, connect: Connect
) -> None:
    url = small_server.ws_url
    hosts = [await connect(url) for _ in range(4)]
    rooms = [(await hosts[i].create(f"Host{i}"))["room"] for i in range(3)]
    refused = await hosts[3].create("Host3")
    assert refused["type"] == "error" and refused["code"] == "rate-limited"
    assert "rooms" in refused["message"]
    assert (await hosts[3].join(rooms[0], "Guest"))["type"] == "joined"  # joining is fine

    room = rooms[1]
    token = hosts[1].joined["token"]
    assert (await (await connect(url)).join(room, "Bob"))["type"] == "joined"
    before = await seat_snapshot(url, room, token)
    third = await (await connect(url)).join(room, "Cy")
    assert third["code"] == "room-full"
    assert (await (await connect(url)).join(room, "Eve", "spectator"))["type"] == "joined"
    full = await (await connect(url)).join(room, "Fay", "spectator")
    assert full["code"] == "room-full"
    after = await seat_snapshot(url, room, token)
    assert [m["name"] for m in after["state"]["members"]] == ["Host1", "Bob", "Eve"]
    assert before["state"]["members"] == after["state"]["members"][:2]


ACCEPTED = [
    ("A" * 24, "A" * 24),
    ("Zoë", "Zoë"),
    ("e\u0301va", "éva"),  # normalised to one form
    ("  Ann   Lee ", "Ann Lee"),  # white space folded
    ("tab\there\nnow", "tab here now"),
    ("李小龍", "李小龍"),
    ("O'Neil-Smith Jr.", "O'Neil-Smith Jr."),
]
REFUSED = [
    "A" * 25,
    "",
    "   ",
    "<b>Ann</b>",
    '"><img src=x onerror=alert(1)>',
    "\u202eevil",
    "a\u0000b",
    "zero\u200bwidth",
    "😀",
]


async def test_display_names_are_limited_in_length_and_characters(
    server_factory: ServerFactory, connect: Connect
) -> None:
    url = server_factory(env=OPEN_ENV).ws_url
    for name, shown in ACCEPTED:
        joined = await (await connect(url)).create(name)
        assert joined["state"]["members"][0]["name"] == shown, name
    host = await connect(url)
    room = (await host.create("Host"))["room"]
    for name in REFUSED:
        client = await connect(url)
        await client.ws.send(json.dumps({"type": "join", "room": room, "name": name}))
        reply = await client.expect("error")
        assert reply["code"] == "bad-name", (name, reply)
        assert (await client.join(room, "Host")).get("code") == "bad-name"  # taken, any case
    lone = await connect(url)  # a lone surrogate cannot even be decoded
    await lone.ws.send(json.dumps({"type": "join", "room": room, "name": "\ud800"}))
    assert (await lone.expect("error"))["code"] == "bad-json"
    ok = await connect(url)
    assert (await ok.join(room, "host2"))["type"] == "joined"
    members = await host.expect("room", lambda m: len(m["members"]) == 2)
    assert [m["name"] for m in members["members"]] == ["Host", "host2"]  # nothing half-done
