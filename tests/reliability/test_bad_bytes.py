"""Bytes that are not UTF-8 in a text frame: a quiet close, not a log flood.

Promise: a text frame that is not valid UTF-8 closes its connection with
1007 (invalid frame payload data), the server logs it once in a while as
one warning line (never a traceback), and everyone else plays on.
"""

from __future__ import annotations

import asyncio

import websockets

from tests.conftest import ServerFactory
from tests.reliability.conftest import OPEN_ENV, TIMEOUT, healthz, lobby
from tests.server.conftest import Connect

BAD_FRAMES = 50
#: not UTF-8: a lone continuation byte, an over-long form, a truncated sequence
BAD = [b"\x80", b'{"type":"ping","t":1}\xc0\xaf', b"\xe2\x82", b"\xff\xfe\xfd"]


async def test_invalid_utf8_closes_with_1007_and_logs_one_quiet_line(
    server_factory: ServerFactory,
    connect: Connect,
) -> None:
    srv = server_factory(env=OPEN_ENV)
    room, (host, guest) = await lobby(connect, srv.ws_url, ["Ann", "Bob"])

    async def send_bad(payload: bytes) -> int | None:
        async with websockets.connect(srv.ws_url, open_timeout=TIMEOUT) as ws:
            await ws.send(payload, text=True)
            async with asyncio.timeout(TIMEOUT):
                try:
                    while True:
                        await ws.recv()
                except websockets.ConnectionClosed as closed:
                    return closed.rcvd.code if closed.rcvd else None

    codes = await asyncio.gather(*(send_bad(BAD[n % len(BAD)]) for n in range(BAD_FRAMES)))
    assert codes == [1007] * BAD_FRAMES

    # the room is untouched and answers
    reply = await host.request("pong", type="ping", t=7)
    assert reply["type"] == "pong"
    assert healthz(srv.http_url) == 200
    log = srv.log_path.read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]
    warnings = [line for line in log.splitlines() if "UTF-8" in line]
    assert 1 <= len(warnings) <= 1, warnings
    assert room in host.joined["room"] and guest.joined["type"] == "joined"
