"""``canfield-race bot ROOM-OR-LINK``: join a room and race as a bot.

``canfield-race bot --daily [--draw 1|3]`` plays today's daily deal once and
prints the standing. ``canfield-race bot --study N`` instead plays N random deals offline at
each strength (the deals of ``solve --study`` with the same seed) and
prints how many it wins, beside the solver's verdicts when given.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from ..strategy import LEVELS

HELP = "join a room and race as a bot"

T = TypeVar("T")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "room", metavar="ROOM-OR-LINK", nargs="?", help="room code or share link (…/r/CODE)"
    )
    parser.add_argument(
        "--server",
        default=None,
        help="WebSocket URL (default: from the link, else ws://127.0.0.1:8000/ws)",
    )
    parser.add_argument("--name", default="Bot", help="display name (default: Bot)")
    parser.add_argument(
        "--pace", type=float, default=0.5, metavar="SECONDS", help="pause before each move"
    )
    parser.add_argument(
        "--strength", choices=sorted(LEVELS), default=None, help="default: normal (study: all)"
    )
    parser.add_argument(
        "--races", type=int, default=None, help="stop after this many races (default: stay)"
    )
    daily = parser.add_argument_group("daily race (instead of ROOM-OR-LINK)")
    daily.add_argument(
        "--daily",
        action="store_true",
        help="play today's daily deal (--draw) once, then print the standing",
    )
    daily.add_argument(
        "--identity",
        metavar="TOKEN",
        default=None,
        help="play as this identity, as --identity=TOKEN (a token may start with -)",
    )
    study = parser.add_argument_group("study (instead of ROOM-OR-LINK)")
    study.add_argument("--study", type=int, metavar="N", help="play N random deals offline")
    study.add_argument(
        "--draw", type=int, choices=(1, 3), default=3, help="draw mode (study, daily)"
    )
    study.add_argument("--seed", type=int, default=1, help="seed of solve --study's codes")
    study.add_argument(
        "--verdicts", metavar="FILE", help="solve --study --out FILE lines for the same deals"
    )
    study.add_argument("--jobs", type=int, default=1, help="worker processes")
    study.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    if args.study is not None:
        return _study(args)
    if args.daily:
        return _daily(args)
    if not args.room:
        print("canfield-race bot: give a room code or link (or --study N)")
        return 2
    from ..bot import run_bot
    from ..client import room_from_link, ws_url_from_link

    url = args.server or ws_url_from_link(args.room) or "ws://127.0.0.1:8000/ws"
    room = room_from_link(args.room)
    bot = run_bot(
        url, room, args.name, pace_s=args.pace, strength=args.strength or "normal", races=args.races
    )
    played, failed = _race(url, bot)
    if failed is not None:
        return failed
    print(f"raced {played} race(s) in room {room}")
    return 0


def _race(url: str, bot: Coroutine[Any, Any, T]) -> tuple[T | None, int | None]:
    """Run a bot to its end: its result, or the exit code of a clear failure."""
    from ..client import ServerError

    try:
        return asyncio.run(bot), None
    except ServerError as exc:
        print(f"canfield-race bot: {exc}")
        return None, 1
    except OSError as exc:
        print(f"canfield-race bot: cannot reach {url}: {exc}")
        return None, 1
    except KeyboardInterrupt:
        return None, 130


def _daily(args: argparse.Namespace) -> int:
    from ..bot import run_daily

    url = args.server or "ws://127.0.0.1:8000/ws"
    bot = run_daily(
        url,
        args.name,
        draw=args.draw,
        pace_s=args.pace,
        strength=args.strength or "normal",
        identity=args.identity,
    )
    result, failed = _race(url, bot)
    if result is None:
        return failed or 1
    client, standing = result
    if args.identity is None:
        print(f"identity: {client.identity_token} (play as it again with --identity=TOKEN)")
    mine = client.daily_finished
    if mine is not None:
        row = mine.row
        print(
            f"daily {mine.date} draw {mine.draw}: {row.status}, {row.on_foundations} cards home,"
            f" {row.time_ms / 1000:.1f} s, {row.moves} moves; place {row.rank} of {mine.players};"
            f" streak {mine.streak}"
        )
    print(f"standing of {standing.date} (draw {standing.draw}), {standing.players} player(s):")
    for r in standing.rows:
        print(
            f"  {r.rank:>3}. {r.name:<24} {r.status:<9} {r.on_foundations:>2} cards"
            f" {r.time_ms / 1000:>8.1f} s {r.moves:>5} moves"
        )
    return 0


def _study(args: argparse.Namespace) -> int:
    import json

    from ..study import format_study, load_verdicts, play_deals, study_codes, study_table

    if args.study < 1 or args.jobs < 1:
        print("canfield-race bot: --study and --jobs must be at least 1")
        return 2
    codes = study_codes(args.study, args.draw, args.seed)
    strengths = [args.strength] if args.strength else list(LEVELS)
    verdicts = load_verdicts(args.verdicts) if args.verdicts else {}
    table = study_table(codes, play_deals(codes, strengths, args.jobs), verdicts)
    if args.json:
        print(json.dumps({"draw": args.draw, "seed": args.seed, **table}))
    else:
        print(format_study(table, args.draw))
    return 0
