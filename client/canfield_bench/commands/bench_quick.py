"""``canfield-race bench-quick``: how long "Race now" takes to reach a race."""

from __future__ import annotations

import argparse
import json

HELP = "measure quick -> started with players arriving across two server processes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=50, help="players arriving (default 50)")
    parser.add_argument(
        "--seconds", type=float, default=60.0, help="the window they arrive in (default 60)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the arrival moments")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def run(args: argparse.Namespace) -> int:
    from canfield_bench.quick_bench import format_quick, run_quick

    out = run_quick(args.players, args.seconds, args.seed)
    print(json.dumps(out, indent=2) if args.json else format_quick(out))
    return 0 if not out["failures"] else 1


if __name__ == "__main__":  # before the package is reinstalled with its entry point
    parser = argparse.ArgumentParser(description=HELP)
    add_arguments(parser)
    raise SystemExit(run(parser.parse_args()))
