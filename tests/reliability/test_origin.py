"""The Origin check on the WebSocket handshake (``CANFIELD_ALLOWED_ORIGINS``).

A page from another site must not open a socket with the visitor's
browser: its Origin is refused before the upgrade. Listed origins are
accepted. A handshake without Origin comes from a non-browser client
(the bots, the Python client), which could send any Origin anyway: it
is accepted, so bots still join a room on a server with an allow-list.
"""

from __future__ import annotations

import pytest
import websockets
from canfield_bench.processes import ServerProcess
from websockets.typing import Origin

from tests.conftest import ServerFactory
from tests.reliability.conftest import FAST_ENV, Client
from tests.server.conftest import Connect

ALLOWED = ("https://cards.example", "http://localhost:8000")
ENV = {**FAST_ENV, "CANFIELD_ALLOWED_ORIGINS": ",".join(ALLOWED)}


@pytest.fixture
def guarded(server_factory: ServerFactory) -> ServerProcess:
    return server_factory(env=ENV)


REFUSED = [
    "https://evil.example",
    "null",
    "https://cards.example.evil.test",
    "http://cards.example",
]


async def test_an_origin_not_listed_is_refused(guarded: ServerProcess) -> None:
    for origin in REFUSED:
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(guarded.ws_url, origin=Origin(origin), open_timeout=10)
        assert refused.value.response.status_code == 403, origin


async def test_listed_origins_and_non_browser_clients_are_accepted(
    guarded: ServerProcess, connect: Connect
) -> None:
    for origin in ALLOWED:
        async with websockets.connect(guarded.ws_url, origin=Origin(origin), open_timeout=10) as ws:
            assert (await Client(ws).request("pong", type="ping", t=1))["t"] == 1
    host = await connect(guarded.ws_url)  # no Origin header at all
    await host.create("Ann")
    await host.send(type="add_bot", pace_s=0.05)
    room = await host.expect("room", lambda m: len(m["members"]) == 2)
    assert room["members"][1]["name"].startswith("Bot")
