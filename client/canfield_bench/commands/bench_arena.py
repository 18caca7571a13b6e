"""``canfield-race bench-arena``: how soon an arena racer who finishes races again."""

from __future__ import annotations

import argparse
import json

HELP = "measure an arena across two server processes: finish to next heat, heat sizes, scoring cost"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--racers", type=int, default=50, help="racers (default 50)")
    parser.add_argument(
        "--minutes", type=float, default=2.0, help="minutes before the host ends it (default 2)"
    )
    parser.add_argument(
        "--pace", type=float, default=0.2, help="seconds a bot takes a move (default 0.2)"
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="bench processes driving the racers (default 2)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def run(args: argparse.Namespace) -> int:
    from canfield_bench.arena_bench import format_arena, run_arena

    out = run_arena(args.racers, args.minutes, args.pace, args.workers)
    print(json.dumps(out, indent=2) if args.json else format_arena(out))
    return 0 if not out["failures"] else 1


if __name__ == "__main__":  # before the package is reinstalled with its entry point
    parser = argparse.ArgumentParser(description=HELP)
    add_arguments(parser)
    raise SystemExit(run(parser.parse_args()))
