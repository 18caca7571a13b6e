"""/metrics of a real server process moves with what players do."""

from __future__ import annotations

import urllib.request

import pytest
from canfield_client.client import ServerError
from canfield_server.storage.embedded_redis import EmbeddedRedis
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import ServerFactory
from tests.deploy.conftest import DEAL, FAST_ENV, RacePair, instance_of, until_leaderboard
from tests.server.conftest import line_of_play

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(base_url: str) -> Samples:
    with urllib.request.urlopen(base_url + "/metrics", timeout=5) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"].startswith("text/plain")
        text = resp.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_counters_follow_a_race_and_a_redis_outage(
    server_factory: ServerFactory,
    redis_server: EmbeddedRedis,
    race_pair: RacePair,
) -> None:
    server = server_factory(env={**FAST_ENV, "CANFIELD_INSTANCE": "metrics-a"})
    before = scrape(server.http_url)
    assert value(before, "canfield_connected_clients") == 0
    assert value(before, "canfield_instance_info", instance="metrics-a") == 1

    host, guest = await race_pair(server.ws_url, server.ws_url)
    assert instance_of(host) == "metrics-a"
    with pytest.raises(ServerError) as refused:
        await host.move("W-F")  # the waste is empty at the start
    assert refused.value.code == "illegal-move"
    line = line_of_play(DEAL, 5)
    for move in line:
        await host.move(move)
    await guest.move(line[0])
    # a leaderboard reflecting the guest's move means the broadcasts went out
    await until_leaderboard(guest, lambda rows: rows["Bob"].moves == 1)

    after = scrape(server.http_url)
    assert value(after, "canfield_connected_clients") == 2
    assert value(after, "canfield_rooms") == 1
    accepted = "canfield_moves_total"
    assert (
        value(after, accepted, outcome="accepted") - value(before, accepted, outcome="accepted")
        == 6
    )
    assert (
        value(after, accepted, outcome="rejected") - value(before, accepted, outcome="rejected")
        == 1
    )
    latency = "canfield_move_latency_seconds_count"
    assert value(after, latency) - value(before, latency) == 7
    assert value(after, "canfield_move_latency_seconds_bucket", le="+Inf") >= 7
    fanout = "canfield_broadcast_fanout_count"
    assert value(after, fanout) > value(before, fanout)
    sent = "canfield_broadcast_messages_total"
    assert value(after, sent) > value(before, sent)

    redis_server.kill()  # Redis gone: the next move is refused and counted
    with pytest.raises(ServerError) as unavailable:
        await guest.move(line[1])
    assert unavailable.value.code == "unavailable"
    outage = scrape(server.http_url)
    errors = sum(v for (name, _), v in outage.items() if name == "canfield_redis_errors_total")
    assert errors >= 1
    assert (
        value(outage, accepted, outcome="rejected")
        == value(after, accepted, outcome="rejected") + 1
    )
