"""Ranking, sans I/O: who leads, by rules that farming cannot game; and how
often a room is told.

Won games first, by finish time; then cards on foundations (never the
score: taking a card back and playing it up again earns points but not
cards); then whoever reached that count first. A room's leaderboard goes
out at most once per interval (``Pace``, kept by a ``PaceTimer``), the
latest rows for every change in it.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable

from canfield_protocol import MemberStatus, Row

from canfield_server.ops.clock import Clock, Timer
from canfield_server.room.ports import StoredRow

__all__ = ["Pace", "PaceTimer", "rank_key", "ranked", "wire_row"]

#: a busy loop may stretch the leaderboard interval up to this many times the set one
MAX_STRETCH = 2.5
#: seconds of interval added per second of loop lateness
LAG_WEIGHT = 2.0


def rank_key(row: StoredRow) -> tuple:
    """The order: the place (``[:-1]``), then the id (a stable order within a tie)."""
    if row.status == MemberStatus.WON:
        return (0, row.at, 0, row.id)
    return (1, -row.on_foundations, row.at, row.id)


def ranked(
    rows: Iterable[StoredRow], connected: Container[str] | None = None, *, ties: bool = True
) -> list[Row]:
    """Wire rows in rank order; a playing player with no connection shows
    ``disconnected``. Rows that no rule tells apart share a place (``ties``)."""
    out = []
    place, before = 0, None
    # each row's key once (a leaderboard is ranked every flush of every room)
    for n, (key, row) in enumerate(sorted((rank_key(r), r) for r in rows), start=1):
        key = key[:-1]
        if not ties or key != before:
            place, before = n, key
        status = row.status
        if status == MemberStatus.PLAYING and connected is not None and row.id not in connected:
            status = MemberStatus.DISCONNECTED
        out.append(wire_row(row, place, status))
    return out


def wire_row(row: StoredRow, rank: int, status: MemberStatus | None = None) -> Row:
    """A stored row as the wire shows it, at ``rank`` (``status`` as shown, if not
    the stored one)."""
    return Row(
        rank=rank,
        id=row.id,
        name=row.name,
        score=row.score,
        on_foundations=row.on_foundations,
        moves=row.moves,
        status=row.status if status is None else status,
        time_ms=row.time_ms,
        reached_ms=row.at,
        reserve=row.reserve,
        tableau=row.tableau,
        rtt_ms=row.rtt_ms,
    )


class Pace:
    """How long a room's leaderboard waits: the set interval, stretched while the
    event loop runs late. A loop that is behind sends fewer, fuller leaderboards
    (each one a socket write per member) instead of falling further behind; an
    idle one keeps the set rate. ``late`` is fed the lateness of each flush timer.
    """

    __slots__ = ("base", "longest", "lag")

    def __init__(self, interval: float) -> None:
        self.base = interval
        self.longest = interval * MAX_STRETCH
        #: smoothed lateness of the flush timers, seconds
        self.lag = 0.0

    def late(self, seconds: float) -> None:
        self.lag += (max(0.0, seconds) - self.lag) * 0.2

    @property
    def interval(self) -> float:
        return min(self.longest, self.base + LAG_WEIGHT * self.lag)


class PaceTimer:
    """One room's leaderboard timer: after a change, ``flush`` is called once the
    ``Pace`` interval since the last flush is up (changes meanwhile ride along),
    and each timed flush's lateness is fed back to the pace."""

    __slots__ = ("pace", "clock", "_flush", "_last", "_handle", "_due", "_dirty_since")

    def __init__(self, pace: Pace, clock: Clock, flush: Callable[[bool], None]) -> None:
        self.pace = pace
        self.clock = clock
        self._flush = flush
        self._last = 0.0
        self._handle: Timer | None = None
        #: loop time the pending flush is due (its lateness paces the next ones)
        self._due = 0.0
        #: loop time of the first change not yet on a leaderboard (its latency metric)
        self._dirty_since: float | None = None

    def changed(self) -> None:
        """Something to show changed: ``flush(True)`` when the interval is up."""
        now = self.clock.monotonic()
        if self._dirty_since is None:
            self._dirty_since = now
        if self._handle is not None:
            return
        delay = max(0.0, self._last + self.pace.interval - now)
        self._due = now + delay
        self._handle = self.clock.call_later(delay, self._flush, True)

    def flushing(self, timed: bool) -> tuple[float, float | None]:
        """A flush happens now (``timed``: this timer's): (loop time now, that of
        the first change it carries; None: none)."""
        now = self.clock.monotonic()
        if self._handle is not None:
            if timed:
                self.pace.late(now - self._due)
            self._handle.cancel()
            self._handle = None
        self._last = now
        dirty_since, self._dirty_since = self._dirty_since, None
        return now, dirty_since

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
