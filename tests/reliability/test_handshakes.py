"""New connections per address: a burst, then a rate, refused before the upgrade.

Promise (docs/security.md "Limits"): a client that opens WebSockets in a
loop gets ``CANFIELD_HANDSHAKES_PER_IP_BURST`` of them at once and then
``CANFIELD_HANDSHAKES_PER_IP_PER_S``; the rest are refused before the
WebSocket is accepted (HTTP 403 from the server, 429 from the shipped
nginx at the edge), other addresses are not affected, this host itself
(its bots) is not limited, and the refusals are one log line now and then.
"""

from __future__ import annotations

import pytest
import websockets
from websockets.exceptions import InvalidStatus

from tests.deploy.conftest import BEHIND_NGINX
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


async def test_handshakes_past_the_burst_are_refused_before_the_upgrade(server_factory) -> None:  # noqa: ANN001
    server = server_factory(
        env={
            **FAST_ENV,
            "CANFIELD_HANDSHAKES_PER_IP_BURST": str(BURST),
            "CANFIELD_HANDSHAKES_PER_IP_PER_S": "0.001",
        }
    )
    assert await opened(server.ws_url, "127.0.0.2", BURST + 5) == (BURST, [403] * 5)
    # another address has its own budget; this host's own (bots) is not limited
    assert await opened(server.ws_url, "127.0.0.3", BURST) == (BURST, [])
    assert await opened(server.ws_url, "127.0.0.1", BURST * 4) == (BURST * 4, [])
    # pages still load for the refused address: only WebSocket upgrades count
    log = server.log()
    assert len([line for line in log.splitlines() if "handshakes refused" in line]) == 1
    assert "Traceback" not in log


@pytest.mark.usefixtures("nginx_factory")
async def test_the_proxy_refuses_a_churning_address_at_the_edge(
    server_factory,  # noqa: ANN001
    nginx_factory,  # noqa: ANN001, F811
) -> None:
    # the server's own budget set wide: what is measured is nginx's, at the edge
    server = server_factory(
        env={**FAST_ENV, **BEHIND_NGINX, "CANFIELD_HANDSHAKES_PER_IP_BURST": "1000"}
    )
    proxy = nginx_factory([server.port])
    count, refused = await opened(proxy.ws_url, "127.0.0.4", 45)
    assert refused and set(refused) == {429}
    assert 30 <= count <= 34  # nginx's burst of 30 (and a token or two refilled)
    assert await opened(proxy.ws_url, "127.0.0.5", 5) == (5, [])
