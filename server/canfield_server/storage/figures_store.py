"""The figures each process publishes for the operator console, and the
server-wide activity counts the console shows beside them.

==================  ======  ====================================================
key                 type    holds
==================  ======  ====================================================
``cf:figures``      hash    process name -> ``{"moves_per_s", "ack_p50_ms",
                            "ack_p99_ms", "board_p50_ms", "board_p99_ms",
                            "solver": {"waiting", "running", "slots", "owners"},
                            "beat"}``
==================  ======  ====================================================

Activity is read from the keys the rooms keep anyway: ``cf:live`` (public
races running), ``cf:quick:*`` (quick races open to join) and each draw's
daily ranking (players who started today's daily race).
"""

from __future__ import annotations

import json
from typing import Any

from canfield.dealcode import DRAW_MODES

from canfield_server.ops.clock import Clock
from canfield_server.storage import keys, player_keys
from canfield_server.storage.beat_table import live_entries

__all__ = ["FiguresStore", "FIGURES", "MAX_OWNERS"]

FIGURES = "cf:figures"
#: owners of waiting solver jobs one process publishes at most (the longest queues)
MAX_OWNERS = 10


class FiguresStore:
    def __init__(self, redis: Any, stale_ms: int, clock: Clock) -> None:
        self.redis = redis
        self.clock = clock
        #: a process silent this long is gone (its figures go with it)
        self.stale_ms = stale_ms

    async def publish(self, name: str, figures: dict[str, Any]) -> None:
        await self.redis.hset(FIGURES, name, json.dumps({**figures, "beat": self.clock.now_ms()}))

    async def forget(self, name: str) -> None:
        await self.redis.hdel(FIGURES, name)

    async def figures(self) -> list[dict[str, Any]]:
        """Every live process's figures, by name (stale ones removed on the way)."""
        return await live_entries(self.redis, FIGURES, self.clock.now_ms() - self.stale_ms)

    async def activity(self, date: str) -> dict[str, Any]:
        """Public races running, quick races open, and today's daily players per draw."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zcard(keys.LIVE)
            for draw in DRAW_MODES:
                pipe.zcard(player_keys.daily_rank(date, draw))
            for draw in DRAW_MODES:  # each draw mode's pool of open races (room/public.py pool_of)
                pipe.zcard(keys.quick_open(f"d{draw}"))
            live, *counts = await pipe.execute()
        daily, quick = counts[: len(DRAW_MODES)], counts[len(DRAW_MODES) :]
        return {
            "public_live": int(live),
            "quick_open": sum(int(n) for n in quick),
            "daily": {str(draw): int(n) for draw, n in zip(DRAW_MODES, daily, strict=True)},
        }
