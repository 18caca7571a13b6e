"""A client cannot pick its own address: not through the proxy, not without one.

Promise (docs/security.md "Client addresses"): every per-address limit -
guessing room codes and its lockout, rooms created, joins, open
connections - counts the address the edge saw. A client that writes a new
``X-Forwarded-For`` (and ``X-Real-IP``, ``Forwarded``) on every connection
is limited exactly as one that sends none, both through the shipped proxy
shape (deploy/nginx.conf in front, the server trusting the proxy's address
only, as docker-compose.yml sets it) and against ``serve`` alone (which
trusts a proxy on its own host, 127.0.0.1, and nobody else). Two clients
on other loopback addresses run the same steps side by side; their answers
must be the same, and limited.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest
import websockets
from websockets.exceptions import InvalidStatus

from tests.conftest import ServerFactory
from tests.deploy import conftest as deploy_conftest
from tests.deploy.conftest import BEHIND_NGINX, FAST_ENV, NginxFactory

TIMEOUT = 20.0
LIMITS = {
    "CANFIELD_ROOM_MISSES_BURST": "3",
    "CANFIELD_ROOM_MISSES_PER_S": "0.001",
    "CANFIELD_JOINS_PER_IP_BURST": "5",
    "CANFIELD_JOINS_PER_IP_PER_S": "0.001",
    "CANFIELD_MAX_OPEN_ROOMS_PER_IP": "2",
    "CANFIELD_MAX_CONNS_PER_IP": "4",
}
#: open connections per client address (nginx limit_conn here, the server's cap alone)
CONN_CAP = 4
#: each step's answers, for a client that is limited as it should be
EXPECTED = {
    "connections": ["open"] * CONN_CAP + ["503"],
    # three misses, then locked out: the real room too
    "guesses": ["unknown-room"] * 3 + ["rate-limited"] * 3 + ["rate-limited"],
    "joins": ["joined"] * 5 + ["rate-limited"],
    "creates": ["joined", "joined", "rate-limited"],
}
#: each step from its own address (127.0.1.N without headers, 127.0.2.N with
#: made-up ones), so one step's budget does not spill into the next
HONEST, SPOOFER, HOST = "127.0.1", "127.0.2", "127.0.0.4"
_made_up = itertools.count(1)


def made_up_headers() -> list[tuple[str, str]]:
    """A new address every time (loopback ones: no traffic goes anywhere)."""
    n = next(_made_up)
    fake = f"127.{n % 250 + 1}.{n // 250 % 250 + 1}.9"
    return [
        ("X-Forwarded-For", f"{fake}, 127.200.{n % 250}.1"),
        ("X-Real-IP", fake),
        ("Forwarded", f"for={fake}"),
    ]


class Visitor:
    """One client address; the spoofer writes made-up headers on every connection."""

    def __init__(self, url: str, address: str, spoof: bool) -> None:
        self.url, self.address, self.spoof = url, address, spoof

    def at(self, step: int) -> Visitor:
        return Visitor(self.url, f"{self.address}.{step}", self.spoof)

    async def open(self) -> websockets.ClientConnection:
        headers = made_up_headers() if self.spoof else []
        return await websockets.connect(
            self.url,
            open_timeout=TIMEOUT,
            local_addr=(self.address, 0),
            additional_headers=headers,
        )

    async def ask(self, **msg: Any) -> str:
        """One request on a fresh connection: ``joined`` or the error code."""
        async with await self.open() as ws:
            await ws.send(json.dumps(msg))
            async with asyncio.timeout(TIMEOUT):
                while True:
                    reply = json.loads(await ws.recv())
                    if reply["type"] in ("joined", "error"):
                        return reply.get("code", reply["type"])

    async def connections(self) -> list[str]:
        opened: list[websockets.ClientConnection] = []
        seen = []
        try:
            for _ in range(CONN_CAP + 1):
                try:
                    opened.append(await self.open())
                    seen.append("open")
                except InvalidStatus as refused:
                    seen.append(str(refused.response.status_code))
        finally:
            for ws in opened:
                await ws.close()
        return seen

    async def steps(self, room: str) -> dict[str, list[str]]:
        seen = {"connections": await self.at(1).connections()}
        guesser = self.at(2)
        seen["guesses"] = [
            await guesser.ask(type="join", room=code, name="Guess")
            for code in ("ZZZZZ2", "ZZZZZ3", "ZZZZZ4", "ZZZZZ5", "ZZZZZ6", "ZZZZZ7", room)
        ]
        joiner = self.at(3)
        seen["joins"] = [
            await joiner.ask(type="join", room=room, name=f"Fan {n}", role="spectator")
            for n in range(6)
        ]
        creator = self.at(4)
        seen["creates"] = [await creator.ask(type="create", name=f"Host {n}") for n in range(3)]
        return seen


async def run_both(url: str, tag: str) -> dict[str, dict[str, list[str]]]:
    """A host opens a room; then the honest client's steps, then the spoofer's."""
    async with await Visitor(url, HOST, spoof=False).open() as ws:
        await ws.send(json.dumps({"type": "create", "name": "Ann"}))
        async with asyncio.timeout(TIMEOUT):
            while (joined := json.loads(await ws.recv()))["type"] != "joined":
                pass
        honest = await Visitor(url, HONEST, spoof=False).steps(joined["room"])
        spoofer = await Visitor(url, SPOOFER, spoof=True).steps(joined["room"])
    for step in EXPECTED:
        print(f"\n{tag} {step}: no headers {honest[step]}; made-up headers {spoofer[step]}")
    return {"honest": honest, "spoofer": spoofer}


@pytest.fixture
def conn_cap_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """deploy/nginx.conf with its per-address connection cap cut to CONN_CAP."""
    site = deploy_conftest.NGINX_SITE.read_text()
    site, caps = re.subn(
        r"limit_conn canfield_addr \d+;", f"limit_conn canfield_addr {CONN_CAP};", site
    )
    assert caps == 1, "deploy/nginx.conf lost its per-address connection cap"
    assert "$proxy_add_x_forwarded_for" not in site  # never the client's own header
    (tmp_path / "nginx-site.conf").write_text(site)
    monkeypatch.setattr(deploy_conftest, "NGINX_SITE", tmp_path / "nginx-site.conf")


async def test_made_up_forwarded_headers_change_nothing_through_the_proxy(
    server_factory: ServerFactory,
    nginx_factory: NginxFactory,
    conn_cap_site: None,
) -> None:
    server = server_factory(env={**FAST_ENV, **BEHIND_NGINX, **LIMITS})
    proxy = nginx_factory([server.port])
    seen = await run_both(proxy.ws_url, "through nginx")
    assert seen["honest"] == EXPECTED
    assert seen["spoofer"] == EXPECTED


async def test_made_up_forwarded_headers_change_nothing_without_a_proxy(
    server_factory: ServerFactory,
) -> None:
    # serve's defaults: a proxy on its own host (127.0.0.1) only; these clients are not
    server = server_factory(env={**FAST_ENV, **LIMITS})
    seen = await run_both(server.ws_url, "serve alone")
    assert seen["honest"] == EXPECTED
    assert seen["spoofer"] == EXPECTED


async def test_the_proxy_hands_the_server_the_address_it_saw(
    server_factory: ServerFactory,
    nginx_factory: NginxFactory,
) -> None:
    """Two clients behind the proxy are two addresses to the server (the proxy's
    own is not everyone's): one's room-creation budget is not the other's."""
    server = server_factory(env={**FAST_ENV, **BEHIND_NGINX, "CANFIELD_MAX_OPEN_ROOMS_PER_IP": "1"})
    proxy = nginx_factory([server.port])
    one, two = (
        Visitor(proxy.ws_url, HONEST, False).at(1),
        Visitor(proxy.ws_url, HONEST, False).at(2),
    )
    first = [await one.ask(type="create", name="A") for _ in "ab"]
    other = await two.ask(type="create", name="B")
    assert first == ["joined", "rate-limited"]
    assert other == "joined"
