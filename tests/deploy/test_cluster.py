"""A race on a local 3-master Redis Cluster, through the ``redis+cluster://`` URL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from canfield_bench.processes import ServerProcess
from canfield_server.storage import keys

from tests.conftest import stored_actions
from tests.deploy.conftest import DEAL, FAST_ENV, LocalRedisCluster, RacePair, until_leaderboard
from tests.server.conftest import line_of_play


@pytest.fixture
def cluster_servers(
    redis_cluster: LocalRedisCluster, tmp_path: Path
) -> Iterator[list[ServerProcess]]:
    """Two server processes, both given only the cluster URL."""
    started: list[ServerProcess] = []
    try:
        for name in ("node-a", "node-b"):
            proc = ServerProcess(
                redis_cluster.url,
                tmp_path / name,
                env={**FAST_ENV, "CANFIELD_INSTANCE": name},
            )
            started.append(proc.start())
        yield started
    finally:
        for proc in started:
            proc.stop()


async def test_a_race_on_a_redis_cluster(
    redis_cluster: LocalRedisCluster,
    cluster_servers: list[ServerProcess],
    race_pair: RacePair,
) -> None:
    a, b = cluster_servers
    host, guest = await race_pair(a.ws_url, b.ws_url)
    line = line_of_play(DEAL, 4)
    for move in line:
        await host.move(move)
    for move in line[:2]:
        await guest.move(move)
    # room events cross the two processes over classic pub/sub on the cluster
    for client in (host, guest):
        await until_leaderboard(
            client, lambda rows: rows["Ann"].moves == 4 and rows["Bob"].moves == 2
        )

    # every key of the room lives on the one master that owns the room's slot
    room = host.room or ""
    direct = redis.RedisCluster(host="127.0.0.1", port=redis_cluster.ports[0])
    try:
        slot = direct.keyslot(keys.room(room))
        owner = direct.get_node_from_key(keys.room(room))
        node = redis.Redis(host=owner.host, port=owner.port)
        stored = {k.decode() for k in node.scan_iter(match=f"cf:{{{room}}}:*")}
        assert keys.room(room) in stored and keys.log(room, host.player_id or "") in stored
        assert {direct.keyslot(k) for k in stored} == {slot}
        assert stored_actions(node.lrange(keys.log(room, host.player_id or ""), 0, -1)) == line
        assert node.llen(keys.log(room, guest.player_id or "")) == 2
        node.close()
    finally:
        direct.close()
