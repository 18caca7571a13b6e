"""What several server test files share: lobbies and races over the wire or in
process, the daily's and the operator console's HTTP calls, two hubs on one
redis-server, the far racer of the quick bands, a flagged review case.

Test files import from here (or from ``conftest.py``), never from another test
file (``tests/test_architecture.py`` checks that).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

import pytest
from canfield_bench.processes import ServerProcess
from canfield_protocol import MemberStatus, ProtocolError, Row
from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.ops.config import Settings
from canfield_server.room import identifiers
from canfield_server.room.hub import Hub
from canfield_server.room.integrity import Signals
from canfield_server.room.ports import BotLauncher, RatingPoint, ReviewCase, StoredRating
from canfield_server.room.review import Reviews
from canfield_server.storage import player_keys
from canfield_server.storage.challenge_store import RedisChallengeStore
from canfield_server.storage.daily_store import RedisDailyStore
from canfield_server.storage.errors import STORAGE_ERRORS
from canfield_server.storage.history import RedisIdentityStore
from canfield_server.storage.integrity_store import RedisIntegrityStore
from canfield_server.storage.matchmaking import RedisMatchQueue
from canfield_server.storage.memory import MemoryBackend, MemoryDailyDeals
from canfield_server.storage.pubsub import RedisBus
from canfield_server.storage.rating_store import RedisRatingStore
from canfield_server.storage.store import RedisStore
from redis.asyncio import Redis

from tests.server.conftest import TIMEOUT, AnyClient, Client, Connect
from tests.server.inprocess import Rooms

DEAL = "CF1-D3-AAAAACL"


#: ``lobby`` opens clients of either kind: ``connect(url)`` or ``rooms.open(process)``
C = TypeVar("C", bound=AnyClient)
Where = TypeVar("Where")


async def lobby(
    connect: Callable[[Where], Awaitable[C]], url: Where, names: list[str], deal: str = DEAL
) -> tuple[str, list[C]]:
    """A host (first name) and players, in one room with a typed-in deal."""
    host = await connect(url)
    joined = await host.create(names[0], deal=deal)
    assert joined["type"] == "joined" and joined["is_host"]
    room = joined["room"]
    others = []
    for name in names[1:]:
        client = await connect(url)
        reply = await client.join(room.lower(), name)
        assert reply["type"] == "joined", reply
        others.append(client)
    return room, [host, *others]


async def start(clients: Sequence[AnyClient]) -> dict[str, Any]:
    """The host starts; every client sees the countdown, then the start."""
    await clients[0].send(type="start", force=True)
    started = [await c.expect("started") for c in clients]
    return started[0]


async def play(client: AnyClient, moves: list[str], first_seq: int = 1) -> list[dict[str, Any]]:
    acks = []
    for seq, move in enumerate(moves, start=first_seq):
        reply = await client.request("ack", type="move", seq=seq, move=move)
        assert reply["type"] == "ack", reply
        acks.append(reply)
    return acks


def healthz(url: str) -> int:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=5) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


#: a short countdown and a 1 s grace time
FAST = {"countdown_s": 0.2, "away_grace_s": 1.0}


def member(msg: dict[str, Any], name: str) -> dict[str, Any] | None:
    state = msg.get("state", msg)
    return next((m for m in state["members"] if m["name"] == name), None)


def seated(msg: dict[str, Any], name: str) -> dict[str, Any]:
    """The member called ``name``, who must be in the room."""
    found = member(msg, name)
    assert found is not None, f"{name} is not in the room"
    return found


async def race_once(client: AnyClient, name: str) -> dict[str, Any]:
    """A one-player room race on ``DEAL``: a draw, then give up."""
    joined = await client.create(name, deal=DEAL)
    assert joined["type"] == "joined", joined
    await client.request("countdown", type="start")
    await client.expect("started")
    assert (await client.request("ack", type="move", seq=1, move="S"))["type"] == "ack"
    assert (await client.request("ack", type="give_up", seq=2))["type"] == "ack"
    return await client.expect("finished")


DAY = "2031-03-14"
NEXT = "2031-03-15"


def env(date: str) -> dict[str, str]:
    # a fixed secret: the same candidate deals every run (no run waits on an unlucky proof)
    return {"CANFIELD_DAILY_DATE": date, "CANFIELD_DAILY_SECRET": "daily-test-secret"}


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def identified(connect: Connect, url: str) -> tuple[Client, str]:
    client = await connect(url)
    reply = await client.request("identity", type="identify")
    assert reply["type"] == "identity" and reply["new"], reply
    return client, reply["token"]


TOKEN = "operator-secret-4f1c9a7e"
ON = {"CANFIELD_ADMIN_TOKEN": TOKEN, "CANFIELD_PRESENCE_S": "0.5", "CANFIELD_COUNTDOWN_S": "0.3"}
BEARER = {"Authorization": f"Bearer {TOKEN}"}


def _call(url: str, headers: dict[str, str] | None = None, body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode(errors="replace")


async def call(server: ServerProcess, path: str, **kwargs: Any) -> tuple[int, Any]:
    return await asyncio.to_thread(_call, server.http_url + path, **kwargs)


async def overview_until(
    server: ServerProcess, ok: Any, what: str, path: str = "/admin/api/overview"
) -> dict[str, Any]:
    """The console's overview (or ``path``) once ``ok(body)`` holds (processes beat
    twice a second)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        status, body = await call(server, path, headers=BEARER)
        assert status == 200, body
        if ok(body):
            return body
        assert time.monotonic() < deadline, f"{what}: {body}"
        await asyncio.sleep(0.2)


def redis_hub(
    redis: Redis,
    url: str,
    settings: Settings,
    clock: Clock = SYSTEM,
    *,
    bus: RedisBus | None = None,
    bots: BotLauncher | None = None,
) -> Hub:
    """A hub on a real redis-server: every store the Redis one, as a server has
    them (the daily deals excepted: each day's deal is ``DEAL``, no solver proves it)."""
    integrity = RedisIntegrityStore(redis, retention_days=settings.history_retention_days)
    ratings = RedisRatingStore(
        redis,
        retention_days=settings.history_retention_days,
        max_points=settings.rating_history_max,
    )
    return Hub(
        RedisStore(
            redis,
            url,
            600,
            os.urandom(4).hex().encode(),
            clock,
            presence_stale_ms=settings.presence_stale_ms,
        ),
        settings,
        clock=clock,
        bus=bus,
        bots=bots,
        storage_errors=STORAGE_ERRORS,
        identities=RedisIdentityStore(
            redis,
            retention_days=settings.history_retention_days,
            max_races=settings.history_max_races,
            room_ttl_s=600,
            url=url,
            clock=clock,
            new_ttl_s=settings.new_identity_ttl_s,
        ),
        challenges=RedisChallengeStore(redis),
        daily=RedisDailyStore(redis, url, settings.daily_retention_days),
        daily_deals=MemoryDailyDeals(MemoryBackend(), lambda date, draw: DEAL),
        queue=RedisMatchQueue(redis, url),
        integrity=integrity,
        reviews=Reviews(integrity, ratings, min_races=settings.rating_min_races, clock=clock),
    )


@contextlib.asynccontextmanager
async def hubs_on(url: str, settings: Settings, clock: Clock = SYSTEM) -> AsyncIterator[list[Hub]]:
    """Two hubs sharing one redis-server, each with its own client and room bus."""
    made = []
    for _ in range(2):
        redis = Redis.from_url(url)
        bus = RedisBus(redis)
        hub = redis_hub(redis, url, settings, clock, bus=bus)
        bus.start(hub.on_event, hub.resync)
        made.append((hub, bus, redis))
    try:
        yield [hub for hub, _, _ in made]
    finally:
        for hub, bus, redis in made:
            await hub.stop()
            await hub.shutdown()
            await bus.stop()
            await redis.aclose()


#: a regular far above newcomers: matched at 1000 + 40 * (40 - 25) = 1600
FAR_MU = 40.0
#: the far racer's stored draw 3 rating, as ten public races would have left it
FAR_POINT = RatingPoint(at=1, rating=1500, deviation=80, change=5, rank=1, players=4)
FAR_RATING = StoredRating(mu=FAR_MU, sigma=2.0, races=10, name="Far")
#: in process (the manual clock): bands of 50 that widen by 1000 after 3 s
IN_PROCESS_BANDS = {
    "quick_band_points": 50,
    "quick_band_widen_points": 1000,
    "quick_band_widen_s": 3,
    "countdown_s": 2,
    "quick_bot_offer_s": 30,
}


async def rate_far(redis_url: str, token: str) -> None:
    """Store the far racer's rating for an identity, in a real redis-server."""
    redis = Redis.from_url(redis_url)
    store = RedisRatingStore(redis, retention_days=1, max_points=10)
    try:
        await store.save_ratings(3, [(identifiers.token_hash(token), FAR_RATING, FAR_POINT, None)])
    finally:
        await redis.aclose()


async def rate_far_in(world: Rooms, token: str) -> None:
    """... in the in-process rooms' storage."""
    await world.ratings.save_ratings(
        3, [(identifiers.token_hash(token), FAR_RATING, FAR_POINT, None)]
    )


def standing(member: str, rank: int, status: MemberStatus = MemberStatus.GAVE_UP) -> Row:
    return Row(
        rank=rank,
        id=member,
        name=member.upper(),
        score=10 - rank,
        on_foundations=10 - rank,
        moves=20,
        status=status,
        time_ms=60_000,
    )


SIGNALS = Signals(
    actions=4,
    moves_per_s=1.0,
    think_ms=[1000, 990, 1010, 1000],
    think_median_ms=1000,
    think_spread=0.02,
    decision_think_ms=1000,
    forced_think_ms=1000,
    over_par=0,
    solver_agreement=1.0,
    checked_moves=4,
)


async def flag(redis: Redis, store: RedisIntegrityStore, case: ReviewCase) -> None:
    """The flag rule does not flag a give-up: once the server has recorded its own
    (unflagged) assessment of the result, a flagged one takes its place, recorded
    through the port as the signals' computation records it."""
    async with asyncio.timeout(60):
        while (found := await store.case(case.result)) is None:
            await asyncio.sleep(0.1)
    assert found.status == "" and not found.reasons
    await redis.delete(player_keys.case(case.result))
    assert await store.record(case)


def code_of(call: Callable[[], object]) -> str:
    with pytest.raises(ProtocolError) as info:
        call()
    return info.value.code


class SolverStub:
    """A solver with nothing to say beyond a test's own ``take``: no par, no hint,
    a deal put back forgotten."""

    async def put_back(self, draw: int, proven: Any) -> None:
        return None

    def solve_par(self, code: str, room: str) -> None:
        return None

    async def par(self, code: str, room: str) -> int | None:
        return None

    async def hint(self, *args: Any) -> str | None:
        return None
