"""Ranking, sans I/O: who leads, by rules that farming cannot game.

Won games first, by finish time; then cards on foundations (never the
score: taking a card back and playing it up again earns points but not
cards); then whoever reached that count first.
"""

from __future__ import annotations

from collections.abc import Container, Iterable

from .protocol import Row
from .race import StoredRow

__all__ = ["rank_key", "ranked"]


def rank_key(row: StoredRow) -> tuple:
    if row.status == "won":
        return (0, row.at, 0, row.id)
    return (1, -row.on_foundations, row.at, row.id)


def ranked(rows: Iterable[StoredRow], connected: Container[str] | None = None) -> list[Row]:
    """Wire rows in rank order; a playing player with no connection shows ``disconnected``."""
    out = []
    for rank, row in enumerate(sorted(rows, key=rank_key), start=1):
        status = row.status
        if status == "playing" and connected is not None and row.id not in connected:
            status = "disconnected"
        out.append(
            Row(
                rank=rank,
                id=row.id,
                name=row.name,
                score=row.score,
                on_foundations=row.on_foundations,
                moves=row.moves,
                status=status,  # type: ignore[arg-type]
                time_ms=row.time_ms,
            )
        )
    return out
