"""Two hubs (two server processes' worth of rooms) in one test, on a real redis-server.

The hub is the socket-free core of a server process, so these tests drive it
with in-memory peers: time limits, an end that many processes race to
declare, and the leaderboard's coalescing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from canfield_protocol import Create, Join, MoveMsg, Rematch, SettingsMsg, Start
from canfield_server.ops.config import Settings
from canfield_server.room.hub import Hub
from canfield_server.storage.embedded_redis import EmbeddedRedis

from tests.server.helpers import DEAL, hubs_on
from tests.server.inprocess import MemoryPeer


@pytest.fixture
async def hubs(redis_server: EmbeddedRedis) -> AsyncIterator[list[Hub]]:
    async with hubs_on(redis_server.url, Settings(countdown_s=0.05, leaderboard_hz=4.0)) as two:
        yield two


async def race_in_two_hubs(
    hubs: list[Hub], settings: SettingsMsg | None = None
) -> tuple[str, MemoryPeer, MemoryPeer]:
    one, two = hubs
    host, guest = MemoryPeer(), MemoryPeer()
    await one.handle(host, Create(name="Ann"))
    room = (await host.expect("joined"))["room"]
    await one.handle(host, settings or SettingsMsg(deal=DEAL))
    await two.handle(guest, Join(room=room, name="Bob"))
    await guest.expect("joined")
    await host.expect("room", lambda m: len(m["members"]) == 2)
    await one.handle(host, Start(force=True))
    for peer in (host, guest):
        await peer.expect("started")
    return room, host, guest


async def test_the_time_limit_ends_the_race_once_however_many_processes_try(
    hubs: list[Hub],
) -> None:
    one, two = hubs
    room, host, guest = await race_in_two_hubs(hubs)
    await two.handle(guest, MoveMsg(seq=1, move="S"))
    assert (await guest.expect("ack"))["move"] == "S"

    await asyncio.gather(one.results.end(room, 1), two.results.end(room, 1))
    finals = [await peer.expect("finished") for peer in (host, guest)]
    assert finals[0] == finals[1] and finals[0]["deal"] == DEAL
    ids = {r["name"]: r["id"] for r in finals[0]["standings"]}
    assert finals[0]["replays"] == {ids["Ann"]: [], ids["Bob"]: ["S"]}
    assert {r["status"] for r in finals[0]["standings"]} == {"stopped"}  # no time limit set

    await two.handle(guest, MoveMsg(seq=2, move="S"))
    late = await guest.expect("error")
    assert late["code"] == "wrong-phase"
    # room events are ordered per room: once the rematch arrives, a second
    # announcement of the end would have arrived before it
    await one.handle(host, Rematch())
    for peer in (host, guest):
        await peer.expect("room", lambda m: m["phase"] == "lobby")
        assert [m["type"] for m in peer.seen].count("finished") == 1


async def test_leaderboard_broadcasts_are_coalesced_per_room(hubs: list[Hub]) -> None:
    one, two = hubs
    room, host, guest = await race_in_two_hubs(hubs)
    while not host.inbox.empty():  # forget what came before the moves
        host.inbox.get_nowait()
    began = time.monotonic()
    for seq in range(1, 41):
        await two.handle(guest, MoveMsg(seq=seq, move="S"))
        assert (await guest.expect("ack"))["seq"] == seq
    final = await host.expect(
        "leaderboard", lambda m: any(r["name"] == "Bob" and r["moves"] == 40 for r in m["rows"])
    )
    elapsed = time.monotonic() - began
    boards = [m for m in host.seen if m["type"] == "leaderboard"]
    assert final in boards
    assert len(boards) <= elapsed * 4.0 + 2  # at most leaderboard_hz a second, not one per move
