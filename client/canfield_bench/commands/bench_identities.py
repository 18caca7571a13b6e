"""``canfield-race bench-identities``: how many new identities a flood from one address gets."""

from __future__ import annotations

import argparse
import json

HELP = "flood identify (no token) from one address and count identities issued and refused"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="a server's /ws to flood (default: start one, as shipped)")
    parser.add_argument("--connections", type=int, default=4, help="connections (default 4)")
    parser.add_argument(
        "--seconds", type=float, default=20.0, help="how long to flood (default 20)"
    )
    parser.add_argument(
        "--address",
        default="198.51.100.7",
        help="the client address sent as X-Forwarded-For (empty: none; default 198.51.100.7)",
    )
    parser.add_argument(
        "--no-budget",
        action="store_true",
        help="the server started here has no identity budget (CANFIELD_IDENTITY_BURST=0)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def run(args: argparse.Namespace) -> int:
    from canfield_bench.identity_flood import format_flood, run_flood

    out = run_flood(
        args.url, args.connections, args.seconds, args.address, budget=not args.no_budget
    )
    print(json.dumps(out, indent=2) if args.json else format_flood(out))
    return 0


if __name__ == "__main__":  # before the package is reinstalled with its entry point
    parser = argparse.ArgumentParser(description=HELP)
    add_arguments(parser)
    raise SystemExit(run(parser.parse_args()))
