"""The physical limit to compare against: a bare WebSocket echo with one Redis call.

Each text frame costs exactly one ``EVALSHA`` (a script that stores the
frame under the connection's key and returns it) and is sent straight
back. No parsing, no rules, no broadcast: whatever the real server does
beyond this is the price of the game. ``canfield-race baseline`` serves
it; ``canfield-race bench`` runs that as its own process against the
same Redis and loads it with the same generator.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncIterator

import redis.asyncio as aioredis
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

__all__ = ["build_app", "SCRIPT"]

#: store the frame, return it: one round trip and one write, like a move
SCRIPT = "redis.call('SET', KEYS[1], ARGV[1], 'EX', 600) return ARGV[1]"


def build_app(redis_url: str) -> Starlette:
    # the server's pool size; blocking, so a burst waits instead of failing
    pool = aioredis.BlockingConnectionPool.from_url(redis_url, max_connections=256, timeout=30)
    client = aioredis.Redis(connection_pool=pool)
    state: dict[str, str] = {}
    ids = itertools.count(1)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state["sha"] = await client.script_load(SCRIPT)
        yield
        await client.aclose()

    async def healthz(request: object) -> PlainTextResponse:
        return PlainTextResponse("ok")

    async def echo(ws: WebSocket) -> None:
        await ws.accept()
        key = f"baseline:{next(ids)}"
        sha = state["sha"]
        try:
            while True:
                frame = await ws.receive_text()
                reply = await client.evalsha(sha, 1, key, frame)
                await ws.send_text(reply.decode() if isinstance(reply, bytes) else reply)
        except WebSocketDisconnect:
            pass

    return Starlette(
        routes=[Route("/healthz", healthz), WebSocketRoute("/ws", echo)],
        lifespan=lifespan,
    )
