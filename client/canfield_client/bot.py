"""A racing bot: a ``RaceClient`` driven by ``strategy.Strategy``.

``run_bot`` joins a room (or resumes a seat), then races every race the
room starts until the connection ends or ``races`` is reached. It plays
from the board the server sends, rebuilt into an engine game, so it sees
exactly what a person sees. ``pace_s`` is the pause before each move
(0: full speed); when the strategy is stuck the bot gives up, so a race
never waits on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Coroutine
from typing import Any

import msgspec
from canfield_protocol import DailyStanding
from canfield_protocol import ErrorCode as E

from .board import game_from_view
from .client import ConnectionLost, RaceClient, ServerError
from .strategy import Strategy

__all__ = ["run_bot", "race_once", "run_daily"]

#: errors that end this bot's race (it finished, the race ended, ...)
_RACE_OVER = {E.DONE, E.WRONG_PHASE, E.NOT_PLAYER, E.NOT_IN_ROOM}
#: errors after which the same board may be tried again shortly
_TRY_AGAIN = {E.UNAVAILABLE, E.RATE_LIMITED}


async def race_once(
    client: RaceClient, strategy: Strategy, pace_s: float = 0.0, rng: random.Random | None = None
) -> None:
    """Play the current race until won, stuck (gives up) or over."""
    rng = rng or random.Random()
    strategy.reset()
    setbacks = 0
    while client.finished is None and client.board is not None and not client.board.won:
        game = game_from_view(msgspec.to_builtins(client.board))
        move = strategy.choose(game)
        if pace_s > 0:
            await asyncio.sleep(pace_s * rng.uniform(0.7, 1.3))
            if client.finished is not None:
                return
        try:
            if move is None:
                await client.give_up()
                return
            await client.move(move.text())
        except ServerError as exc:
            if exc.code in _RACE_OVER:
                return
            if exc.code in _TRY_AGAIN and setbacks < 20:
                setbacks += 1
                await asyncio.sleep(0.1 * setbacks)
                continue
            raise


def run_bot(
    ws_url: str,
    room: str,
    name: str = "Bot",
    *,
    pace_s: float = 0.5,
    strength: str = "normal",
    token: str | None = None,
    races: int | None = None,
    seed: int | None = None,
    reply_timeout: float = 10.0,
) -> Coroutine[Any, Any, int]:
    """Join ``room`` (or resume with ``token``) and race; returns races played.

    The options are checked at once (``ValueError``), before anything
    connects; the returned coroutine does the racing. ``reply_timeout``: how
    long the bot waits to connect and for each reply (a test on a busy machine
    gives it longer).
    """
    rng = random.Random(seed)
    strategy = Strategy(strength, rng)
    if not pace_s >= 0:
        raise ValueError(f"pace must be 0 or more seconds, not {pace_s!r}")
    return _race_in_room(ws_url, room, name, strategy, pace_s, token, races, rng, reply_timeout)


async def _race_in_room(
    ws_url: str,
    room: str,
    name: str,
    strategy: Strategy,
    pace_s: float,
    token: str | None,
    races: int | None,
    rng: random.Random,
    reply_timeout: float,
) -> int:
    played = 0
    async with RaceClient(
        ws_url, open_timeout=reply_timeout, reply_timeout=reply_timeout
    ) as client:
        if token:
            await client.resume(room, token)
        else:
            await client.join(room, name, bot=True)
        while races is None or played < races:
            if not await _unless_closed(client, client.wait_started()):
                break
            try:
                await race_once(client, strategy, pace_s, rng)
            except ConnectionLost:
                break
            played += 1
            if not await _unless_closed(client, client.wait_finished()):
                break
    return played


async def _unless_closed(client: RaceClient, waiting: Coroutine[Any, Any, Any]) -> bool:
    """Wait for ``waiting`` or the connection's end; False if the connection ended."""
    task = asyncio.ensure_future(waiting)
    closed = asyncio.ensure_future(client.closed.wait())
    await asyncio.wait({task, closed}, return_when=asyncio.FIRST_COMPLETED)
    task.cancel()
    closed.cancel()
    return not client.closed.is_set()


async def run_daily(
    ws_url: str,
    name: str = "Bot",
    *,
    draw: int = 3,
    pace_s: float = 0.0,
    strength: str = "normal",
    identity: str | None = None,
    seed: int | None = None,
) -> tuple[RaceClient, DailyStanding]:
    """Play today's daily deal once (``identity``: a token to play as; none: a new
    identity, then in ``client.identity_token``); returns the closed client and
    the standing after the race."""
    rng = random.Random(seed)
    strategy = Strategy(strength, rng)
    async with RaceClient(ws_url) as client:
        await client.identify(identity)
        await client.daily(name, draw)
        await race_once(client, strategy, pace_s, rng)
        with contextlib.suppress(TimeoutError):  # none when the day ended first
            await client.wait_daily_finished(10)
        standing = await client.daily_standing(draw)
    return client, standing


def launcher(ws_url: str) -> Callable[..., Coroutine[Any, Any, int]]:
    """The server's way to add bots (the ``canfield_race.bots`` entry point):
    bots it starts join its own WebSocket endpoint at ``ws_url``."""

    def launch(room: str, name: str, **options: Any) -> Coroutine[Any, Any, int]:
        return run_bot(ws_url, room, name, **options)

    return launch
