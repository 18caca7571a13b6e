"""Reading a room's presence table, the same for every storage adapter.

The table holds, per process (its *origin*), the connections it holds of
each member (``member|origin``: a count) and its last heartbeat
(``@origin``: epoch ms). A process whose heartbeat is older than the
staleness limit counts as gone, and so do its connections.
"""

from __future__ import annotations

__all__ = ["origin_of", "live_origins", "live_counts", "live_count"]


def origin_of(field: bytes) -> bytes:
    return field[1:] if field.startswith(b"@") else field.partition(b"|")[2]


def live_origins(table: dict[bytes, bytes], oldest: int) -> set[bytes]:
    """Processes whose last beat is ``oldest`` (ms) or later."""
    return {f[1:] for f, v in table.items() if f.startswith(b"@") and int(v) >= oldest}


def live_counts(table: dict[bytes, bytes], oldest: int) -> dict[str, int]:
    """Member id -> connections held by processes whose heartbeat is fresh."""
    live = live_origins(table, oldest)
    counts: dict[str, int] = {}
    for field, value in table.items():
        member, _, origin = field.partition(b"|")
        if origin and origin in live:
            counts[member.decode()] = counts.get(member.decode(), 0) + int(value)
    return counts


def live_count(table: dict[bytes, bytes], member: bytes, oldest: int) -> int:
    """One member's connections held by processes whose heartbeat is fresh."""
    prefix = member + b"|"
    mine = [(f[len(prefix) :], int(v)) for f, v in table.items() if f.startswith(prefix)]
    if not mine:
        return 0
    return sum(count for origin, count in mine if int(table.get(b"@" + origin, 0)) >= oldest)
