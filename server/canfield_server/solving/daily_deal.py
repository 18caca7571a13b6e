"""Each day's deal of the daily race (``room.ports.DailyDeals``).

Candidates are version-2 deal codes (130-bit seeds) from
HMAC-SHA256(secret, ``"<date>|D<draw>|<i>"``) for i = 0, 1, ...; the first
one the solver proves winnable is the day's deal. Without the secret
nobody can work a day's deal out in advance (nor recover it from earlier
days). The secret is ``CANFIELD_DAILY_SECRET``, or else one generated
once and kept in Redis (``SET NX``: every replica shares it). The chosen
code is stored with ``SET NX`` too, so replicas that prove at the same
moment still agree on one deal; in a process, one proof per day and draw
runs at a time and the others wait for it.

Proofs run ahead (``start``): today's and tomorrow's deals are proven in
the background at start-up and then every ``daily_ahead_every_s``, so
the day's first player finds the deal ready. Tomorrow's code stays in
Redis like today's: nothing is sent before its day is over.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
from typing import Any

from canfield import DealCode
from canfield_protocol import ErrorCode, ProtocolError

from canfield_server.ops.clock import SYSTEM, Clock, day_after, today
from canfield_server.ops.config import Settings
from canfield_server.ops.logs import event
from canfield_server.ops.supervise import Supervised
from canfield_server.solving.deal_pool import DRAW_MODES, DealPool
from canfield_server.storage import player_keys

__all__ = ["DAILY", "candidate", "DailyDealer"]

log = logging.getLogger(__name__)

#: the solver owner of daily proofs (its own fair turns)
DAILY = "daily"
_SEED_BITS = 130


def candidate(secret: bytes, date: str, draw: int, index: int) -> str:
    """The ``index``-th candidate code of a day and draw mode."""
    digest = hmac.new(secret, f"{date}|D{draw}|{index}".encode(), hashlib.sha256).digest()
    seed = int.from_bytes(digest, "big") >> (256 - _SEED_BITS)
    return str(DealCode.from_seed(seed, draw, version=2))


class DailyDealer:
    def __init__(
        self, redis: Any, pool: DealPool, settings: Settings, *, clock: Clock = SYSTEM
    ) -> None:
        self.redis = redis
        #: what "today" is, and the wait between proofs ahead (a test's manual clock)
        self.clock = clock
        self.pool = pool
        self.configured = (settings.daily_secret or "").encode()
        self.ttl_s = settings.daily_retention_days * 86_400
        self.solve_s = settings.daily_solve_timeout_s
        self.candidates = settings.daily_candidates
        self.date_override = settings.daily_date
        self.ahead_every_s = settings.daily_ahead_every_s
        self.ahead = Supervised("daily-ahead", self._ahead_forever)
        self._secret: bytes | None = None
        self._proving: dict[tuple[str, int], asyncio.Task[str]] = {}
        self._known: dict[tuple[str, int], str] = {}

    async def secret(self) -> bytes:
        if self.configured:
            return self.configured
        if self._secret is None:
            await self.redis.set(player_keys.DAILY_SECRET, secrets.token_hex(32), nx=True)
            found = await self.redis.get(player_keys.DAILY_SECRET)
            self._secret = found if isinstance(found, bytes) else str(found).encode()
        return self._secret

    async def known(self, date: str, draw: int) -> str | None:
        cached = self._known.get((date, draw))
        if cached is not None:
            return cached  # a day's code never changes once stored
        found = await self.redis.get(player_keys.daily_code(date, draw))
        if found is None:
            return None
        code = found.decode() if isinstance(found, bytes) else str(found)
        if len(self._known) > 64:
            self._known.clear()
        self._known[(date, draw)] = code
        return code

    async def deal(self, date: str, draw: int) -> str:
        found = await self.known(date, draw)
        if found is not None:
            return found
        task = self._proving.get((date, draw))
        if task is None:
            task = self._proving[(date, draw)] = asyncio.ensure_future(self._prove(date, draw))
            task.add_done_callback(lambda _: self._proving.pop((date, draw), None))
        return await asyncio.shield(task)

    # ------------------------------------------------------------ ahead of time

    def start(self) -> None:
        """Prove today's and tomorrow's deals in the background (from the lifespan)."""
        if self.ahead_every_s > 0:
            self.ahead.start()

    async def close(self) -> None:
        await self.ahead.stop()

    async def _ahead_forever(self) -> None:
        while True:
            day = today(self.date_override, self.clock.now_ms())
            for date in (day, day_after(day)):
                for draw in DRAW_MODES:
                    try:
                        await self.deal(date, draw)
                    except asyncio.CancelledError:
                        raise
                    except Exception as exc:  # noqa: BLE001 - a player's request proves it then
                        log.warning(
                            "daily deal %s D%d not ready ahead: %s", date, draw, exc, exc_info=exc
                        )
            await self.clock.sleep(self.ahead_every_s)

    async def _prove(self, date: str, draw: int) -> str:
        secret = await self.secret()
        wait_s = self.solve_s * 4 + 30
        for index in range(self.candidates):
            code = candidate(secret, date, draw, index)
            par = await self.pool.prove(code, DAILY, self.solve_s, wait_s)
            if par is None:
                continue
            key = player_keys.daily_code(date, draw)
            if await self.redis.set(key, code, nx=True, ex=self.ttl_s):
                await self.pool.remember_par(code, par)
                event(log, "daily.deal", date=date, draw=draw, candidate=index)
            chosen = await self.known(date, draw)
            return chosen or code
        raise ProtocolError(
            ErrorCode.UNAVAILABLE, f"no proven deal for the daily race of {date} yet; try again"
        )
