"""SIGTERM mid-race: the process says goodbye, exits by itself, and loses no move."""

from __future__ import annotations

import asyncio
import signal

import redis
from canfield_protocol import Reconnect
from canfield_server.storage import keys
from canfield_server.storage.embedded_redis import EmbeddedRedis

from tests.conftest import stored_actions
from tests.deploy.conftest import DEAL, ClusterOfTwo, RacePair, instance_of, until_leaderboard
from tests.server.conftest import line_of_play


async def test_sigterm_mid_race_moves_players_elsewhere_without_losing_a_move(
    cluster_of_two: ClusterOfTwo,
    race_pair: RacePair,
    redis_server: EmbeddedRedis,
) -> None:
    proxy, processes = cluster_of_two
    host, guest = await race_pair(proxy.ws_url, proxy.ws_url)
    leaving = processes[instance_of(guest)]
    told: list[Reconnect] = []
    guest.on_message.append(lambda msg: told.append(msg) if isinstance(msg, Reconnect) else None)

    line = line_of_play(DEAL, 24)
    acked: list[str] = []
    three_in = asyncio.Event()

    async def keep_playing() -> None:
        for move in line:
            ack = await guest.move(move)
            acked.append(ack.move or move)
            if len(acked) == 3:
                three_in.set()

    playing = asyncio.create_task(keep_playing())
    await three_in.wait()
    assert leaving.process is not None
    leaving.process.send_signal(signal.SIGTERM)  # moves are still in flight
    # it exits by itself (uvicorn's graceful shutdown is bounded at 5 s; how long
    # it takes is a figure for a loaded machine, not an assertion: a generous wait)
    code = await asyncio.to_thread(leaving.process.wait, 60)
    await asyncio.wait_for(playing, 60)

    assert code in (0, -signal.SIGTERM), leaving.log()  # a clean exit, not a kill
    assert told and told[0].retry_ms >= 0  # the client was told to go elsewhere
    assert instance_of(guest) == instance_of(host)  # resumed on the other process
    assert acked == line and guest.seq == len(line)

    # every acknowledged move is in Redis, once, in order
    store = redis.Redis.from_url(redis_server.url)
    try:
        stored = store.lrange(keys.log(guest.room or "", guest.player_id or ""), 0, -1)
    finally:
        store.close()
    assert stored_actions(stored) == line
    await until_leaderboard(host, lambda rows: rows["Bob"].moves == len(line))
