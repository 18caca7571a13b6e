"""Where an arena lives across processes: its record, its racers' standing, who
waits for a heat, the heats running and the deals each racer has raced."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

import msgspec

__all__ = [
    "ArenaRecord",
    "ArenaStore",
    "HeatPlace",
    "HeatRecord",
    "StandingEntry",
    "LAST_PLACES",
]

#: places kept per racer for the standing's small digits
LAST_PLACES = 10


class ArenaRecord(msgspec.Struct, kw_only=True):
    """An arena's settings and its end; the host's changes replace it by version."""

    code: str
    name: str
    draw: int
    minutes: int
    starts_at: int
    #: the creator's public identity id (a private arena's host); "" for none
    host: str = ""
    #: scheduled by the server (``room.arena_schedule``): no host, heats rated
    public: bool = False
    #: a public arena's period in minutes (60: hourly, 1440: daily), for its
    #: name in the reader's language; 0: a private arena
    every: int = 0
    #: ms the host ended it (no new heat from then); None: it runs its length
    ended_at: int | None = None
    #: its results are kept (everyone's place in their history): the arena is over
    over: bool = False

    @property
    def ends_at(self) -> int:
        end = self.starts_at + self.minutes * 60_000
        return end if self.ended_at is None else min(end, self.ended_at)


class HeatRecord(msgspec.Struct, kw_only=True):
    """A heat: its room, the racers put in it and its deal."""

    room: str
    racers: list[str]
    deal: str
    opened_ms: int
    #: the racers' names as the standing shows them (for the heats running now)
    names: list[str] = msgspec.field(default_factory=list)


class StandingEntry(NamedTuple):
    """One racer's line in the standing."""

    racer: str
    name: str
    points: int
    #: podiums in a row (from 2 on, the next podium counts double)
    streak: int
    heats: int
    #: last places, oldest first, one character each (``-``: left)
    last: str


class HeatPlace(NamedTuple):
    """What one racer's place in a heat is worth (``room.arena_rules.heat_places``)."""

    racer: str
    #: points by the table (ties share), before the berserk bonus and the streak
    points: int
    podium: bool
    #: berserk's bonus (counted on a podium only)
    bonus: int
    #: the place as the standing shows it (``1``-``8``, ``-``)
    mark: str


class ArenaStore(Protocol):
    """An arena's shared state (Redis: ``storage/arena_store.py``; in memory:
    ``storage/memory/arena_store.py``; one contract, ``test_ports_contract.py``).
    Every change that a page shows moves the arena's ``version``."""

    async def create(self, record: ArenaRecord, ttl_s: int) -> bool:
        """A new arena; False when its code is taken."""
        ...

    async def load(self, code: str) -> tuple[ArenaRecord, int] | None:
        """The arena and its record's version, or None."""
        ...

    async def save(self, record: ArenaRecord, ver: int) -> int | None:
        """Replace the record if still at ``ver``; the new version, else None."""
        ...

    async def version(self, code: str) -> int:
        """A number that moves whenever the standing, the waiting or the heats change."""
        ...

    async def enter(self, code: str, racer: str, name: str, owner: str = "") -> bool:
        """A racer is in the standing (0 points if new, name updated); False: removed.
        ``owner``: their identity's token hash (never shown), for their history."""
        ...

    async def owners(self, code: str) -> dict[str, str]:
        """Racer -> their identity's token hash."""
        ...

    async def keep_results(self, results: dict[str, bytes], keep: int, ttl_s: int) -> None:
        """Each identity's (token hash ->) arena result, first in its arena history
        (the newest ``keep`` kept, for ``ttl_s``)."""
        ...

    async def results(self, owner: str, limit: int) -> list[bytes]:
        """An identity's arena results, newest first."""
        ...

    async def remove(self, code: str, racer: str) -> None:
        """Out for good: off the standing, the waiting and any heat to come."""
        ...

    async def wait(self, code: str, racer: str, since_ms: int) -> None:
        """The racer waits for a heat from ``since_ms`` (a removed racer: not)."""
        ...

    async def unwait(self, code: str, racer: str) -> None: ...

    async def waiting(self, code: str) -> dict[str, int]:
        """Racers waiting for a heat -> ms they began."""
        ...

    async def take(
        self, code: str, racers: Sequence[str], heat: str, least: int, until_ms: int
    ) -> list[str]:
        """Those of ``racers`` still waiting leave the waiting for ``heat``, atomically
        (assigned to it), if at least ``least`` of them still wait (else none): two
        processes never put one racer in two heats, nor make a heat too small. The
        heat is *forming* until ``settle``: ``stale`` from ``until_ms`` on."""
        ...

    async def settle(self, code: str, heat: str) -> None:
        """The heat formed (it started, or it is given up): forming no more, and
        its racers not seated yet are put in it no more."""
        ...

    async def stale(self, code: str, now_ms: int) -> list[str]:
        """The heats still forming past their ``until_ms`` (whoever formed them
        went, or failed on the way)."""
        ...

    async def unplaced(self, code: str, racers: Sequence[str]) -> list[str]:
        """Those of ``racers`` in the standing that neither wait nor are put in a heat."""
        ...

    async def assigned(self, code: str, racers: Sequence[str]) -> dict[str, str]:
        """The heat each of ``racers`` is put in and not yet seated in."""
        ...

    async def claim(self, code: str, racer: str, heat: str) -> bool:
        """The racer's assignment to ``heat`` is taken (by one process, once)."""
        ...

    async def open_heat(self, code: str, heat: HeatRecord) -> None:
        """A heat runs: listed (unless it was scored already: over), and its deal
        raced by each of its racers."""
        ...

    async def seat(self, code: str, heat: str, member: str, racer: str) -> None:
        """The racer's seat in the heat's room."""
        ...

    async def seats(self, code: str, heat: str) -> dict[str, str]:
        """Member id -> racer, for the heat's seats."""
        ...

    async def berserk(self, code: str, heat: str, member: str) -> None: ...

    async def berserks(self, code: str, heat: str) -> set[str]: ...

    async def raced(self, code: str, racers: Sequence[str], deal: str) -> bool:
        """Any of ``racers`` raced ``deal`` in this arena."""
        ...

    async def heat_over(
        self, code: str, heat: str, places: Sequence[HeatPlace]
    ) -> dict[str, int] | None:
        """Score a heat, once: each racer's points (doubled on a podium from their
        second podium in a row on: the streak; a heat off the podium ends it),
        heats counted, places kept; the heat runs no more. The points given, or
        None when it was scored already."""
        ...

    async def hold(self, code: str, heat: str, racer: str) -> bool:
        """The racer's result in ``heat`` is under review: the points it gave (or
        will give, once scored) leave the standing until ``release``. True when
        held now (False: held already)."""
        ...

    async def release(self, code: str, heat: str, racer: str) -> bool:
        """The review cleared it: the points held come back. True when released now."""
        ...

    async def rewrite_results(self, code: str, results: dict[str, bytes]) -> None:
        """Each identity's (token hash ->) result of arena ``code`` in its history is
        replaced by the new one (its place changed); one it no longer keeps stays out."""
        ...

    async def heat(self, code: str, heat: str) -> HeatRecord | None:
        """The heat as ``open_heat`` listed it (running or over), or None: not yet."""
        ...

    async def running(self, code: str) -> list[HeatRecord]:
        """The heats running now, oldest first."""
        ...

    async def standing(self, code: str, limit: int) -> tuple[list[StandingEntry], int]:
        """The top ``limit`` (most points first, then by racer id) and the racers' count."""
        ...

    async def entries(
        self, code: str, racers: Sequence[str]
    ) -> dict[str, tuple[StandingEntry, int]]:
        """Each of ``racers``' line and rank (ties share a rank); a racer not in the
        standing (removed, never entered) is left out."""
        ...

    async def lock(self, code: str, owner: str, ttl_ms: int) -> bool:
        """``owner`` forms the heats for the next ``ttl_ms`` (taken, or kept)."""
        ...

    async def finish(self, code: str) -> bool:
        """The arena's end is claimed, once (its results kept by that caller)."""
        ...

    async def publish(self, code: str, starts_at: int, keep_ms: int) -> None:
        """A public arena is listed (by its start; those that started more than
        ``keep_ms`` before it leave the list)."""
        ...

    async def publics(self, since_ms: int, until_ms: int) -> list[str]:
        """The public arenas listed that start between the two, soonest first."""
        ...

    async def track(self, code: str, starts_at: int, since_ms: int) -> None:
        """A private arena is listed for its driving (by its start; those that
        started before ``since_ms`` leave the list)."""
        ...

    async def tracked(self, since_ms: int, until_ms: int) -> list[str]:
        """The private arenas listed that start between the two, soonest first."""
        ...

    async def hold_racer(self, racer: str, heat: str, ttl_ms: int) -> bool:
        """The racer is seated in ``heat`` (``ARENA/HEAT``) for up to ``ttl_ms``:
        False when they hold another heat (one arena heat at a time)."""
        ...

    async def racer_heat(self, racer: str) -> str | None:
        """The heat (``ARENA/HEAT``) the racer holds now, or None."""
        ...

    async def free_racer(self, racer: str, heat: str) -> None:
        """The racer's hold on ``heat`` ends (a hold on another heat stays)."""
        ...
