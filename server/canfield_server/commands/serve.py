"""``canfield-race serve``: run the race server on uvicorn.

Without ``--redis-url`` (or ``REDIS_URL``) it starts the bundled
redis-server under ``DATA_DIR/redis`` and stops it on exit, so one
command runs everything on a machine with no Redis installed. That
redis-server is supervised (restarted on its data if it dies) and dies
with this process, as do the solver workers, even on SIGKILL.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import signal
import socket
from pathlib import Path
from types import FrameType
from typing import Any

__all__ = ["HELP", "add_arguments", "run"]

log = logging.getLogger("canfield_server")


HELP = "run the race server"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default=None, help="interface to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=None, help="TCP port (8000)")
    parser.add_argument(
        "--redis-url", default=None, help="use this Redis (else REDIS_URL, else embedded)"
    )
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="embedded Redis data (./canfield-data)"
    )


def _uvicorn_options(settings: Any = None) -> dict[str, Any]:
    """The fastest parts installed (uvloop and httptools when present); with the
    server's ``settings``, the HTTP and WebSocket protocols guarded against slow
    clients (header deadline, connections per address: transport/guard.py)."""
    from canfield_server.transport.guard import uvicorn_protocols

    options: dict[str, Any] = {"loop": "asyncio", "http": "h11"}
    try:
        import uvloop  # noqa: F401

        options["loop"] = "uvloop"
    except ImportError:
        pass
    try:
        import httptools  # noqa: F401

        options["http"] = "httptools"
    except ImportError:
        pass
    if settings is not None:
        options.update(uvicorn_protocols(settings, options["http"]))
        # X-Forwarded-For only from the proxies named, never from anyone else
        trusted = settings.trusted_proxies.strip()
        options["proxy_headers"] = trusted.lower() not in ("", "none")
        options["forwarded_allow_ips"] = trusted if options["proxy_headers"] else "127.0.0.1"
        if trusted == "*":
            log.warning(
                "CANFIELD_TRUSTED_PROXIES=*: X-Forwarded-For is taken from every peer, so a "
                "client that reaches this port directly picks its own address for every "
                "per-address limit; name the proxy's address instead (docs/operations.md)"
            )
    return options


def _exit_quietly(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from canfield_server.ops.config import Settings
    from canfield_server.ops.logs import configure as configure_logs
    from canfield_server.ops.logs import event
    from canfield_server.storage.embedded_redis import EmbeddedRedis
    from canfield_server.transport.app import create_app
    from canfield_server.transport.drain import DEFAULT_DRAIN_S

    settings = Settings.from_env(
        host=args.host, port=args.port, redis_url=args.redis_url, data_dir=args.data_dir
    )
    configure_logs(json_lines=settings.log_json, instance=settings.instance)
    embedded = None
    if not settings.redis_url:
        # supervised: restarted on its data if it dies (its AOF replays)
        embedded = EmbeddedRedis(settings.data_dir / "redis").start().supervise()
        settings.redis_url = embedded.url
        log.info("embedded redis-server at %s (data in %s)", embedded.url, embedded.data_dir)
    # /healthz says "restarting" while the embedded redis-server is down
    app = create_app(settings, embedded_redis=embedded)

    class Server(uvicorn.Server):
        """On SIGTERM/SIGINT, tell every client to reconnect before closing."""

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            # what is loaded by now lives as long as the process: keep it out
            # of the collector's full passes, which would otherwise walk it
            # all and pause every room for tens of milliseconds
            gc.collect()
            gc.freeze()
            # SIGUSR1: drain (transport.drain) - no new connections, every client
            # told to reconnect elsewhere, exit when empty or after DEFAULT_DRAIN_S
            asyncio.get_running_loop().add_signal_handler(
                signal.SIGUSR1, lambda: app.drain.start(DEFAULT_DRAIN_S, "SIGUSR1")
            )
            if self.started:  # say where to go, once the port is really open
                shown = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "") else settings.host
                url = f"http://{shown}:{settings.port}"
                if settings.log_json:  # a log of JSON lines stays JSON lines
                    event(log, "server.ready", url=url)
                else:
                    print(f"Canfield Race is running: open {url} (Ctrl-C stops it)", flush=True)

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if not self.should_exit:
                for listener in self.servers:  # stop accepting first, so clients
                    listener.close()  # told to reconnect land on another process
                asyncio.get_running_loop().create_task(app.hub.shutdown())
            super().handle_exit(sig, frame)

    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        ws_max_size=64 * 1024,
        ws_per_message_deflate=False,
        lifespan="on",
        log_level="warning",
        log_config=None,  # keep the structured handler configure_logs installed
        timeout_graceful_shutdown=5,
        **_uvicorn_options(settings),  # http= and ws= (guarded websockets-sansio)
    )
    # uvicorn re-raises SIGTERM after its graceful shutdown; turn that into a
    # normal exit so the embedded Redis below is stopped, not orphaned
    signal.signal(signal.SIGTERM, _exit_quietly)
    try:
        Server(config).run()
    except (SystemExit, KeyboardInterrupt):
        # Ctrl-C: uvicorn stops gracefully, then raises the SIGINT again for the
        # event loop's runner, which turns it into KeyboardInterrupt; the stop
        # asked for is done, so it ends here as a normal exit, not a traceback
        pass
    finally:
        if embedded is not None:
            embedded.cleanup()
    return 0
