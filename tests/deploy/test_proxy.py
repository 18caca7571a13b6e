"""The scale-out shape without Docker: nginx (deploy/nginx.conf) in front of
two server processes sharing one redis-server, all real, all on loopback."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest
from canfield_server.transport.instance import HEADER

from tests.deploy.conftest import DEAL, ClusterOfTwo, RacePair, instance_of, until_leaderboard
from tests.server.conftest import line_of_play


def test_the_proxy_serves_pages_and_health_but_not_metrics(cluster_of_two: ClusterOfTwo) -> None:
    proxy, processes = cluster_of_two
    seen = set()
    for path in ("/healthz", "/", "/healthz", "/"):
        with urllib.request.urlopen(proxy.http_url + path, timeout=5) as resp:
            assert resp.status == 200
            seen.add(resp.headers[HEADER])
    assert seen <= set(processes)
    # static files pass through whole (responses never spill to nginx temp files)
    direct = processes["proc-a"].http_url + "/"
    with urllib.request.urlopen(direct, timeout=5) as resp:
        expected = resp.read()
    with urllib.request.urlopen(proxy.http_url + "/", timeout=5) as resp:
        assert resp.read() == expected
    with pytest.raises(urllib.error.HTTPError) as hidden:
        urllib.request.urlopen(proxy.http_url + "/metrics", timeout=5)
    assert hidden.value.code == 404


async def test_players_spread_over_processes_race_and_survive_a_crash(
    cluster_of_two: ClusterOfTwo,
    race_pair: RacePair,
) -> None:
    proxy, processes = cluster_of_two
    host, guest = await race_pair(proxy.ws_url, proxy.ws_url)
    # least_conn: the second WebSocket goes to the process without one
    assert {instance_of(host), instance_of(guest)} == {"proc-a", "proc-b"}

    line = line_of_play(DEAL, 8)
    for move in line[:3]:
        await host.move(move)
    for move in line[:2]:
        await guest.move(move)
    # events cross processes through Redis pub/sub: each sees the other's moves
    for client in (host, guest):
        await until_leaderboard(
            client, lambda rows: rows["Ann"].moves == 3 and rows["Bob"].moves == 2
        )

    crashed = instance_of(guest)
    processes[crashed].kill()  # SIGKILL: no goodbye to the guest
    # the guest's next move finds the socket dead, reconnects through the
    # proxy (which skips the dead process), resumes with its token, goes on
    for move in line[2:6]:
        ack = await guest.move(move)
        assert not ack.duplicate
    assert instance_of(guest) == instance_of(host) != crashed
    assert guest.seq == 6
    await host.move(line[3])
    for client in (host, guest):
        board = await until_leaderboard(
            client, lambda rows: rows["Ann"].moves == 4 and rows["Bob"].moves == 6
        )
        assert {row.status for row in board.rows} == {"playing"}
