"""``canfield-race play CODE [MOVE...]``: replay moves and show the board.

Moves use the notation of docs/moves.md, ``U`` is an undo. With no moves
on the command line they are read from standard input (separated by
spaces, commas or new lines), so a stored replay can be piped in. A line
of standard input is read at most ``MAX_LINE`` characters at a time: a
longer one is refused, not read whole.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from canfield import CanfieldError, Game, Move, render
from canfield.textinput import QUOTE_LIMIT, excerpt

from canfield_cli.commands.deal import read_code

HELP = "replay moves on a deal and print the board"

#: the longest line of standard input read: room for thousands of moves
MAX_LINE = 64 * 1024
#: what separates moves: ASCII spaces, commas and line ends only
_SEPARATORS = re.compile(r"[ \t\r\n\f\v,]+")


class InputError(Exception):
    """Standard input that is not a list of moves; the message says why."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("code", help="a deal code such as CF1-D3-AAAAACL or CF2-D3-<26 characters>")
    parser.add_argument("moves", nargs="*", metavar="MOVE", help="e.g. S W-F 2:3-4 F1-3 U")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the player view of the result as JSON (put it before CODE or last)",
    )


def _read_moves(args: argparse.Namespace) -> list[str]:
    if args.moves:
        return list(args.moves)
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


def _play(game: Game, text: str) -> None:
    """One entry: a move, or ``U`` for an undo; ASCII only, so no other
    character can be trimmed or folded into ``U``."""
    if not text.isascii():
        Move.parse(text)  # refuses it (InvalidMoveError, naming the fault)
    game.play_text(text)


def run(args: argparse.Namespace) -> int:
    code = read_code(args.code, "play")
    if code is None:
        return 2
    game = Game.deal(code)
    try:
        moves = _read_moves(args)
    except InputError as exc:
        print(f"canfield-race play: {exc}", file=sys.stderr)
        return 2
    for number, text in enumerate(moves, 1):
        try:
            _play(game, text)
        except CanfieldError as exc:
            rule = getattr(exc, "rule", None)
            reason = f"{exc} [{rule}]" if rule else str(exc)
            print(
                f"canfield-race play: move {number} ({excerpt(text)}) refused: {reason}",
                file=sys.stderr,
            )
            return 1
    if args.json:
        print(json.dumps({"code": str(code), "moves": len(moves), "board": game.view()}))
    else:
        print(f"Deal {code} after {len(moves)} move(s)")
        print(render(game))
    return 0
