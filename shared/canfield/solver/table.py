"""The transposition table: position keys, and what stock taps can reach.

A position is skipped when one already seen reaches it by stock taps
alone (``Seen``). A position reached with a duty (see ``ordering``) is
only partly searched, so it is kept apart, with its duty, and never
stands in for a full visit (``visit``).
"""

from __future__ import annotations

from ..game import Game
from .ordering import Duty

__all__ = ["BIG", "PositionKey", "position_key", "Seen", "visit"]

#: larger than any node count or waste size
BIG = 1 << 30

#: (reserve size, cards up per suit, the columns sorted)
PositionKey = tuple[int, tuple[int, ...], tuple[tuple[int, ...], ...]]


def position_key(game: Game) -> PositionKey:
    """A canonical key for everything but the stock/waste split.

    Columns are interchangeable, so they are sorted; foundations are
    counted per suit (the slot a suit happens to sit in does not matter).
    The reserve keeps its order, so its size says all; so does the talon
    (stock and waste), whose split is handled by ``Seen``.
    """
    piles = game.foundations
    return (
        len(game.reserve),
        tuple([len(piles[s]) if s >= 0 else 0 for s in game.suit_slot]),
        tuple(sorted(map(tuple, game.tableau))),
    )


class Seen:
    """The transposition table, aware of what stock taps can reach.

    With ``d`` cards per tap, every waste size that is a multiple of ``d``
    (or the whole talon) reaches every other such size by tapping: one
    class. Any other size ``w`` reaches ``w + d``, ``w + 2d``, ... and then
    that class. A position is skipped when a position already seen reaches
    it by taps alone, since it can do nothing the seen one cannot.
    """

    __slots__ = ("draw", "table")

    def __init__(self, draw: int) -> None:
        self.draw = draw
        #: key -> [pass class seen (0/1), least size seen for remainder 1, 2, ...]
        self.table: dict[PositionKey, list[int]] = {}

    def covers(self, key: PositionKey, game: Game) -> bool:
        """Whether a position seen already reaches this one by taps alone."""
        entry = self.table.get(key)
        if entry is None:
            return False
        waste = len(game.waste)
        if waste % self.draw == 0 or not game.stock:
            return True  # any size reaches the pass class
        return entry[waste % self.draw] <= waste

    def add(self, key: PositionKey, game: Game) -> bool:
        """Record the position; False when it (or one reaching it) was seen."""
        if self.covers(key, game):
            return False
        entry = self.table.get(key)
        if entry is None:
            entry = self.table[key] = [0] + [BIG] * (self.draw - 1)
        waste = len(game.waste)
        if waste % self.draw == 0 or not game.stock:
            entry[0] = 1
        else:
            entry[waste % self.draw] = waste
        return True


def visit(
    seen: Seen,
    owing: set[tuple[PositionKey, int, Duty]],
    game: Game,
    duty: Duty | None,
) -> PositionKey | None:
    """Record a newly reached position; None when it is not worth a visit.

    A position reached with a duty is only partly searched, so it is kept
    apart (with its duty) and never stands in for a full visit.
    """
    key = position_key(game)
    if duty is None:
        return key if seen.add(key, game) else None
    if seen.covers(key, game):
        return None
    entry = (key, len(game.waste), duty)
    if entry in owing:
        return None
    owing.add(entry)
    return key
