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
#: a timer this late is on time: the event loop's timers fire to the millisecond
TIMER_SLACK_S = 0.002
#: the process's rooms' timed leaderboards are kept this far apart (a slot each,
#: more per slot only when the rooms are too many for one each)
SLOT_S = 0.002


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

    One for the process: it also spreads the rooms' timed leaderboards over the
    interval (``place``). Rooms whose races start together would otherwise flush
    together, every interval, and a move that arrives then waits behind all of
    their sockets' writes (docs/performance.md, issue 38).
    """

    __slots__ = ("base", "longest", "lag", "_slots", "_placed")

    def __init__(self, interval: float) -> None:
        self.base = interval
        self.longest = interval * MAX_STRETCH
        #: smoothed lateness of the flush timers, seconds
        self.lag = 0.0
        #: slot number (loop time // ``SLOT_S``) -> timed leaderboards placed in it
        self._slots: dict[int, int] = {}
        self._placed = 0

    def late(self, seconds: float) -> None:
        self.lag += (max(0.0, seconds - TIMER_SLACK_S) - self.lag) * 0.2

    @property
    def interval(self) -> float:
        return min(self.longest, self.base + LAG_WEIGHT * self.lag)

    def place(self, due: float) -> tuple[int, float]:
        """A slot for a leaderboard due at loop time ``due``, and when it goes:
        ``due`` when its slot has room, else the start of the next slot that has.
        Never earlier than ``due`` (the interval is a minimum). ``free`` the slot
        when it went or was cancelled."""
        per_slot = 1 + int(self._placed * SLOT_S / max(self.interval, SLOT_S))
        slot = int(due // SLOT_S)
        at = due
        while self._slots.get(slot, 0) >= per_slot:
            slot += 1
            at = slot * SLOT_S
        self._slots[slot] = self._slots.get(slot, 0) + 1
        self._placed += 1
        return slot, at

    def free(self, slot: int) -> None:
        left = self._slots.pop(slot, 0) - 1
        if left > 0:
            self._slots[slot] = left
        self._placed = max(0, self._placed - 1)


class PaceTimer:
    """One room's leaderboard timer: after a change, ``flush`` is called once the
    ``Pace`` interval since the last flush is up (changes meanwhile ride along),
    and each timed flush's lateness is fed back to the pace."""

    __slots__ = ("pace", "clock", "_flush", "_last", "_handle", "_due", "_slot", "_dirty_since")

    def __init__(self, pace: Pace, clock: Clock, flush: Callable[[bool], None]) -> None:
        self.pace = pace
        self.clock = clock
        self._flush = flush
        self._last = 0.0
        self._handle: Timer | None = None
        #: loop time the pending flush is due (its lateness paces the next ones)
        self._due = 0.0
        #: its slot in the pace (kept apart from other rooms' flushes)
        self._slot: int | None = None
        #: loop time of the first change not yet on a leaderboard (its latency metric)
        self._dirty_since: float | None = None

    def changed(self) -> None:
        """Something to show changed: ``flush(True)`` when the interval is up."""
        now = self.clock.monotonic()
        if self._dirty_since is None:
            self._dirty_since = now
        if self._handle is not None:
            return
        due = max(now, self._last + self.pace.interval)
        if due > now:  # a timed one: apart from the other rooms' (``Pace.place``)
            self._slot, due = self.pace.place(due)
        self._due = due
        self._handle = self.clock.call_later(due - now, self._flush, True)

    def flushing(self, timed: bool) -> tuple[float, float | None]:
        """A flush happens now (``timed``: this timer's): (loop time now, that of
        the first change it carries; None: none)."""
        now = self.clock.monotonic()
        if self._handle is not None and timed:
            self.pace.late(now - self._due)
        self.cancel()
        self._last = now
        dirty_since, self._dirty_since = self._dirty_since, None
        return now, dirty_since

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._slot is not None:
            self.pace.free(self._slot)
            self._slot = None
