"""The moves a command is given: its arguments, or else standard input.

``play`` and ``analyse`` take a line of moves the same way: as
arguments, or, with none, from standard input (separated by spaces,
commas or new lines), so a stored replay can be piped in. A line of
standard input is read at most ``MAX_LINE`` characters at a time: a
longer one is refused, not read whole.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence

from canfield.textinput import QUOTE_LIMIT

__all__ = ["MAX_LINE", "InputError", "add_moves_argument", "read_moves", "read_moves_for"]

#: the longest line of standard input read: room for thousands of moves
MAX_LINE = 64 * 1024
#: what separates moves: ASCII spaces, commas and line ends only
_SEPARATORS = re.compile(r"[ \t\r\n\f\v,]+")


class InputError(Exception):
    """Standard input that is not a list of moves; the message says why."""


def add_moves_argument(parser: argparse.ArgumentParser, example: str) -> None:
    """The ``MOVE...`` arguments (none: read standard input)."""
    parser.add_argument(
        "moves",
        nargs="*",
        metavar="MOVE",
        help=f"e.g. {example} (none: read them from standard input)",
    )


def read_moves(given: Sequence[str]) -> list[str]:
    """The moves given as arguments, or else those on standard input (none
    when it is a terminal). Raises ``InputError`` for input that is not text
    or has a line longer than ``MAX_LINE``."""
    if given:
        return list(given)
    if sys.stdin is None or sys.stdin.isatty():
        return []
    moves: list[str] = []
    number = 0
    while True:
        number += 1
        try:
            line = sys.stdin.readline(MAX_LINE + 1)
        except UnicodeDecodeError:
            raise InputError(f"line {number} of standard input is not UTF-8 text") from None
        if not line:
            return moves
        if len(line) > MAX_LINE:
            raise InputError(
                f"line {number} of standard input is over {MAX_LINE} characters "
                f"(it starts {line[:QUOTE_LIMIT]!r}): not a list of moves"
            )
        moves.extend(text for text in _SEPARATORS.split(line) if text)


def read_moves_for(command: str, given: Sequence[str]) -> list[str] | None:
    """``read_moves``, or None once its error is on stderr (as ``canfield-race COMMAND: ...``)."""
    try:
        return read_moves(given)
    except InputError as exc:
        print(f"canfield-race {command}: {exc}", file=sys.stderr)
        return None
