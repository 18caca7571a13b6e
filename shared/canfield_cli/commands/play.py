"""``canfield-race play CODE [MOVE...]``: replay moves and show the board.

Moves use the notation of docs/moves.md, ``U`` is an undo. With no moves
on the command line they are read from standard input
(``canfield_cli.move_input``), so a stored replay can be piped in.
"""

from __future__ import annotations

import argparse
import json
import sys

from canfield import CanfieldError, Game, Move, render
from canfield.textinput import excerpt

from canfield_cli.commands.deal import read_code
from canfield_cli.move_input import add_moves_argument, read_moves_for

HELP = "replay moves on a deal and print the board"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("code", help="a deal code such as CF1-D3-AAAAACL or CF2-D3-<26 characters>")
    add_moves_argument(parser, "S W-F 2:3-4 F1-3 U")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the player view of the result as JSON (put it before CODE or last)",
    )


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
    moves = read_moves_for("play", args.moves)
    if moves is None:
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
