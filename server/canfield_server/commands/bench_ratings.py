"""``canfield-race bench-ratings``: what rating public races costs.

Three figures: one 8-racer rating update alone (openskill's Plackett-Luce,
in process), the same race rated and stored (``rate_public_race`` against
Redis: read 8 ratings, write ratings, history points and ladder rows),
and ``GET /api/ladder``'s query (the ladder's top 100 of ``--ladder``
identities, one script). Without ``--redis-url`` it starts its own
redis-server (``appendfsync everysec``: the storage figures then show the
round trips, not the disk).
"""

from __future__ import annotations

import argparse

__all__ = ["HELP", "add_arguments", "run"]

HELP = "measure the cost of rating a public race and of reading the ladder"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--redis-url", help="a Redis to use (default: start one)")
    parser.add_argument("--runs", type=int, default=500, help="timed runs of each (default 500)")
    parser.add_argument(
        "--ladder", type=int, default=5000, help="identities on the ladder (default 5000)"
    )


def run(args: argparse.Namespace) -> int:
    import asyncio

    from canfield_server.storage.embedded_redis import EmbeddedRedis

    if args.redis_url:
        asyncio.run(_bench(args.redis_url, args.runs, args.ladder))
        return 0
    with EmbeddedRedis(appendfsync="everysec") as redis:
        asyncio.run(_bench(redis.url, args.runs, args.ladder))
    return 0


def _report(name: str, seconds: list[float]) -> None:
    ordered = sorted(seconds)
    median = ordered[len(ordered) // 2] * 1e3
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1e3
    print(f"{name}: median {median:.3f} ms, p99 {p99:.3f} ms ({len(ordered)} runs)")


async def _bench(url: str, runs: int, ladder_size: int) -> None:
    import random
    import time

    from canfield_protocol import MemberStatus, Row
    from redis.asyncio import Redis

    from canfield_server.room.rating_races import rate_public_race
    from canfield_server.room.ratings import Placed, rate
    from canfield_server.storage.rating_store import RedisRatingStore
    from canfield_server.transport.ladder import LADDER_SIZE

    order = [Placed(f"b{n}", n + 1) for n in range(8)]
    pure = []
    for _ in range(runs):
        start = time.perf_counter()
        rate(order, {})
        pure.append(time.perf_counter() - start)
    _report("one 8-racer rating update (in process)", pure)

    redis = Redis.from_url(url)
    store = RedisRatingStore(redis, retention_days=1, max_points=200)
    try:
        # a ladder of ``ladder_size`` identities: races of 8 drawn at random
        people = [f"bench{n}" for n in range(ladder_size)]
        races = max(runs, ladder_size // 8 * 5)
        stored = []
        for n in range(races):
            field = random.sample(people, 8)
            rows = [
                Row(
                    rank=place,
                    id=who,
                    name=who,
                    score=0,
                    on_foundations=10,
                    moves=1,
                    status=MemberStatus.GAVE_UP,
                    time_ms=1,
                )
                for place, who in enumerate(field, start=1)
            ]
            start = time.perf_counter()
            await rate_public_race(store, 3, rows, {w: w for w in field}, min_races=1, now_ms=n)
            stored.append(time.perf_counter() - start)
        _report("one 8-racer race rated and stored (Redis)", stored[-runs:])
        queries = []
        for _ in range(runs):
            start = time.perf_counter()
            await store.ladder(3, LADDER_SIZE)
            queries.append(time.perf_counter() - start)
        listed = await redis.zcard("cf:{ladder:3}:rank")
        _report(f"the ladder's top {LADDER_SIZE} of {listed} (Redis)", queries)
    finally:
        await redis.aclose()
