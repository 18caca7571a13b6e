"""A connection's frames written at once by the server's own WebSocket protocol
(transport/ws_protocol.py ``GuardedWebSocket.write_texts``), else queued
(transport/ws.py ``WsPeer``).

uvicorn runs in this process with the guarded protocols ``serve`` uses and a
small ASGI app that keeps each connection's ``WsPeer``; real websockets clients
read what it sends.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import uvicorn
import websockets
from canfield_bench.processes import free_port
from canfield_server.ops.config import Settings
from canfield_server.transport.guard import uvicorn_protocols
from canfield_server.transport.ws import WsPeer
from canfield_server.transport.ws_protocol import text_frame_head
from starlette.types import Receive, Scope, Send
from websockets.frames import Frame, Opcode

TIMEOUT = 20.0


class _App:
    """Accepts every WebSocket and hands its peer to the test."""

    def __init__(self, max_queued: int = 512) -> None:
        self.peers: asyncio.Queue[WsPeer] = asyncio.Queue()
        self.max_queued = max_queued

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "websocket"
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        peer = WsPeer(send, max_queued=self.max_queued)
        writer = asyncio.ensure_future(peer.writer())
        await self.peers.put(peer)
        while (await receive())["type"] != "websocket.disconnect":
            pass
        peer.close(1000, "bye")
        with contextlib.suppress(Exception):
            async with asyncio.timeout(TIMEOUT):
                await writer


@contextlib.asynccontextmanager
async def served(app: _App) -> AsyncIterator[str]:
    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        lifespan="off",
        log_level="warning",
        log_config=None,
        ws_per_message_deflate=False,
        **uvicorn_protocols(Settings()),
    )
    server = uvicorn.Server(config)
    task = asyncio.ensure_future(server.serve())
    async with asyncio.timeout(TIMEOUT):
        while not server.started:  # uvicorn offers no event for "listening"
            await asyncio.sleep(0.01)
    try:
        yield f"ws://127.0.0.1:{port}/ws"
    finally:
        server.should_exit = True
        await task


def test_a_frame_head_is_what_websockets_writes() -> None:
    for size in (0, 125, 126, 65535, 65536, 70_000):
        data = b"x" * size
        assert text_frame_head(size) + data == Frame(Opcode.TEXT, data).serialize(
            mask=False, extensions=[]
        )


async def test_frames_written_at_once_and_queued_arrive_whole_and_in_order() -> None:
    app = _App()
    texts = ["a", "č" * 200, "{}" * 40_000, "b"]
    async with served(app) as url, websockets.connect(url, open_timeout=TIMEOUT) as ws:
        async with asyncio.timeout(TIMEOUT):
            peer = await app.peers.get()
        assert peer.write_now is not None  # the server's own protocol: the direct way
        for text in texts:  # nothing queued before each: written at once
            peer.send(text)
        peer.replying = True  # as the reader does while it answers a message
        for text in texts:
            peer.send(text)
        await peer.flush()  # the replies, together
        async with asyncio.timeout(TIMEOUT):
            got = [await ws.recv() for _ in range(len(texts) * 2)]
        assert got == texts * 2


async def test_a_client_that_reads_nothing_is_dropped_and_the_server_never_waits() -> None:
    """Its socket fills, frames pile up in its queue (never in the sender's way),
    and past the limit the connection is closed; another client is served."""
    app = _App(max_queued=8)
    big = "x" * 60_000
    async with served(app) as url:
        reader, writer = await asyncio.open_connection("127.0.0.1", int(url.split(":")[2][:-3]))
        writer.write(
            b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        async with asyncio.timeout(TIMEOUT):
            deaf = await app.peers.get()
        async with asyncio.timeout(TIMEOUT):
            while not deaf._closing:  # each send returns at once; the socket fills
                deaf.send(big)
                await asyncio.sleep(0)
        assert deaf._closing == (1008, "too slow: messages piled up")
        async with websockets.connect(url, open_timeout=TIMEOUT) as ws:
            async with asyncio.timeout(TIMEOUT):
                other = await app.peers.get()
            other.send("still served")
            async with asyncio.timeout(TIMEOUT):
                assert await ws.recv() == "still served"
        writer.close()
