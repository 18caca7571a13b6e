"""New connections per address: a burst, then a rate, refused before the upgrade.

Promise (docs/security.md "Limits"): a client that opens connections in a
loop gets ``CANFIELD_HANDSHAKES_PER_IP_BURST`` of them at once and then
``CANFIELD_HANDSHAKES_PER_IP_PER_S``. Past that, a direct client's
connection is held unread for ``CANFIELD_REFUSAL_DELAY_S`` and answered
503 (nothing of it parsed); behind the proxy, the forwarded address's
WebSocket is refused before it is accepted (403), and the shipped nginx
refuses at the edge (429). Other addresses are not affected, this host
itself (its bots) is not limited, and refusals are one log line now and then.
"""

from __future__ import annotations

import time

import pytest
import websockets
from websockets.exceptions import InvalidStatus

from tests.conftest import ServerFactory
from tests.deploy.conftest import BEHIND_NGINX, NginxFactory
from tests.deploy.conftest import nginx_factory as nginx_factory  # noqa: F401 - fixture
from tests.reliability.conftest import FAST_ENV, TIMEOUT

BURST = 5


async def opened(url: str, address: str, count: int) -> tuple[int, list[int]]:
    """Open ``count`` WebSockets from ``address``: how many opened, the refusals' statuses."""
    sockets, refused = [], []
    for _ in range(count):
        try:
            sockets.append(
                await websockets.connect(url, open_timeout=TIMEOUT, local_addr=(address, 0))
            )
        except InvalidStatus as exc:
            refused.append(exc.response.status_code)
    for ws in sockets:
        await ws.close()
    return len(sockets), refused


async def test_connections_past_the_burst_are_held_then_refused(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(
        env={
            **FAST_ENV,
            "CANFIELD_HANDSHAKES_PER_IP_BURST": str(BURST),
            "CANFIELD_HANDSHAKES_PER_IP_PER_S": "0.001",
            "CANFIELD_REFUSAL_DELAY_S": "0.5",
        }
    )
    began = time.monotonic()
    assert await opened(server.ws_url, "127.0.0.2", BURST + 3) == (BURST, [503] * 3)
    # each refusal was held, unread, for the refusal delay: a loop cannot go faster
    assert time.monotonic() - began >= 3 * 0.5
    # another address has its own budget; this host's own (bots) is not limited
    assert await opened(server.ws_url, "127.0.0.3", BURST) == (BURST, [])
    assert await opened(server.ws_url, "127.0.0.1", BURST * 4) == (BURST * 4, [])
    log = server.log()
    assert len([line for line in log.splitlines() if "too many new ones" in line]) == 1
    assert "Traceback" not in log


async def test_behind_the_proxy_the_forwarded_address_has_the_budget(
    server_factory: ServerFactory,
    nginx_factory: NginxFactory,  # noqa: F811
) -> None:
    """The proxy's own connections are not counted (it is trusted); its clients'
    WebSockets are, by the address it forwards: refused before the upgrade (403)."""
    server = server_factory(
        env={**FAST_ENV, **BEHIND_NGINX, "CANFIELD_HANDSHAKES_PER_IP_BURST": str(BURST)}
    )
    proxy = nginx_factory([server.port])
    assert await opened(proxy.ws_url, "127.0.0.6", BURST + 3) == (BURST, [403] * 3)
    assert await opened(proxy.ws_url, "127.0.0.7", BURST) == (BURST, [])
    assert "websocket handshakes refused" in server.log()


@pytest.mark.usefixtures("nginx_factory")
async def test_the_proxy_refuses_a_churning_address_at_the_edge(
    server_factory: ServerFactory,
    nginx_factory: NginxFactory,  # noqa: F811
) -> None:
    # the server's own budget set wide: what is measured is nginx's, at the edge
    server = server_factory(
        env={**FAST_ENV, **BEHIND_NGINX, "CANFIELD_HANDSHAKES_PER_IP_BURST": "1000"}
    )
    proxy = nginx_factory([server.port])
    count, refused = await opened(proxy.ws_url, "127.0.0.4", 45)
    assert refused and set(refused) == {429}
    assert 30 <= count < 45  # nginx's burst of 30, and what 2/s refilled meanwhile
    assert await opened(proxy.ws_url, "127.0.0.5", 5) == (5, [])
