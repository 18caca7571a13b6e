"""New identities cost something, on a real server process and Redis.

Promise (docs/security.md "Identities"): each network (an IPv4 /24, an IPv6
/64) has a budget of new identities - a burst, then a steady refill - shared
by every process; past it ``identify`` with no token is refused with
``too-many-identities`` and when to try again, and nothing is stored. Another
network has its own budget. A new identity lives a day unless it finishes a
race; then it is kept as long as its history. The operator console lists
the identities issued and refused per network.

The clients appear from made-up addresses through the proxy ``serve``
trusts by default (this host), as a real proxy would forward them.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from typing import Any

import redis
from canfield_bench.identity_flood import flood, format_flood

from tests.conftest import ServerFactory
from tests.server.conftest import FAST_ENV, Connect, MakeRooms
from tests.server.helpers import ON, overview_until, race_once

#: three new identities at once, then one back every 2 s
BUDGET = {"CANFIELD_IDENTITY_BURST": "3", "CANFIELD_IDENTITY_PER_HOUR": "1800"}
#: how long a refill may take on a busy machine before the test gives up
REFILL_TIMEOUT = 120.0
HOME, SCHOOL = "198.51.100.7", "203.0.113.20"


def identity_keys(store: redis.Redis) -> set[str]:
    """The identities stored (their hashes' keys)."""
    found = (k.decode() if isinstance(k, bytes) else str(k) for k in store.keys("cf:id:{*}"))
    return {k for k in found if k.endswith("}")}


async def test_a_flood_of_new_identities_is_refused_then_served_again(
    server_factory: ServerFactory, connect: Connect
) -> None:
    server = server_factory(env={**FAST_ENV, **BUDGET, **ON})
    store = redis.Redis.from_url(server.redis_url)
    flood = [await connect(server.ws_url, forwarded_for=HOME) for _ in range(4)]
    issued = [await c.request("identity", type="identify") for c in flood[:3]]
    assert [i["new"] for i in issued] == [True] * 3
    before = identity_keys(store)

    refused = await flood[3].request("identity", type="identify")
    assert refused["type"] == "error" and refused["code"] == "too-many-identities", refused
    params = refused["params"]
    assert (params["burst"], params["per_hour"]) == (3, 1800)
    assert 0 < params["retry_s"] <= 2 and params["retry_at"] > 0
    assert "try again in" in refused["message"]
    assert identity_keys(store) == before  # nothing stored
    # the connection holds no identity: what needs one says so
    assert (await flood[3].request("history", type="history", limit=5))["code"] == "no-identity"

    # a neighbour on the same /24 shares the budget; another network has its own
    neighbour = await connect(server.ws_url, forwarded_for="198.51.100.200")
    assert (await neighbour.request("identity", type="identify"))["code"] == "too-many-identities"
    school = await connect(server.ws_url, forwarded_for=SCHOOL)
    assert (await school.request("identity", type="identify"))["new"] is True
    # an identity already issued is always welcome back
    known = await flood[3].request("identity", type="identify", token=issued[0]["token"])
    assert known["type"] == "identity" and known["id"] == issued[0]["id"]

    # served again once the bucket has refilled (asked at the time it names)
    deadline = time.monotonic() + REFILL_TIMEOUT
    while True:
        again = await flood[3].request("identity", type="identify")
        if again["type"] == "identity":
            break
        assert again["code"] == "too-many-identities", again
        assert time.monotonic() < deadline, "the budget never refilled"
        await asyncio.sleep(min(again["params"]["retry_s"], 2))
    assert again["new"] is True and len(identity_keys(store)) == len(before) + 2

    # the console lists issuance per network, the most issued first
    def listed(body: dict[str, Any]) -> bool:
        rows = {r["network"]: r for r in body["networks"]}
        home = rows.get("198.51.100.0/24", {"issued_hour": 0, "refused_hour": 0})
        return bool(home["issued_hour"] == 4 and home["refused_hour"] >= 2)

    body = await overview_until(server, listed, "issuance", path="/admin/api/identities")
    rows = body["networks"]
    assert [r["network"] for r in rows][:2] == ["198.51.100.0/24", "203.0.113.0/24"]
    home, school_row = rows[0], rows[1]
    assert (home["issued_day"], home["burst"], home["per_hour"]) == (4, 3, 1800)
    assert home["refused_day"] == home["refused_hour"] and home["left"] < 3
    assert home["next_in_s"] is not None and 0 <= home["next_in_s"] <= 2
    assert (school_row["issued_hour"], school_row["refused_hour"]) == (1, 0)
    assert school_row["left"] >= 2 and school_row["next_in_s"] == 0


async def test_a_new_identity_lives_a_day_and_is_kept_once_it_finishes_a_race(
    server_factory: ServerFactory, connect: Connect
) -> None:
    server = server_factory(
        env={**FAST_ENV, "CANFIELD_DAILY_DATE": "2031-06-01", "CANFIELD_DAILY_SECRET": "ttl"}
    )
    store = redis.Redis.from_url(server.redis_url)
    racer = await connect(server.ws_url, forwarded_for=HOME)
    issued = await racer.request("identity", type="identify")
    key = "cf:id:{" + hashlib.sha256(issued["token"].encode()).hexdigest() + "}"
    day, kept = 86_400, 90 * 86_400
    assert 0 < store.ttl(key) <= day
    assert store.hget(key, "net") == b"198.51.100.0/24"  # where it was issued
    # coming back with it, and starting a race, keeps nothing longer
    again = await connect(server.ws_url, forwarded_for=HOME)
    await again.request("identity", type="identify", token=issued["token"])
    assert 0 < store.ttl(key) <= day
    await race_once(racer, "Ann")  # a finished room race: it is kept
    assert day < store.ttl(key) <= kept
    assert day < store.ttl(key + ":races") <= kept

    # the daily is a finished race too
    player = await connect(server.ws_url, forwarded_for=SCHOOL)
    daily = await player.request("identity", type="identify")
    daily_key = "cf:id:{" + hashlib.sha256(daily["token"].encode()).hexdigest() + "}"
    await player.request("daily_started", type="daily", name="Bea", draw=3)
    assert 0 < store.ttl(daily_key) <= day  # started, not finished
    await player.request("ack", type="give_up", seq=1)
    await player.expect("daily_finished")
    assert day < store.ttl(daily_key) <= kept


async def test_the_flood_bench_counts_what_one_address_gets(server_factory: ServerFactory) -> None:
    """``canfield-race bench-identities``'s flood, against a budget of three."""
    server = server_factory(env={**BUDGET, "CANFIELD_IDENTITY_PER_HOUR": "0"})
    out = await flood(server.ws_url, connections=2, seconds=2.0, address="192.0.2.9")
    assert out["issued"] == 3 and out["refused"] > 0, out
    assert f"issued  {3:>7}" in format_flood(out)


async def test_who_is_budgeted_in_process(rooms: MakeRooms) -> None:
    """Two processes share one network's budget; a peer with no address (a bot, an
    in-process test) and this host's own are never budgeted; an IPv6 /64 is one
    network; a refusal stores nothing."""
    world = await rooms(processes=2, identity_burst=2, identity_per_hour=60)
    served = []
    for process, ip in [(0, "10.1.2.3"), (1, "10.1.2.99")]:  # one /24, two processes
        client = await world.open(process, ip=ip)
        served.append((await client.request("identity", type="identify"))["type"])
    assert served == ["identity", "identity"]
    stored = len(world.backend.identities)
    late = await world.open(1, ip="10.1.2.4")
    refused = await late.request("identity", type="identify")
    assert refused["code"] == "too-many-identities" and refused["params"]["retry_s"] == 60
    assert len(world.backend.identities) == stored
    addresses: list[str | None] = [None, "127.0.0.1", "10.1.3.1"]
    for address in addresses:  # no address, this host, another /24
        for _ in range(3 if address != "10.1.3.1" else 2):
            other = await world.open(0, ip=address)
            assert (await other.request("identity", type="identify"))["type"] == "identity"
    v6 = [await world.open(0, ip=f"2001:db8:1:2::{n}") for n in range(3)]
    answers = [(await c.request("identity", type="identify"))["type"] for c in v6]
    assert answers == ["identity", "identity", "error"]
    issued = await world.open(0, ip="10.1.3.9")
    assert (await issued.request("identity", type="identify"))["type"] == "error"
    await world.clock.advance(60)  # one back, on every process
    assert (await late.request("identity", type="identify"))["type"] == "identity"
    network = world.backend.identities[next(reversed(world.backend.identities))]["net"]
    assert network == "10.1.2.0/24"
