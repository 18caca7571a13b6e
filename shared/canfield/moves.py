"""Moves as small values with a text form that round-trips.

=============  ==============================================
text           meaning
=============  ==============================================
``S``          tap the stock: draw (3 or 1), or recycle the waste
``R-F``        top reserve card to its foundation
``W-3``        top waste card onto column 3
``2-F``        top card of column 2 to its foundation
``2-4``        top card of column 2 onto column 4
``2:3-4``      the last 3 cards of column 2 (a run) onto column 4
``F1-3``       top card of foundation 1 back onto column 3
``U``          undo (only in replays and logs; not a ``Move``)
=============  ==============================================

Columns and foundations count from 1 in text and from 0 in code. Parsing
is case-insensitive (ASCII only) and ignores surrounding spaces; ``docs/moves.md`` is
the full reference.
"""

from __future__ import annotations

from typing import NamedTuple

from .errors import InvalidMoveError
from .textinput import BLANK, ascii_upper, excerpt, strip_spaces

__all__ = ["Move", "STOCK", "RESERVE", "WASTE", "TABLEAU", "FOUNDATION", "DRAW", "UNDO"]

STOCK = "S"
RESERVE = "R"
WASTE = "W"
TABLEAU = "T"
FOUNDATION = "F"

#: A replay or log entry that stands for an undo (see ``Game.play_text``).
UNDO = "U"
#: The longest run a column can hold: ranks wrap and colours alternate,
#: so in principle every card can lie in one run.
MAX_RUN = 52


class Move(NamedTuple):
    """One player action other than undo.

    ``src``/``dst`` are pile kinds (``R``, ``W``, ``T``, ``F``; ``S`` for
    the stock tap, which has no destination). ``count`` is how many cards
    move (more than one only for a run between columns). A move to a
    foundation names no slot: the card goes to its suit's foundation.
    """

    src: str
    src_index: int = 0
    # the field shadows tuple.count (a method), which mypy reports; the
    # name is part of the public API, so it stays
    count: int = 1  # type: ignore[assignment]
    dst: str = ""
    dst_index: int = 0

    @classmethod
    def parse(cls, text: str) -> Move:
        return parse_move(text)

    def text(self) -> str:
        if self.src == STOCK:
            return "S"
        if self.src == TABLEAU:
            source = str(self.src_index + 1)
            if self.count != 1:
                source += f":{self.count}"
        elif self.src == FOUNDATION:
            source = f"F{self.src_index + 1}"
        else:
            source = self.src
        if self.dst == TABLEAU:
            target = str(self.dst_index + 1)
        else:
            target = self.dst
        return f"{source}-{target}"

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Move.parse({self.text()!r})"


DRAW = Move(STOCK, 0, 0, "", 0)

# Every move value ``Game.legal_moves`` hands out, made once: moves are
# immutable, and making them anew at every position is a large share of a
# search. ``RUN[i][j][count]`` moves the last ``count`` cards of column i
# onto column j; the others are indexed by pile kind, column or slot.
TO_FOUNDATION = {src: Move(src, 0, 1, FOUNDATION, 0) for src in (RESERVE, WASTE)}
COLUMN_UP = tuple(Move(TABLEAU, i, 1, FOUNDATION, 0) for i in range(4))
ONTO_COLUMN = {
    src: tuple(Move(src, 0, 1, TABLEAU, j) for j in range(4)) for src in (RESERVE, WASTE)
}
TAKE_BACK = tuple(tuple(Move(FOUNDATION, i, 1, TABLEAU, j) for j in range(4)) for i in range(4))
RUN = tuple(
    tuple(
        tuple(Move(TABLEAU, i, count, TABLEAU, j) for count in range(MAX_RUN + 1)) for j in range(4)
    )
    for i in range(4)
)

_COLUMNS = "1234"
_DIGITS = "0123456789"
#: a move text never needs more characters than this, spaces around it included
MAX_TEXT = 64


def _column(text: str, whole: str) -> int:
    if len(text) == 1 and text in _COLUMNS:
        return _COLUMNS.index(text)
    raise InvalidMoveError(f"{excerpt(whole)}: {excerpt(text)} is not a column (1-4)")


def parse_move(text: str) -> Move:
    """Parse the text notation; raises ``InvalidMoveError`` naming the fault.

    Only ASCII is read (``S``, ``R``, ``W``, ``F`` in either case, ``0-9``,
    ``:``, ``-`` and spaces, U+0020, around it): the check comes before any
    case folding, so ``'ſ'`` is not ``S`` and ``'٣'`` or ``'²'`` is no digit.
    """
    if not isinstance(text, str):
        raise InvalidMoveError(f"a move is text, not {type(text).__name__}")
    move = _CACHE.get(text)
    if move is not None:
        return move
    if len(text) > MAX_TEXT:
        raise InvalidMoveError(f"{excerpt(text)} is too long to be a move")
    if not text.isascii():
        raise InvalidMoveError(
            f"{excerpt(text)} is not a move: moves are written in ASCII (e.g. W-F, 2:3-4, S)"
        )
    cleaned = ascii_upper(strip_spaces(text, BLANK))
    if cleaned == "S":
        return DRAW
    if cleaned == UNDO:
        raise InvalidMoveError("'U' is an undo, not a move: replay it with Game.play_text")
    if len(cleaned) > 12:
        raise InvalidMoveError(f"{excerpt(text)} is too long to be a move")
    source, sep, target = cleaned.partition("-")
    if not sep or not source or not target:
        raise InvalidMoveError(
            f"{excerpt(text)} is not a move: expected SOURCE-TARGET such as W-F, R-2, 1:3-4, or S"
        )
    count = 1
    if source in ("R", "W"):
        src, src_index = source, 0
    elif source.startswith("F"):
        src = FOUNDATION
        digits = source[1:]
        if len(digits) != 1 or digits not in _COLUMNS:
            raise InvalidMoveError(f"{excerpt(text)}: {source!r} is not a foundation (F1-F4)")
        src_index = _COLUMNS.index(digits)
    else:
        src = TABLEAU
        column, colon, amount = source.partition(":")
        src_index = _column(column, text)
        if colon:
            if (
                not amount
                or any(ch not in _DIGITS for ch in amount)
                or not 1 <= int(amount) <= MAX_RUN
            ):
                raise InvalidMoveError(f"{excerpt(text)}: card count {amount!r} is not 1-{MAX_RUN}")
            count = int(amount)
    if target in ("F", "R", "W"):
        dst, dst_index = target, 0
    else:
        dst, dst_index = TABLEAU, _column(target, text)
    if count != 1 and dst != TABLEAU:
        raise InvalidMoveError(f"{excerpt(text)}: only a single card can go to {target}")
    return Move(src, src_index, count, dst, dst_index)


def _all_moves() -> dict[str, Move]:
    """Every canonical move text, parsed once, so hot paths parse by lookup."""
    found: dict[str, Move] = {"S": DRAW}
    sources = ["R", "W"] + [f"F{i}" for i in range(1, 5)]
    sources += [f"{c}:{n}" if n > 1 else str(c) for c in range(1, 5) for n in range(1, 14)]
    for source in sources:
        for target in ["F", "1", "2", "3", "4"]:
            text = f"{source}-{target}"
            try:
                found[text] = parse_move(text)
            except InvalidMoveError:
                pass
    return found


_CACHE: dict[str, Move] = {}
_CACHE.update(_all_moves())
