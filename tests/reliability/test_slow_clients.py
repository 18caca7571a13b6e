"""Slow and silent clients cannot hold the server's sockets (transport/guard.py,
admission.py, ws_protocol.py, ws.py).

Real server processes on loopback, raw TCP sockets for the attackers and
real websockets clients for the people. The server listens on 127.0.0.1;
other loopback addresses (127.0.0.2, 127.0.0.3) are other clients. Each
server gets ``CANFIELD_TRUSTED_PROXIES`` set to an address nobody uses, so
127.0.0.1 counts as a client here and not as a trusted proxy (proxies are
not capped per address: the last test).

Two more tests run uvicorn in this process with both HTTP parsers (httptools,
which ``serve`` uses when installed, and h11, its fallback), so the header
deadline is proven for each parser, on a kept-alive connection too.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import resource
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import uvicorn
import websockets
from canfield_bench.processes import free_port
from canfield_server.ops.config import Settings
from canfield_server.transport.admission import ConnectionGuard
from canfield_server.transport.guard import uvicorn_protocols
from starlette.types import Receive, Scope, Send
from websockets.exceptions import InvalidStatus

from tests.conftest import ServerFactory
from tests.deploy import conftest as deploy_conftest
from tests.deploy.conftest import NginxFactory
from tests.reliability.conftest import DEAL, FAST_ENV, TIMEOUT, Client, play, start

REPO = Path(__file__).resolve().parents[2]
#: tests/deploy's fixture: Debian's nginx with deploy/nginx.conf, on loopback
nginx_factory = deploy_conftest.nginx_factory

#: a loopback address no test connects from: the only "proxy" the servers trust
NOBODY = "127.0.0.254"
HEADER_S = 1.0
PARTIAL = b"GET / HTTP/1.1\r\nHost: canfield\r\nUser-Agent: slow"  # never finished


#: every test here may open ~450 sockets at once (``enough_descriptors``, conftest.py)
pytestmark = pytest.mark.usefixtures("enough_descriptors")


def guarded_env(**settings: str) -> dict[str, str]:
    return {**FAST_ENV, "CANFIELD_TRUSTED_PROXIES": NOBODY, **settings}


async def ws_from(url: str, address: str) -> Client:
    ws = await websockets.connect(url, open_timeout=TIMEOUT, local_addr=(address, 0))
    return Client(ws)


async def half_open(port: int, address: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP connection with a request that never ends."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
    writer.write(PARTIAL)
    await writer.drain()
    return reader, writer


async def answer(reader: asyncio.StreamReader) -> str:
    """What the server said before it closed the connection: its status, or a reset."""
    try:
        data = await reader.read()
    except ConnectionResetError:
        return "reset"
    return data.split(b"\r\n", 1)[0].decode() if data else "closed"


async def test_400_half_open_sockets_are_closed_and_a_player_elsewhere_races(
    server_factory: ServerFactory,
) -> None:
    """The attack as found: 400 sockets that never finish their headers, against a
    process allowed 200 descriptors (then 174 of them locked every client out).
    Now one address holds at most 64 (the rest are refused at once, 503 or a
    reset), those 64 are answered 408 and closed after the 1 s header limit, and
    a player on another address gets in, while the flood is open, and races."""
    server = server_factory(
        env=guarded_env(CANFIELD_HEADER_TIMEOUT_S=str(HEADER_S), CANFIELD_MAX_CONNS_PER_IP="64")
    )
    assert server.pid is not None
    _, hard = resource.prlimit(server.pid, resource.RLIMIT_NOFILE)
    resource.prlimit(server.pid, resource.RLIMIT_NOFILE, (200, hard))

    opened_at = time.monotonic()
    flood = [await half_open(server.port, "127.0.0.1") for _ in range(400)]
    flood_open_s = time.monotonic() - opened_at
    endings = [asyncio.ensure_future(answer(reader)) for reader, _ in flood]
    closed_at: list[float] = []
    for ending in endings:
        ending.add_done_callback(lambda _: closed_at.append(time.monotonic()))

    player = await ws_from(server.ws_url, "127.0.0.2")
    joined = await player.create("Pat", deal=DEAL)
    assert joined["type"] == "joined"
    await start([player])
    acks = await play(player, ["S", "S", "S"])
    assert len(acks) == 3

    async with asyncio.timeout(HEADER_S + flood_open_s + 10):
        answers = Counter(await asyncio.gather(*endings))
    last_close_s = max(closed_at) - opened_at
    print(
        f"\n400 half-open from one address in {flood_open_s:.2f} s: {dict(answers)}; "
        f"the last closed {last_close_s:.2f} s after the first opened"
    )
    assert answers["HTTP/1.1 408 Request Timeout"] == 64, answers
    assert answers["HTTP/1.1 503 Service Unavailable"] + answers["reset"] == 336, answers
    assert last_close_s < flood_open_s + HEADER_S + 5
    for _, writer in flood:
        writer.close()
    await player.close()


async def test_past_the_cap_an_address_is_refused_and_others_get_in(
    server_factory: ServerFactory,
) -> None:
    """Eight WebSockets from 127.0.0.3 fill its cap: the ninth is answered 503
    (a plain socket reads the 503; a websockets client is refused the upgrade)
    while 127.0.0.2 gets in; a closed WebSocket gives its place back."""
    server = server_factory(env=guarded_env(CANFIELD_MAX_CONNS_PER_IP="8"))
    crowd = [await ws_from(server.ws_url, "127.0.0.3") for _ in range(8)]

    reader, writer = await asyncio.open_connection(
        "127.0.0.1", server.port, local_addr=("127.0.0.3", 0)
    )
    async with asyncio.timeout(TIMEOUT):
        assert await answer(reader) == "HTTP/1.1 503 Service Unavailable"
    writer.close()
    with pytest.raises((InvalidStatus, ConnectionResetError)) as refused:
        await ws_from(server.ws_url, "127.0.0.3")
    if isinstance(refused.value, InvalidStatus):
        assert refused.value.response.status_code == 503

    other = await ws_from(server.ws_url, "127.0.0.2")
    assert (await other.request("pong", type="ping", t=1))["type"] == "pong"

    await crowd.pop().close()  # returns once the server has closed its side
    crowd.append(await ws_from(server.ws_url, "127.0.0.3"))
    assert (await crowd[-1].request("pong", type="ping", t=2))["type"] == "pong"
    for client in [*crowd, other]:
        await client.close()


async def test_a_trusted_proxy_address_is_not_capped(server_factory: ServerFactory) -> None:
    """Every client behind a proxy shares its address; the proxy caps per client
    (nginx ``limit_conn``), so the addresses in CANFIELD_TRUSTED_PROXIES are not capped."""
    server = server_factory(
        env={**FAST_ENV, "CANFIELD_TRUSTED_PROXIES": "127.0.0.5", "CANFIELD_MAX_CONNS_PER_IP": "2"}
    )
    proxied = [await ws_from(server.ws_url, "127.0.0.5") for _ in range(6)]
    assert (await proxied[-1].request("pong", type="ping", t=1))["type"] == "pong"
    capped = [await ws_from(server.ws_url, "127.0.0.6") for _ in range(2)]
    with pytest.raises((InvalidStatus, ConnectionResetError)):
        await ws_from(server.ws_url, "127.0.0.6")
    for client in [*proxied, *capped]:
        await client.close()


async def test_an_idle_websocket_is_closed_and_one_that_pings_stays(
    server_factory: ServerFactory,
) -> None:
    """With a 1 s idle limit: a socket that sends nothing is closed with 1008 and a
    reason after about 1 s; one that pings every 0.3 s is open after 3 s, and so
    is a silent player in a room (members have no idle limit by default)."""
    server = server_factory(env=guarded_env(CANFIELD_WS_IDLE_S="1"))
    opened = time.monotonic()
    silent = await ws_from(server.ws_url, "127.0.0.2")
    pinger = await ws_from(server.ws_url, "127.0.0.2")
    seated = await ws_from(server.ws_url, "127.0.0.2")
    assert (await seated.create("Sid", deal=DEAL))["type"] == "joined"

    async def keep_pinging(seconds: float) -> int:
        pongs = 0
        while time.monotonic() - opened < seconds:
            reply = await pinger.request("pong", type="ping", t=pongs)
            assert reply["type"] == "pong", reply
            pongs += 1
            await asyncio.sleep(0.3)  # the behaviour under test: a ping now and then
        return pongs

    pinging = asyncio.ensure_future(keep_pinging(3.0))
    async with asyncio.timeout(TIMEOUT):
        await silent.ws.wait_closed()
    idle_s = time.monotonic() - opened
    assert silent.ws.close_code == 1008
    assert silent.ws.close_reason is not None
    assert silent.ws.close_reason.startswith("idle"), silent.ws.close_reason
    assert 1.0 <= idle_s < 3.0, idle_s
    pongs = await pinging
    print(
        f"\nsilent socket closed after {idle_s:.2f} s ({silent.ws.close_reason!r}); "
        f"the pinger got {pongs} pongs in 3 s"
    )
    assert pinger.ws.close_code is None and seated.ws.close_code is None
    assert (await seated.request("pong", type="ping", t=0))["type"] == "pong"
    await pinger.close()
    await seated.close()


async def test_a_silent_member_is_closed_when_members_have_a_limit(
    server_factory: ServerFactory,
) -> None:
    """``CANFIELD_WS_IDLE_MEMBER_S`` covers connections in a room."""
    server = server_factory(env=guarded_env(CANFIELD_WS_IDLE_S="0", CANFIELD_WS_IDLE_MEMBER_S="1"))
    outside = await ws_from(server.ws_url, "127.0.0.2")
    seated = await ws_from(server.ws_url, "127.0.0.2")
    assert (await seated.create("Sid", deal=DEAL))["type"] == "joined"
    async with asyncio.timeout(TIMEOUT):
        await seated.ws.wait_closed()
    assert seated.ws.close_code == 1008
    assert outside.ws.close_code is None
    assert (await outside.request("pong", type="ping", t=0))["type"] == "pong"
    await outside.close()


# ---------------------------------------------------------------- in process


async def _echo(scope: Scope, receive: Receive, send: Send) -> None:
    """A raw ASGI app: echoes WebSocket text, answers HTTP with ``ok``."""
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        while (message := await receive())["type"] == "websocket.receive":
            await send({"type": "websocket.send", "text": message["text"]})
        return
    if scope["type"] != "http":
        return
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]}
    )
    await send({"type": "http.response.body", "body": b"ok"})


@contextlib.asynccontextmanager
async def local_server(
    http: str, ping_s: float | None = None
) -> AsyncIterator[tuple[int, ConnectionGuard]]:
    """uvicorn in this process with the guarded protocols; on the way out, once
    every connection is closed, no address may still hold a count. ``ping_s``:
    the keepalive ping interval and timeout (uvicorn's default: 20 s)."""
    settings = Settings(header_timeout_s=HEADER_S, max_conns_per_ip=16)
    port = free_port()
    protocols = uvicorn_protocols(settings, http)
    config = uvicorn.Config(
        _echo,
        host="127.0.0.1",
        port=port,
        lifespan="off",
        log_level="warning",
        log_config=None,
        forwarded_allow_ips=NOBODY,  # 127.0.0.1 is a client, counted
        ws_ping_interval=ping_s or 20.0,
        ws_ping_timeout=ping_s or 20.0,
        **protocols,
    )
    server = uvicorn.Server(config)
    task = asyncio.ensure_future(server.serve())
    async with asyncio.timeout(TIMEOUT):
        while not server.started:  # uvicorn offers no event for "listening"
            await asyncio.sleep(0.01)
    try:
        yield port, protocols["http"].guard
    finally:
        server.should_exit = True
        await task
    assert protocols["http"].guard.counts == {}


@pytest.mark.parametrize("http", ["httptools", "h11"])
async def test_each_request_on_a_kept_alive_connection_gets_the_header_limit(http: str) -> None:
    """A whole request is answered; the next one on the same connection, left
    unfinished, is answered 408 and closed after the limit, not before."""
    async with local_server(http) as (port, guard):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        async with asyncio.timeout(TIMEOUT):
            assert (await reader.readuntil(b"ok")).startswith(b"HTTP/1.1 200")
        assert guard.counts == {"127.0.0.1": 1}
        writer.write(PARTIAL)
        sent = time.monotonic()
        async with asyncio.timeout(TIMEOUT):
            assert await answer(reader) == "HTTP/1.1 408 Request Timeout"
        assert HEADER_S * 0.9 <= time.monotonic() - sent < HEADER_S + 3
        writer.close()


@pytest.mark.parametrize("http", ["httptools", "h11"])
async def test_an_unfinished_websocket_handshake_is_closed_and_a_whole_one_works(
    http: str,
) -> None:
    async with local_server(http) as (port, guard):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        )
        sent = time.monotonic()
        async with asyncio.timeout(TIMEOUT):
            assert await answer(reader) == "HTTP/1.1 408 Request Timeout"
        assert HEADER_S * 0.9 <= time.monotonic() - sent < HEADER_S + 3
        writer.close()
        # a whole handshake is not cut by the deadline it beat: it lives past it
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws", open_timeout=TIMEOUT) as ws:
            await asyncio.sleep(HEADER_S * 1.5)  # the subject: time past the deadline
            await ws.send("still here")
            assert await ws.recv() == "still here"
            assert guard.counts == {"127.0.0.1": 1}  # the upgraded one, still counted


#: the handshake of a client that never answers a ping (nor reads anything)
DEAF = (
    b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


async def test_keepalive_pings_close_a_deaf_client_and_keep_one_that_answers() -> None:
    """The process's one keepalive wheel (transport/ws_protocol.py) pings every
    connection: one that never answers is closed with 1011, one whose client
    answers (websockets does, by itself) stays open through many intervals."""
    ping_s = 0.4
    async with local_server("httptools", ping_s) as (port, guard):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(DEAF)
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws", open_timeout=TIMEOUT) as ws:
            async with asyncio.timeout(TIMEOUT):
                data = await reader.read()  # everything, up to the server's close
            assert data.startswith(b"HTTP/1.1 101")
            assert b"\x89\x04" in data  # a ping (4 random bytes) came first
            # then a close frame with 1011, the keepalive's code
            assert b"\x88" in data and (1011).to_bytes(2, "big") in data.split(b"\x88", 1)[1]
            writer.close()
            # the deaf one went after about two intervals; this one answers the
            # same pings and is still served turns later
            await asyncio.sleep(ping_s * 3)  # the subject: time past several turns
            await ws.send("still here")
            async with asyncio.timeout(TIMEOUT):
                assert await ws.recv() == "still here"
            assert guard.counts == {"127.0.0.1": 1}


# ---------------------------------------------------------------- behind nginx


async def test_nginx_in_front_has_the_same_limits(
    server_factory: ServerFactory,
    nginx_factory: NginxFactory,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """deploy/nginx.conf, its header timeout cut to 1 s and its per-address cap to
    4: an unfinished request is closed after about 1 s; a fifth WebSocket from one
    address is refused 503 while another address gets in. The server trusts
    nginx (127.0.0.1), so it caps no one itself here: the cap is nginx's."""
    site = (REPO / "deploy" / "nginx.conf").read_text()
    site, timeouts = re.subn(r"client_header_timeout \d+s;", "client_header_timeout 1s;", site)
    site, caps = re.subn(r"limit_conn canfield_addr \d+;", "limit_conn canfield_addr 4;", site)
    assert timeouts == 1 and caps == 1, "deploy/nginx.conf lost its slow-client limits"
    (tmp_path / "nginx-site.conf").write_text(site)
    monkeypatch.setattr(deploy_conftest, "NGINX_SITE", tmp_path / "nginx-site.conf")
    server = server_factory(
        env={**FAST_ENV, **deploy_conftest.BEHIND_NGINX, "CANFIELD_MAX_CONNS_PER_IP": "2"}
    )
    proxy = nginx_factory([server.port])

    reader, writer = await half_open(proxy.port, "127.0.0.3")
    sent = time.monotonic()
    async with asyncio.timeout(TIMEOUT):
        assert await answer(reader) in ("closed", "HTTP/1.1 408 Request Time-out", "reset")
    assert 0.9 <= time.monotonic() - sent < 4
    writer.close()

    crowd = [await ws_from(proxy.ws_url, "127.0.0.3") for _ in range(4)]
    with pytest.raises(InvalidStatus) as refused:
        await ws_from(proxy.ws_url, "127.0.0.3")
    assert refused.value.response.status_code == 503
    other = await ws_from(proxy.ws_url, "127.0.0.2")
    for client in [*crowd, other]:
        assert (await client.request("pong", type="ping", t=1))["type"] == "pong"
        await client.close()
