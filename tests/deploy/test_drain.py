"""A rolling upgrade behind a real nginx: drain one process mid-race, restart it,
drain the other; no racer loses a board or an acknowledged move, and the race
ends with the right results."""

from __future__ import annotations

import asyncio
import json
import signal
import urllib.request

import msgspec
import redis
from canfield import Game
from canfield_bench.processes import ServerProcess
from canfield_client.client import RaceClient
from canfield_server.storage import keys
from canfield_server.storage.embedded_redis import EmbeddedRedis

from tests.conftest import ServerFactory, stored_actions
from tests.deploy.conftest import (
    BEHIND_NGINX,
    DEAL,
    FAST_ENV,
    NginxFactory,
    RacePair,
    instance_of,
    until_leaderboard,
)
from tests.server.conftest import line_of_play, same_board

TOKEN = "drain-test-token"


def ask_drain(proxy_url: str, process: str, seconds: int) -> dict[str, object]:
    """The console's drain action, through the proxy (any process takes it to Redis)."""
    request = urllib.request.Request(
        f"{proxy_url}/admin/api/processes/{process}/drain",
        data=json.dumps({"seconds": seconds}).encode(),
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        answer: dict[str, object] = json.loads(response.read())
    return answer


async def wait_exit(process: ServerProcess) -> int:
    assert process.process is not None
    return await asyncio.to_thread(process.process.wait, 30)


async def test_a_rolling_upgrade_mid_race_loses_no_move(
    server_factory: ServerFactory,
    nginx_factory: NginxFactory,
    race_pair: RacePair,
    redis_server: EmbeddedRedis,
) -> None:
    env = {**FAST_ENV, **BEHIND_NGINX, "CANFIELD_ADMIN_TOKEN": TOKEN, "CANFIELD_PRESENCE_S": "0.5"}
    processes = {
        name: server_factory(env={**env, "CANFIELD_INSTANCE": name})
        for name in ("proc-a", "proc-b")
    }
    proxy = nginx_factory([proc.port for proc in processes.values()])
    host, guest = await race_pair(proxy.ws_url, proxy.ws_url)
    line = line_of_play(DEAL, 24)
    acked: dict[RaceClient, list[str]] = {host: [], guest: []}

    async def play(client: RaceClient, upto: int) -> None:
        for move in line[len(acked[client]) : upto]:
            ack = await client.move(move)
            acked[client].append(ack.move or move)

    def intact(client: RaceClient, upto: int) -> None:
        """The racer's board and every acked move, as the server keeps them."""
        assert acked[client] == line[:upto] and client.seq == upto
        assert client.board is not None
        assert same_board(msgspec.to_builtins(client.board), Game.replay(DEAL, line[:upto]))

    await asyncio.gather(play(host, 3), play(guest, 3))

    # 1. the console drains the host's process while both keep playing
    first = instance_of(host)
    second = next(name for name in processes if name != first)
    playing = asyncio.gather(play(host, 12), play(guest, 10))
    answer = await asyncio.to_thread(ask_drain, proxy.http_url, first, 30)
    assert answer == {"draining": first, "seconds": 30}
    assert await wait_exit(processes[first]) in (0, -signal.SIGTERM), processes[first].log()
    await asyncio.wait_for(playing, 30)
    # a move each after the exit: a racer whose moves all landed before the drain
    # is still reconnecting; this one can only be acked by the other process
    await asyncio.wait_for(asyncio.gather(play(host, 13), play(guest, 11)), 30)
    assert instance_of(host) == instance_of(guest) == second  # resumed there
    intact(host, 13)
    intact(guest, 11)

    # 2. the new version of the drained process comes up on its port; then the
    # other one is drained by a signal to itself, mid-play too
    await asyncio.to_thread(processes[first].start)
    playing = asyncio.gather(play(host, 20), play(guest, 16))
    signalled = processes[second].process
    assert signalled is not None
    signalled.send_signal(signal.SIGUSR1)
    assert await wait_exit(processes[second]) in (0, -signal.SIGTERM), processes[second].log()
    await asyncio.wait_for(playing, 30)
    await asyncio.wait_for(asyncio.gather(play(host, 21), play(guest, 17)), 30)
    assert instance_of(host) == instance_of(guest) == first
    intact(host, 21)
    intact(guest, 17)
    assert "server.draining" in processes[second].log()

    # nothing acked is lost: Redis holds each racer's moves, once, in order
    store = redis.Redis.from_url(redis_server.url)
    try:
        for client in (host, guest):
            stored = store.lrange(keys.log(client.room or "", client.player_id or ""), 0, -1)
            assert stored_actions(stored) == acked[client]
    finally:
        store.close()

    # 3. the race ends on the upgraded process with the right results
    await until_leaderboard(host, lambda rows: rows["Ann"].moves == 21 and rows["Bob"].moves == 17)
    await host.give_up()
    await guest.give_up()
    finished = await host.wait_finished(15)
    rows = {row.name: row for row in finished.standings}
    for name, moves in (("Ann", 21), ("Bob", 17)):
        game = Game.replay(DEAL, line[:moves])
        assert (rows[name].on_foundations, rows[name].score) == (game.on_foundations, game.score)
    # each replay: the racer's acked moves, then the give-up ("G")
    assert sorted(finished.replays.values(), key=len) == [line[:17] + ["G"], line[:21] + ["G"]]
