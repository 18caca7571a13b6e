"""The daily race: its attempts and standing, and each day's deal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Protocol

from canfield_server.room.ports.rooms import Behind, Stored, StoredRow

__all__ = [
    "DailyMove",
    "DailyAttempt",
    "NoAttempt",
    "DailyStore",
    "DailyDeals",
]


class DailyMove(NamedTuple):
    """One accepted action in a daily race (one round trip, as in a room)."""

    date: str
    draw: int
    player: str
    base_seq: int
    #: the action with its receipt time, ms since this player's start (``room.stamps``)
    entry: str
    snapshot: bytes
    row: StoredRow
    #: the standing's sort score (``room.daily_standing.standing_score``)
    score: float
    done: bool


class DailyAttempt(NamedTuple):
    """A player's daily race as stored."""

    started_at: int
    snapshot: bytes | None
    #: the actions as stored (``room.stamps.split_log``: actions and times)
    log: list[str]
    done: bool


@dataclass(frozen=True, slots=True)
class NoAttempt:
    """Nothing stored: the player has no daily attempt on (none started, or it is over)."""


class DailyStore(Protocol):
    """A day's daily race of one draw mode: attempts, logs and the standing."""

    async def claim(
        self, date: str, draw: int, player: str, name: str, now: int, row: StoredRow, score: float
    ) -> tuple[bool, int]:
        """Start ``player``'s attempt: (True, now), or (False, its start) if they have one."""
        ...

    async def attempt(self, date: str, draw: int, player: str) -> DailyAttempt | None: ...

    async def apply(self, move: DailyMove) -> Stored | Behind | NoAttempt:
        """Store one action of ``move.player``'s attempt in one step (the
        compare-and-set on ``base_seq``)."""
        ...

    async def standing(
        self, date: str, draw: int, player: str | None, limit: int
    ) -> tuple[int, list[StoredRow], tuple[int, StoredRow] | None]:
        """(players, the first ``limit`` rows in rank order, (rank, row) of ``player``)."""
        ...

    async def hold(self, date: str, draw: int, player: str, network: str, reason: str) -> str:
        """Whether ``player``'s daily counts in the ranked standing, decided once, at
        their first start (later calls return the first answer): ``reason`` if
        given, else ``network-played`` if another player of ``network`` ("": none)
        started first that day, else "" (ranked)."""
        ...

    async def held(self, date: str, draw: int, players: list[str]) -> dict[str, str]:
        """Those of ``players`` held out of the ranked standing: id -> reason."""
        ...

    async def network_first(self, date: str, draw: int, network: str) -> str | None:
        """The player who first started that day's daily from ``network`` (None:
        nobody), as ``hold`` decided it."""
        ...


class DailyDeals(Protocol):
    """The deal of each day and draw mode: solver-proven, the same on every replica."""

    async def deal(self, date: str, draw: int) -> str: ...

    async def known(self, date: str, draw: int) -> str | None: ...
