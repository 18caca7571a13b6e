"""When a racer's move should also refresh its race's key TTLs.

A room's keys live ``ttl`` after its last activity. The move script used to
ask Redis every key's TTL on every move (seven calls, most of a move's Lua
beyond its writes); now the process remembers when it last had a racer's
move refresh them, and asks for a refresh once that is a 64th of the TTL
ago. A racer's first move of a race here always refreshes: it is the move
that creates the racer's keys (and, for the race's first mover, its rows),
and a new race has a new number, so keys a new race recreated are never
taken for fresh. A move that another process served refreshes there, and
Redis keeps whichever TTL was set last: both are the full TTL.
"""

from __future__ import annotations

__all__ = ["Refreshes"]

#: (room code, member id, race number)
RaceKey = tuple[str, str, int]


class Refreshes:
    """The racers whose keys this process refreshed within the last 64th of
    the TTL (only those: older entries go when the next refresh finds them)."""

    def __init__(self, ttl_s: int) -> None:
        self.every_ms = ttl_s * 1000 // 64
        self._at: dict[RaceKey, int] = {}
        self._pruned_ms = 0

    def due(self, key: RaceKey, now_ms: int) -> bool:
        at = self._at.get(key)
        return at is None or now_ms - at >= self.every_ms

    def done(self, key: RaceKey, now_ms: int) -> None:
        """The move that refreshed ``key``'s keys is stored."""
        self._at[key] = now_ms
        if now_ms - self._pruned_ms >= self.every_ms:
            self._pruned_ms = now_ms
            stale = now_ms - self.every_ms
            self._at = {k: at for k, at in self._at.items() if at > stale}

    def __len__(self) -> int:
        return len(self._at)
