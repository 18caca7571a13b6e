"""``canfield-race analyse CODE MOVE...``: where the win slipped away.

The solver turned on a player's line (``canfield.review``): whether the
deal could be won at the start, the move after which it no longer could
(the slip) with a line that wins from just before it, or that it was
still winnable when the player stopped (or won). The moves are taken as
``play`` takes them (arguments, else standard input; ``U`` undoes, and a
race log's ``G``, a give-up, may end the line). ``--timeout`` bounds each
solver call, in processor seconds. ``analyse --bench N`` reviews N random
lines instead and prints the figures docs/solver.md quotes.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from canfield.lesson import taught
from canfield.review import LineError, Verdict, review_line

from canfield_cli.commands.deal import read_code
from canfield_cli.move_input import add_moves_argument, read_moves_for

HELP = "find the move that lost the win in a line of moves"

#: processor seconds each solver call may take unless ``--timeout`` says otherwise
DEFAULT_TIMEOUT = 5.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "code", nargs="?", help="a deal code such as CF1-D3-AAAAACL or CF2-D3-<26 characters>"
    )
    add_moves_argument(parser, "S W-F 2:3-4 F1-3 U G")
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help=(
            "processor seconds each solver call may take (default "
            f"{DEFAULT_TIMEOUT:g}); a review makes about 2 + log2(moves) calls, "
            "and one that runs out leaves it undecided"
        ),
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help=(
            "print one JSON object: winnable_at_start, slip (0-based index into the "
            "moves given), slip_move, continuation, winnable_at_end, decided, won, ..."
        ),
    )
    parser.add_argument(
        "--teach",
        type=float,
        metavar="S",
        help=(
            "teach a slip found, in at most S processor seconds: a short winning line "
            "from before it (instead of the solver's first) and what the slip gave up"
        ),
    )
    bench = parser.add_argument_group("benchmark (instead of CODE)")
    bench.add_argument(
        "--bench",
        type=int,
        metavar="N",
        help="review N random-play lines on random winnable Draw 3 deals and print the figures",
    )
    bench.add_argument(
        "--seed", type=int, default=1, help="seed of the benchmark's deals and lines"
    )
    bench.add_argument(
        "--compare",
        action="store_true",
        help="also review each line without take-backs (not an honest review) and compare",
    )


def _timeout(value: float, flag: str = "--timeout") -> float | None:
    """A time bound, or None once the error is on stderr."""
    if math.isfinite(value) and value > 0:
        return value
    print(
        f"canfield-race analyse: {flag} must be a positive number, not {value:g}",
        file=sys.stderr,
    )
    return None


def run(args: argparse.Namespace) -> int:
    timeout = _timeout(args.timeout)
    if timeout is None:
        return 2
    teach_s = None if args.teach is None else _timeout(args.teach, "--teach")
    if args.teach is not None and teach_s is None:
        return 2
    if args.bench is not None:
        return _bench(args, timeout, teach_s)
    if not args.code:
        print("canfield-race analyse: give a deal code and the moves played", file=sys.stderr)
        return 2
    code = read_code(args.code, "analyse")
    if code is None:
        return 2
    moves = read_moves_for("analyse", args.moves)
    if moves is None:
        return 2
    try:
        verdict = review_line(code, moves, timeout)
    except LineError as exc:
        print(f"canfield-race analyse: {exc}", file=sys.stderr)
        return 2
    if teach_s is not None:
        verdict = taught(str(code), list(moves), verdict, teach_s)
    if args.json:
        print(json.dumps({"code": str(code), **verdict.to_dict()}))
    else:
        print(describe(verdict, timeout))
        print(
            f"{verdict.solver_calls} solver call(s), {verdict.seconds:.3f} s of processor time",
            file=sys.stderr,
        )
    return 0


def describe(verdict: Verdict, timeout: float) -> str:
    """The verdict in a few lines a player reads."""
    late = (
        f"Not decided in the time allowed ({timeout:g} s of search per position; "
        "a longer --timeout may settle it)"
    )
    if verdict.won:
        return "You won."
    if verdict.winnable_at_start is None:
        return f"{late}: whether the deal could be won at all."
    if not verdict.winnable_at_start:
        return "The deal could not be won from the start: no line of legal moves wins it."
    if verdict.slip is not None and verdict.continuation is not None:
        why = ""
        if verdict.why is not None:
            cards = ", ".join(f"{k} {v}" for k, v in verdict.why.items() if v and k != "kind")
            why = f" ({verdict.why['kind']}: {cards})"
        size = f"{len(verdict.continuation)} moves"
        if verdict.line_first is not None:
            shorter = "the shortest" if verdict.shortest else "a shorter one may exist"
            size += f"; the solver's first line {verdict.line_first}; {shorter}"
        return (
            f"The deal could be won. Your move {verdict.slip + 1} ({verdict.slip_move}) "
            f"lost the win{why}; from just before it, this line wins "
            f"({size}):\n" + " ".join(verdict.continuation)
        )
    if verdict.winnable_at_end:
        if not verdict.moves:
            return "The deal could be won."
        return "The deal could be won. Still winnable when you stopped."
    if verdict.winnable_at_end is None:
        return f"The deal could be won. {late}: whether it still could when you stopped."
    return (
        "The deal could be won, and could not be any more when you stopped. "
        f"{late}: which move lost the win."
    )


def _bench(args: argparse.Namespace, timeout: float, teach_s: float | None) -> int:
    if args.code or args.moves:
        print("canfield-race analyse: give a CODE or --bench N, not both", file=sys.stderr)
        return 2
    if args.bench < 1:
        print("canfield-race analyse: --bench must be at least 1", file=sys.stderr)
        return 2
    from canfield_cli.review_bench import format_figures, measure

    figures = measure(args.bench, args.seed, timeout, compare=args.compare, teach_s=teach_s)
    print(json.dumps(figures) if args.json else format_figures(figures))
    return 0
