"""``canfield-race baseline``: the bare baseline the bench compares against.

A WebSocket echo with one Redis script call per frame
(``canfield_server.ops.baseline``) on the same uvicorn stack as
``serve``; ``canfield-race bench`` starts it against the same Redis and
loads it with the same generator.
"""

from __future__ import annotations

import argparse

__all__ = ["HELP", "add_arguments", "run"]

HELP = "run the bare baseline endpoint that bench compares against"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8001, help="TCP port (default 8001)")
    parser.add_argument("--redis-url", required=True, help="the Redis to call once per frame")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from canfield_server.commands.serve import _uvicorn_options
    from canfield_server.ops.baseline import build_app

    # the same server stack as ``canfield-race serve``
    uvicorn.run(
        build_app(args.redis_url),
        host=args.host,
        port=args.port,
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        log_level="warning",
        lifespan="on",
        **_uvicorn_options(),
    )
    return 0
