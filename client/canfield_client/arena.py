"""Racing in an arena: heat after heat until the arena is over (a bot's, a test's).

The server seats the racer in each heat (``joined``) and takes them out of it
once their race is over (``left``); this loop plays each heat it is seated in
(``race_once``), berserk when asked, and stops when the arena is over, the
racer is removed, or the connection ends.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from canfield_protocol import ArenaLeft, ArenaMsg, Joined, Role, Started

from .bot import race_once
from .client import ConnectionLost, RaceClient, ServerError
from .strategy import Strategy

__all__ = ["race_arena"]


async def race_arena(
    client: RaceClient,
    code: str,
    name: str,
    strategy: Strategy,
    *,
    pace_s: float = 0.0,
    berserk: bool = False,
    rng: random.Random | None = None,
    timing: list[tuple[str, float, int, str]] | None = None,
) -> int:
    """Join arena ``code`` (identified already) and race its heats; returns heats raced.
    ``timing`` gets ``("joined", monotonic s, 0, room)`` when seated in a heat,
    ``("started", s, racers in the heat, its room)`` at its start and ``("done", s, 0,
    room)`` when this racer's race in it is over (benchmarks)."""
    events: asyncio.Queue[Any] = asyncio.Queue()

    def heard(msg: Any) -> None:
        if isinstance(msg, Joined | Started | ArenaLeft | ArenaMsg):
            events.put_nowait(msg)

    client.on_message.append(heard)
    closed = asyncio.ensure_future(client.closed.wait())
    raced = 0
    try:
        await client.arena_join(code, name)
        while True:
            got = asyncio.ensure_future(events.get())
            await asyncio.wait({got, closed}, return_when=asyncio.FIRST_COMPLETED)
            if not got.done():
                got.cancel()
                break
            msg = got.result()
            if isinstance(msg, ArenaLeft) or (
                isinstance(msg, ArenaMsg) and msg.arena.status == "over"
            ):
                break
            if isinstance(msg, Joined) and timing is not None:
                timing.append(("joined", time.monotonic(), 0, msg.room))
            if isinstance(msg, Joined) and berserk:
                try:
                    await client.arena_berserk()
                except ServerError:
                    pass  # the heat started first: this one without berserk
            elif isinstance(msg, Started):
                if timing is not None:
                    racers = (
                        sum(m.role == Role.PLAYER for m in client.state.members)
                        if client.state
                        else 0
                    )
                    timing.append(("started", time.monotonic(), racers, client.room or ""))
                try:
                    await race_once(client, strategy, pace_s, rng)
                except ConnectionLost:
                    break
                raced += 1
                if timing is not None:
                    timing.append(("done", time.monotonic(), 0, client.room or ""))
    finally:
        closed.cancel()
        client.on_message.remove(heard)
    return raced
