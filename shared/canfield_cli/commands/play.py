"""``canfield-race play CODE [MOVE...]``: replay moves and show the board.

Moves use the notation of docs/moves.md, ``U`` is an undo. With no moves
on the command line they are read from standard input (separated by
spaces, commas or new lines), so a stored replay can be piped in.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from canfield import CanfieldError, Game, render

from canfield_cli.commands.deal import read_code

HELP = "replay moves on a deal and print the board"


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
    return [text for text in re.split(r"[\s,]+", sys.stdin.read()) if text]


def run(args: argparse.Namespace) -> int:
    code = read_code(args.code, "play")
    if code is None:
        return 2
    game = Game.deal(code)
    moves = _read_moves(args)
    for number, text in enumerate(moves, 1):
        try:
            game.play_text(text)
        except CanfieldError as exc:
            rule = getattr(exc, "rule", None)
            reason = f"{exc} [{rule}]" if rule else str(exc)
            print(
                f"canfield-race play: move {number} ({text!r}) refused: {reason}", file=sys.stderr
            )
            return 1
    if args.json:
        print(json.dumps({"code": str(code), "moves": len(moves), "board": game.view()}))
    else:
        print(f"Deal {code} after {len(moves)} move(s)")
        print(render(game))
    return 0
