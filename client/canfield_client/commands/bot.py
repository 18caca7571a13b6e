"""``canfield-race bot ROOM-OR-LINK``: join a room and race as a bot."""

from __future__ import annotations

import argparse
import asyncio

from ..client import ServerError, room_from_link, ws_url_from_link
from ..strategy import LEVELS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("room", metavar="ROOM-OR-LINK", help="room code or share link (…/r/CODE)")
    parser.add_argument(
        "--server",
        default=None,
        help="WebSocket URL (default: from the link, else ws://127.0.0.1:8000/ws)",
    )
    parser.add_argument("--name", default="Bot", help="display name (default: Bot)")
    parser.add_argument(
        "--pace", type=float, default=0.5, metavar="SECONDS", help="pause before each move"
    )
    parser.add_argument("--strength", choices=sorted(LEVELS), default="normal")
    parser.add_argument(
        "--races", type=int, default=None, help="stop after this many races (default: stay)"
    )


def run(args: argparse.Namespace) -> int:
    from ..bot import run_bot

    url = args.server or ws_url_from_link(args.room) or "ws://127.0.0.1:8000/ws"
    room = room_from_link(args.room)
    try:
        played = asyncio.run(
            run_bot(
                url, room, args.name, pace_s=args.pace, strength=args.strength, races=args.races
            )
        )
    except ServerError as exc:
        print(f"canfield-race bot: {exc}")
        return 1
    except OSError as exc:
        print(f"canfield-race bot: cannot reach {url}: {exc}")
        return 1
    except KeyboardInterrupt:
        return 130
    print(f"raced {played} race(s) in room {room}")
    return 0
