"""``canfield-race deal CODE [--json]``: show every card of a deal."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from canfield import DealCode, InvalidDealCodeError

HELP = "print the deal for a deal code"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("code", help="a deal code such as CF1-D3-AAAAACL or CF2-D3-<26 characters>")
    parser.add_argument(
        "--json",
        action="store_true",
        help='print {"code", "draw", "reserve", "base", "tableau", "stock"} as JSON',
    )


def describe(layout: dict[str, Any]) -> str:
    """The deal as lines a person reads; piles bottom first, like the JSON."""
    mode = "three cards a tap" if layout["draw"] == 3 else "one card a tap"
    columns = "   ".join(f"{i}: {col[0]}" for i, col in enumerate(layout["tableau"], 1))
    return "\n".join(
        [
            f"Deal {layout['code']} (Draw {layout['draw']}: {mode})",
            f"Reserve, bottom to top ({len(layout['reserve'])}): " + " ".join(layout["reserve"]),
            f"Base card: {layout['base']} (every foundation starts at {layout['base'][0]})",
            f"Columns: {columns}",
            f"Stock, first turned first ({len(layout['stock'])}): " + " ".join(layout["stock"]),
        ]
    )


def read_code(text: str, command: str) -> DealCode | None:
    """The deal code in ``text``, or None once the error is on stderr."""
    try:
        return DealCode.parse(text)
    except InvalidDealCodeError as exc:
        print(f"canfield-race {command}: {exc}", file=sys.stderr)
        return None


def run(args: argparse.Namespace) -> int:
    code = read_code(args.code, "deal")
    if code is None:
        return 2
    layout = code.layout()
    print(json.dumps(layout) if args.json else describe(layout))
    return 0
