"""Racing a replay on a real server process, real Redis and real websocket
clients (the Python ``RaceClient``): the ghost's lane moves by itself as the
recording did, and the results hold both racers."""

from __future__ import annotations

import asyncio

import pytest
from canfield_bench.processes import ServerProcess
from canfield_client.client import RaceClient, ServerError
from canfield_protocol import MemberStatus, RoomSettings

DEAL = "CF1-D3-AAAAACL"
#: the recorded racer's pause between actions
GAP_S = 0.3


async def test_a_replay_raced_on_a_real_server_moves_its_ghost_and_ends_with_both(
    shared_server: ServerProcess,
) -> None:
    server = shared_server
    async with RaceClient(server.ws_url) as ann:
        await ann.create("Ann", RoomSettings(deal=DEAL))
        await ann.start(force=True)
        await ann.wait_started(30)
        for _ in range(3):
            await asyncio.sleep(GAP_S)
            await ann.move("S")
        await asyncio.sleep(GAP_S)
        await ann.give_up()
        recorded = await ann.wait_finished(30)
    assert recorded.replay is not None and recorded.replay_times is not None
    replay_id = recorded.replay.rsplit("/", 1)[-1]
    ann_row = recorded.standings[0]

    async with RaceClient(server.ws_url) as bob:
        with pytest.raises(ServerError) as refused:
            await bob.ghost_race("Bob", replay_id, ["nobody"])
        assert refused.value.code == "unknown-player"
        joined = await bob.ghost_race("Bob", replay_id)
        assert joined.state.ghost_of == replay_id
        ghost = next(m for m in joined.state.members if m.ghost)
        assert ghost.id == ann_row.id and ghost.name == "Ann"
        await bob.wait_started(30)
        # the ghost's lane moves by itself: its draws, then its give up
        moves_seen: list[int] = []
        async with asyncio.timeout(30):
            async for board in bob.leaderboards():
                lane = next(r for r in board.rows if r.id == ghost.id)
                moves_seen.append(lane.moves)
                if lane.status == MemberStatus.GAVE_UP:
                    break
        assert moves_seen == sorted(moves_seen) and moves_seen[-1] == 3
        await bob.give_up()
        result = await bob.wait_finished(30)
    assert {r.name for r in result.standings} == {"Bob", "Ann"}
    assert result.replays[ghost.id] == recorded.replays[ann_row.id]
    assert result.replay_times is not None
    assert result.replay_times[ghost.id] == recorded.replay_times[ann_row.id]
    assert all(r.rating is None for r in result.standings)
