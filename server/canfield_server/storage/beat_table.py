"""A hash of process name -> JSON with a ``beat`` time (ms): the tables each
process writes every beat for the operator console (``cf:procs``,
``cf:figures``). Reading one keeps the live entries and strikes the stale
ones, so a process that died without a word drops off by itself."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["live_entries"]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


async def live_entries(redis: Any, key: str, oldest_ms: int) -> list[dict[str, Any]]:
    """Entries that beat at ``oldest_ms`` or later, each with its ``name``, by name."""
    alive, gone = [], []
    for name, raw in (await redis.hgetall(key)).items():
        entry = json.loads(raw)
        if entry["beat"] < oldest_ms:
            gone.append(name)
        else:
            alive.append({"name": _text(name), **entry})
    if gone:
        await redis.hdel(key, *gone)
    return sorted(alive, key=lambda p: p["name"])
