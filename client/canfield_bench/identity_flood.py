"""The identity flood: what a script gets asking for new identities from one address.

``canfield-race bench-identities`` starts a redis-server and a server process
with its shipped settings (or floods ``--url``), opens ``--connections``
WebSockets that all appear from one client address (``X-Forwarded-For``
through the proxy the server trusts on this host, so the address is budgeted
as a real client's would be), and on each sends ``identify`` with no token
again and again, one answer at a time, for ``--seconds``. A closed
connection (the server's flood protection) is opened again. It prints the
identities issued and refused, and both per minute.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from typing import Any

import websockets

from .processes import local_servers

__all__ = ["flood", "format_flood", "run_flood"]

#: the made-up client address every connection appears from
FLOOD_ADDRESS = "198.51.100.7"


async def _connection(
    url: str, address: str, until: float, tally: Counter[str], last: list[float]
) -> None:
    headers = [("X-Forwarded-For", address)] if address else []
    while time.monotonic() < until:
        try:
            async with websockets.connect(url, additional_headers=headers) as ws:
                while time.monotonic() < until:
                    await ws.send('{"type":"identify"}')
                    reply: dict[str, Any] = json.loads(await ws.recv())
                    if reply.get("type") == "identity":
                        tally["issued"] += 1
                        last[0] = time.monotonic()
                    else:
                        tally[str(reply.get("code"))] += 1
        except (OSError, websockets.ConnectionClosed, websockets.InvalidStatus) as exc:
            tally[f"closed: {type(exc).__name__}"] += 1
            await asyncio.sleep(0.1)


async def flood(url: str, connections: int, seconds: float, address: str) -> dict[str, Any]:
    tally: Counter[str] = Counter()
    start = time.monotonic()
    until = start + seconds
    last = [start]  # when the last identity was issued
    await asyncio.gather(
        *(_connection(url, address, until, tally, last) for _ in range(connections))
    )
    elapsed = time.monotonic() - start
    per_min = 60.0 / elapsed
    return {
        "connections": connections,
        "address": address,
        "seconds": round(elapsed, 1),
        "issued": tally["issued"],
        "refused": tally["too-many-identities"],
        "issued_per_min": round(tally["issued"] * per_min, 1),
        "refused_per_min": round(tally["too-many-identities"] * per_min, 1),
        "last_issued_s": round(last[0] - start, 2),
        "other": {k: v for k, v in tally.items() if k not in ("issued", "too-many-identities")},
    }


def run_flood(
    url: str | None,
    connections: int,
    seconds: float,
    address: str = FLOOD_ADDRESS,
    budget: bool = True,
) -> dict[str, Any]:
    """Flood ``url``, or a server of its own with the shipped settings (``budget``
    False: without the identity budget, as before it)."""
    if url:
        return asyncio.run(flood(url, connections, seconds, address))
    env = {"CANFIELD_LOG_JSON": "false", **({} if budget else {"CANFIELD_IDENTITY_BURST": "0"})}
    with local_servers(1, env, appendfsync="everysec", prefix="canfield-flood-") as (_, servers):
        return asyncio.run(flood(servers[0].ws_url, connections, seconds, address))


def format_flood(out: dict[str, Any]) -> str:
    lines = [
        f"{out['connections']} connections from {out['address'] or 'this host'},"
        f" {out['seconds']} s of identify with no token:",
        f"  issued  {out['issued']:>7}  ({out['issued_per_min']} a minute)",
        f"  refused {out['refused']:>7}  ({out['refused_per_min']} a minute)",
        f"  the last identity issued {out['last_issued_s']:.2f} s in",
    ]
    if out["other"]:
        lines.append(f"  other   {out['other']}")
    return "\n".join(lines)
