"""Each racer's round trip, measured by the server (``room/round_trips.py``).

In process, on the manual clock: who is probed, what an answer is worth, the
racer's median on their leaderboard row and in the results, and bad answers
refused at the edge. Then a real server, a real redis-server and the Python
client through the delaying proxy (its own process): the round trip the
server measures is at least the delay the proxy adds, and the results carry
it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from canfield_bench.processes import DelayProxy
from canfield_client.client import RaceClient
from canfield_protocol import RoomSettings
from canfield_server.room.round_trips import LOST_AFTER, Samples

from tests.conftest import ServerFactory
from tests.server.conftest import FAST_ENV, MakeRooms
from tests.server.inprocess import HubClient, Rooms

PERIOD_S = 2.0


async def _racer(
    world: Rooms, name: str, room: str | None = None, probes: bool = True, process: int = 0
) -> HubClient:
    client = await world.open(process)
    if probes:
        assert (await client.request("welcome", type="hello", v=1, rtt_ping=True))["v"] == 1
    joined = await (client.join(room, name) if room else client.create(name, deal="random"))
    assert joined["type"] == "joined", joined
    return client


async def _race(world: Rooms, *clients: HubClient) -> None:
    host = clients[0]
    await host.send(type="start", force=True)
    for client in clients:
        await client.expect("started")


async def _answer(client: HubClient, world: Rooms, after_s: float) -> dict[str, Any]:
    """The next probe, answered ``after_s`` seconds (on the clock) after it came."""
    ping = await client.expect("rtt_ping")
    await world.clock.advance(after_s)
    await client.send(type="rtt_pong", n=ping["n"])
    return ping


def _row(msg: dict[str, Any], member_id: str) -> dict[str, Any]:
    rows = msg["rows"] if msg["type"] == "leaderboard" else msg["standings"]
    return next(r for r in rows if r["id"] == member_id)


def test_samples_median() -> None:
    samples = Samples()
    assert samples.add(300) == 300
    assert samples.add(100) == 200  # of two, the mean of the middle pair
    assert samples.add(5000) == 300  # one stall does not move it far
    assert samples.add(120) == 210


async def test_racer_round_trip_on_the_row_and_in_the_results(rooms: MakeRooms) -> None:
    world = await rooms(rtt_ping_s=PERIOD_S)
    ana = await _racer(world, "Ana")
    bo = await _racer(world, "Bo", ana.joined["room"], probes=False)
    await _race(world, ana, bo)
    hub = world.hubs[0]
    for delay_s in (0.25, 0.35, 0.3):
        assert hub.round_trips.probe() == 1  # Ana only: Bo never asked
        await _answer(ana, world, delay_s)
    ana_id, bo_id = ana.joined["player_id"], bo.joined["player_id"]
    board = await ana.expect("leaderboard", lambda m: _row(m, ana_id)["rtt_ms"] == 300)
    assert _row(board, bo_id)["rtt_ms"] is None
    assert not [m for m in bo.log if m["type"] == "rtt_ping"]
    # an action stores the median with the row; a give up ends the race
    assert (await ana.request("ack", type="move", seq=1, move="S"))["type"] == "ack"
    await ana.send(type="give_up", seq=2)
    await bo.send(type="give_up", seq=1)
    finished = await bo.expect("finished")
    assert _row(finished, ana_id)["rtt_ms"] == 300
    assert "rtt_ms" not in _row(finished, bo_id)  # not measured: left out


async def test_a_racer_on_another_process_sees_the_round_trip(rooms: MakeRooms) -> None:
    """Measured where the racer's connection is; their row carries it to the
    others' processes with their next action, and into the results."""
    world = await rooms(processes=2, rtt_ping_s=PERIOD_S)
    ana = await _racer(world, "Ana")
    bo = await _racer(world, "Bo", ana.joined["room"], process=1)
    await _race(world, ana, bo)
    assert world.hubs[0].round_trips.probe() == 1  # each process probes its own
    await _answer(ana, world, 0.42)
    assert world.hubs[1].round_trips.probe() == 1
    await _answer(bo, world, 0.05)
    assert (await ana.request("ack", type="move", seq=1, move="S"))["type"] == "ack"
    ana_id, bo_id = ana.joined["player_id"], bo.joined["player_id"]
    seen = await bo.expect("leaderboard", lambda m: _row(m, ana_id)["rtt_ms"] == 420)
    assert _row(seen, bo_id)["rtt_ms"] == 50
    await bo.send(type="give_up", seq=1)
    await ana.send(type="give_up", seq=2)
    finished = await ana.expect("finished")
    assert (_row(finished, ana_id)["rtt_ms"], _row(finished, bo_id)["rtt_ms"]) == (420, 50)


async def test_only_an_answer_to_the_last_probe_counts(rooms: MakeRooms) -> None:
    world = await rooms(rtt_ping_s=PERIOD_S)
    ana = await _racer(world, "Ana")
    await _race(world, ana)
    trips = world.hubs[0].round_trips
    assert trips.probe() == 1
    ping = await ana.expect("rtt_ping")
    # not probed again while the probe is fresh, nor flooded when it goes unanswered
    assert trips.probe() == 0
    await world.clock.advance(PERIOD_S * LOST_AFTER)
    assert trips.probe() == 1
    again = await ana.expect("rtt_ping")
    assert again["n"] > ping["n"]
    await ana.send(type="rtt_pong", n=ping["n"])  # the older one: counts nothing
    await ana.send(type="rtt_pong", n=again["n"] + 5)  # never sent: counts nothing
    await ana.send(type="ping", t=1)
    await ana.expect("pong")
    session = world.hubs[0].sessions[ana.joined["room"]]
    assert session.rtt_of(ana.joined["player_id"]) is None
    assert not [m for m in ana.log if m["type"] == "error"]
    await ana.send(type="rtt_pong", n=again["n"])
    await ana.send(type="ping", t=1)
    await ana.expect("pong")
    assert session.rtt_of(ana.joined["player_id"]) is not None


async def test_spectators_and_lobbies_measured_only_as_racers(rooms: MakeRooms) -> None:
    world = await rooms(rtt_ping_s=PERIOD_S)
    ana = await _racer(world, "Ana")
    watcher = await world.open()
    await watcher.request("welcome", type="hello", v=1, rtt_ping=True)
    assert (await watcher.join(ana.joined["room"], "Cy", "spectator"))["type"] == "joined"
    outside = await world.open()
    await outside.request("welcome", type="hello", v=1, rtt_ping=True)
    assert world.hubs[0].round_trips.probe() == 1  # the racer, in the lobby already
    await _answer(ana, world, 0.1)
    await ana.send(type="ping", t=1)
    await ana.expect("pong")
    session = world.hubs[0].sessions[ana.joined["room"]]
    assert session.rtt_of(ana.joined["player_id"]) == 100
    await _race(world, ana)  # the lobby's samples are not the race's
    assert session.rtt_of(ana.joined["player_id"]) is None
    await watcher.send(type="ping", t=1)
    await watcher.expect("pong")
    assert not [m for m in watcher.log + outside.log if m["type"] == "rtt_ping"]


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "rtt_pong"},
        {"type": "rtt_pong", "n": 0},
        {"type": "rtt_pong", "n": "1"},
        {"type": "rtt_pong", "n": 2**53},
        {"type": "rtt_pong", "n": 1, "ms": 3},
        {"type": "hello", "v": 1, "rtt_ping": "yes"},
    ],
)
async def test_bad_answers_refused_at_the_edge(rooms: MakeRooms, frame: dict[str, Any]) -> None:
    world = await rooms(rtt_ping_s=PERIOD_S)
    ana = await _racer(world, "Ana")
    await _race(world, ana)
    reply = await ana.request("never", **frame)
    assert reply["code"] == "bad-message", reply
    assert world.hubs[0].sessions[ana.joined["room"]].rtt_of(ana.joined["player_id"]) is None


async def test_round_trip_through_a_delaying_proxy(
    server_factory: ServerFactory, tmp_path: Path
) -> None:
    """A real server probing twice a second; the Python client answers through a
    proxy adding 200 ms to every round trip: what the server measures is never
    less than that (no upper bound tighter than a loaded machine allows)."""
    server = server_factory(env={**FAST_ENV, "CANFIELD_RTT_PING_S": "0.5"})
    proxy = DelayProxy(server.port, 200, tmp_path).start()
    try:
        async with RaceClient(proxy.ws_url, reply_timeout=30.0) as far:
            await far.create("Far", RoomSettings(deal="random", winnable_only=False))
            await far.start(force=True)
            await far.wait_started(timeout=30.0)
            async with asyncio.timeout(60):
                async for board in far.leaderboards():
                    measured = board.rows[0].rtt_ms
                    if measured is not None:
                        break
            assert measured is not None and 200 <= measured < 200 + 5000, measured
            await far.give_up()
            finished = await far.wait_finished(timeout=30.0)
            final = finished.standings[0].rtt_ms
            assert final is not None and 200 <= final < 200 + 5000, final
    finally:
        proxy.stop()
