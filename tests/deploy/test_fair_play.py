"""Fair play against a real server: who is rated against whom (docs/security.md).

Each racer connects from a loopback address of its own (``local_addr``), so the
server sees the networks as a cheater's and an honest racer's would be seen: two
identities from one /24 are one network, racers from other /24s are strangers.
Tried as a cheater would: two identities of one network race each other, and a
farmer runs six races against fresh feeders who leave at the start or give up.
"""

from __future__ import annotations

import hashlib
import json
import time
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from canfield_bench.processes import ServerProcess
from canfield_client.client import RaceClient
from canfield_server.storage import player_keys
from redis.asyncio import Redis

from tests.conftest import Identified, ServerFactory

TIMEOUT = 20.0
#: short countdowns; no bot offer in the way of the second racer
ENV = {"CANFIELD_COUNTDOWN_S": "0.3", "CANFIELD_QUICK_BOT_OFFER_S": "60"}

Open = Callable[[str], Awaitable[RaceClient]]


@pytest.fixture
def fair_server(server_factory: ServerFactory) -> ServerProcess:
    return server_factory(env=ENV)


@pytest.fixture
def racer(fair_server: ServerProcess, identified: Identified) -> Open:
    """``await racer("127.0.1.5")``: a new identity connected from that address."""
    return lambda address: identified(fair_server, address)


def get(server: ServerProcess, path: str, token: str = "") -> Any:
    headers = {"X-Canfield-Identity": token} if token else {}
    request = urllib.request.Request(server.http_url + path, headers=headers)
    with urllib.request.urlopen(request, timeout=5) as reply:
        return json.load(reply)


def rated_races(server: ServerProcess, client: RaceClient) -> int:
    found = get(server, "/api/rating", client.identity_token or "")["ratings"]
    return sum(r["races"] for r in found)


async def race(first: RaceClient, second: RaceClient, names: tuple[str, str]) -> str:
    room = (await first.quick(names[0])).room
    assert (await second.quick(names[1])).room == room  # the same public race
    await first.wait_started(TIMEOUT)
    await second.wait_started(TIMEOUT)
    return room


async def test_a_race_between_two_identities_of_one_network_is_rated_for_neither(
    fair_server: ServerProcess, racer: Open
) -> None:
    ann, bob = await racer("127.0.1.5"), await racer("127.0.1.9")  # one /24
    await race(ann, bob, ("Ann", "Bob"))
    await ann.move("S")
    await ann.give_up()
    await bob.give_up()
    finished = await ann.wait_finished(TIMEOUT)
    rows = {row.name: row for row in finished.standings}
    assert rows["Ann"].rank == 1  # Ann placed first, and still gains nothing
    for row in rows.values():
        assert row.rating is None and row.rating_change is None
        assert row.unrated == "same-network"
    assert rated_races(fair_server, ann) == rated_races(fair_server, bob) == 0

    # the same race between strangers (two other networks) is rated for both
    cy, di = await racer("127.0.2.5"), await racer("127.0.3.5")
    await race(cy, di, ("Cy", "Di"))
    await cy.move("S")
    await cy.give_up()
    await di.give_up()
    finished = await cy.wait_finished(TIMEOUT)
    for row in finished.standings:
        assert row.rating is not None and row.unrated is None
    assert rated_races(fair_server, cy) == rated_races(fair_server, di) == 1


async def test_a_farm_of_six_races_leaves_the_farmer_off_the_ladder(
    fair_server: ServerProcess, racer: Open
) -> None:
    """The farm as tried: each race a fresh feeder; those from the farmer's network
    leave at ``started`` or give up, those from other networks leave at the start;
    the farmer gives up and places 1st every time, and is rated in none."""
    farmer = await racer("127.0.4.5")
    reasons = []
    for n in range(6):
        same_network = n < 4
        feeder = await racer(f"127.0.4.{10 + n}" if same_network else f"127.0.{10 + n}.5")
        await race(farmer, feeder, ("Farmer", f"Feeder {n}"))
        if same_network and n % 2:
            await feeder.give_up()
        else:
            await feeder.leave()
        await farmer.give_up()
        finished = await farmer.wait_finished(TIMEOUT)
        rows = {row.name: row for row in finished.standings}
        assert rows["Farmer"].rank == 1 and rows["Farmer"].rating is None
        reasons.append((rows["Farmer"].unrated, rows[f"Feeder {n}"].unrated))
        await farmer.leave()
    # a feeder who left at the start is out of the rating (the first rule that
    # applies is the reason), leaving the farmer nobody; one who gave up shares
    # the farmer's network
    left, gave_up = ("no-opponent", "left-early"), ("same-network", "same-network")
    assert reasons == [left, gave_up, left, gave_up, left, left]
    assert rated_races(fair_server, farmer) == 0
    ladder = get(fair_server, "/api/ladder?draw=3")["rows"]
    assert "Farmer" not in {row["name"] for row in ladder}


#: the daily as shipped: identities issued a day or more before are ranked
DAILY_ENV = {
    "CANFIELD_DAILY_DATE": "2026-12-01",
    "CANFIELD_DAILY_SECRET": "fair-play-secret",
    "CANFIELD_DAILY_RANKED_AFTER_DAYS": "1",
}


async def issued_days_ago(server: ServerProcess, client: RaceClient, days: int) -> None:
    """The identity as if issued ``days`` ago (and kept: it finished a race then)."""
    token_hash = hashlib.sha256((client.identity_token or "").encode()).hexdigest()
    redis = Redis.from_url(server.redis_url)
    try:
        created = int(time.time() * 1000) - days * 86_400_000
        await redis.hset(player_keys.identity(token_hash), "created", created)
    finally:
        await redis.aclose()


async def test_a_throwaways_daily_start_makes_the_next_identity_of_its_network_unranked(
    server_factory: ServerFactory, identified: Identified
) -> None:
    """Daily scouting as tried: a throwaway identity starts today's daily (it sees
    the deal), and an established identity from the same network then plays it.
    The throwaway is new (unranked) but still holds its network's place; the
    later one plays, keeps its history, and is shown unranked with the reason;
    an established identity of another network is ranked, a new one is not."""
    server = server_factory(env=DAILY_ENV)
    scout = await identified(server, "127.0.6.5")
    await scout.daily("Scout")
    await scout.move("S")  # draws through the stock: what scouting looks like
    player = await identified(server, "127.0.6.9")  # the same /24
    await issued_days_ago(server, player, 3)
    await player.daily("Solver")
    await player.move("S")
    await player.give_up()
    done = await player.wait_daily_finished(TIMEOUT)
    assert done.row.rank == 0  # no place claimed
    stranger = await identified(server, "127.0.7.5")  # another network, established
    await issued_days_ago(server, stranger, 2)
    await stranger.daily("Stranger")
    await stranger.give_up()
    assert (await stranger.wait_daily_finished(TIMEOUT)).row.rank == 1
    newbie = await identified(server, "127.0.8.5")  # another network, new today
    await newbie.daily("Newbie")
    await newbie.give_up()
    await newbie.wait_daily_finished(TIMEOUT)

    standing = await player.daily_standing()
    assert standing.players == 4
    assert [(row.name, row.rank) for row in standing.rows] == [("Stranger", 1)]
    assert {row.name for row in standing.unranked or []} == {"Scout", "Solver", "Newbie"}
    assert standing.unranked_why == {
        scout.identity_id: "new-identity",
        player.identity_id: "network-played",
        newbie.identity_id: "new-identity",
    }
    assert standing.me is not None and standing.me.rank == 0
    # it still played: the race is in its history
    history = await player.history()
    assert [race.kind for race in history.races] == ["daily"]
