"""The server's receipt time of every action, kept with the action, on a real
server process, real Redis and real websocket clients: the results and the
replays (room and daily) carry each action's time, and the Python client
decodes them."""

from __future__ import annotations

import asyncio

import msgspec
from canfield_bench.processes import ServerProcess
from canfield_client.client import RaceClient
from canfield_protocol import DailyReplay, RoomReplay, RoomSettings
from canfield_server.room.race import replay as replay_board
from canfield_server.room.stamps import split_log, stamped

from tests.conftest import ServerFactory
from tests.server.conftest import Connect
from tests.server.helpers import DAY, NEXT, env, get, identified

DEAL = "CF1-D3-AAAAACL"
#: the pause between two actions, long enough to stand out in the times (each
#: action is sent after the last one's ack: a busy machine only widens the gaps)
GAP_S = 0.2


def assert_times(moves: list[str], times: list[int] | None, within_ms: int) -> None:
    """One time per action, in order received, inside the race, the gaps kept."""
    assert times is not None and len(times) == len(moves), (moves, times)
    assert times == sorted(times) and 0 <= times[0] and times[-1] <= within_ms, times
    for before, after in zip(times[1:], times[2:], strict=False):
        assert after - before >= GAP_S * 1000 - 50, times  # each action waited GAP_S


async def test_room_results_and_replay_carry_each_actions_time(
    shared_server: ServerProcess,
) -> None:
    server = shared_server
    async with RaceClient(server.ws_url) as ann:
        await ann.identify()
        await ann.create("Ann", RoomSettings(draw=3, deal=DEAL))
        await ann.start(force=True)
        started = await ann.wait_started(10)
        acks = [(await ann.move("S")).move]
        for _ in range(3):
            await asyncio.sleep(GAP_S)  # the racer thinks
            acks.append((await ann.move("S")).move)
        await asyncio.sleep(GAP_S)
        await ann.give_up()
        finished = await ann.wait_finished(10)
    # the acks speak moves, never the stored form
    assert acks == ["S"] * 4
    me = finished.standings[0].id
    duration = finished.server_time - started.started_at
    assert finished.replays[me] == ["S", "S", "S", "S", "G"]
    assert finished.replay_times is not None
    assert_times(finished.replays[me], finished.replay_times[me], duration)

    assert finished.replay is not None
    status, body = get(server.http_url + finished.replay)
    assert status == 200
    replay = msgspec.convert(body, RoomReplay)  # as the Python client reads it
    (player,) = replay.players
    assert player.moves_list == finished.replays[me]
    assert player.times_ms == finished.replay_times[me]
    assert_times(player.moves_list, player.times_ms, duration)


async def test_daily_replay_carries_each_actions_time_from_the_players_start(
    server_factory: ServerFactory, connect: Connect
) -> None:
    today = server_factory(env=env(DAY))
    ann, _ = await identified(connect, today.ws_url)
    started = await ann.request("daily_started", type="daily", name="Ann", draw=1)
    for seq in (1, 2, 3):
        if seq > 1:
            await asyncio.sleep(GAP_S)
        assert (await ann.request("ack", type="move", seq=seq, move="S"))["move"] == "S"
    # a retry of a number already used is acked with the action, not its stored form
    again = await ann.request("ack", type="move", seq=3, move="S")
    assert again["duplicate"] is True and again["move"] == "S"
    await asyncio.sleep(GAP_S)
    await ann.request("ack", type="give_up", seq=4)
    done = await ann.expect("daily_finished")
    took = done["row"]["time_ms"]
    link = done["replay"]
    assert "server_time" in started
    today.stop()

    tomorrow = server_factory(env=env(NEXT))
    status, body = get(tomorrow.http_url + link)
    assert status == 200
    replay = msgspec.convert(body, DailyReplay)
    (player,) = replay.players
    assert player.moves_list == ["S", "S", "S", "G"]
    assert_times(player.moves_list, player.times_ms, took)


def test_a_log_parts_into_actions_and_times_and_back() -> None:
    """Entries kept before times were kept still read: their actions, no times."""
    texts, times = ["S", "4-2", "U", "G"], [0, 1210, 1900, 20400]
    assert split_log(stamped(texts, times)) == (texts, times)
    assert split_log(texts) == (texts, None)
    assert split_log(["S@5", "G"]) == (["S", "G"], None)  # a log half from an older server
    assert stamped(texts, None) == texts and stamped(texts, [1]) == texts
    assert (
        replay_board(DEAL, stamped(texts[:2], times[:2])).view()
        == replay_board(DEAL, texts[:2]).view()
    )
