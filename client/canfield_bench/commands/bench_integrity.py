"""``canfield-race bench-integrity``: tell honest from not, and print the flag rates."""

from __future__ import annotations

import argparse
import json
import sys

HELP = "race solver lines and honest bots against a local server; print its flag rates"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--races", type=int, default=200, help="races, half each class (200)")
    parser.add_argument(
        "--paces", default="0.3,1,2", help="median think times in s, comma-separated (0.3,1,2)"
    )
    parser.add_argument("--concurrency", type=int, default=200, help="races at once (200)")
    parser.add_argument("--race-timeout", type=float, default=1200.0, help="one race's limit, s")
    parser.add_argument("--seed", type=int, default=1, help="deals and paces (1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    from ..integrity_bench import format_summary
    from ..integrity_bench import run as run_bench

    try:
        paces = [float(p) for p in args.paces.split(",")]
    except ValueError:
        paces = []
    if not 2 <= args.races <= 2000 or not paces or min(paces) < 0 or args.concurrency < 1:
        print(
            "canfield-race bench-integrity: need 2 <= races <= 2000, paces >= 0, concurrency >= 1",
            file=sys.stderr,
        )
        return 2
    out = run_bench(
        args.races,
        paces,
        args.concurrency,
        race_timeout_s=args.race_timeout,
        seed=args.seed,
        progress=lambda text: print(f"bench-integrity: {text}", file=sys.stderr, flush=True),
    )
    print(json.dumps(out) if args.json else format_summary(out))
    return 0
