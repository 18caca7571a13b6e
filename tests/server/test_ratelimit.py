"""Rate limits on a manual clock: tokens refill as the clock moves, not as the
machine runs (the flood against a real server is in ``test_server_edges``)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import MutableMapping
from typing import Any

from canfield_server.ops.clock import ManualClock
from canfield_server.ops.ratelimit import PerAddress, TokenBucket
from canfield_server.transport.ws import WebSocketEndpoint

from tests.server.conftest import MakeRooms


async def test_a_bucket_passes_its_burst_then_refills_with_the_clock() -> None:
    clock = ManualClock()
    bucket = TokenBucket(5.0, 10, clock)
    assert [bucket.allow() for _ in range(11)] == [True] * 10 + [False]
    await clock.advance(0.1)  # half a token
    assert not bucket.allow()
    await clock.advance(0.1)
    assert bucket.allow() and not bucket.allow()
    await clock.advance(3600)  # a long quiet time refills up to the burst, no more
    assert [bucket.allow() for _ in range(11)] == [True] * 10 + [False]


async def test_each_address_has_its_own_bucket_on_the_clock() -> None:
    clock = ManualClock()
    per = PerAddress(1.0, 2, clock)
    assert per.allow("10.0.0.1") and per.allow("10.0.0.1") and not per.allow("10.0.0.1")
    assert per.ready("10.0.0.2") and per.ready("10.0.0.2")  # ready takes no token
    assert not per.ready("10.0.0.1")
    await clock.advance(1.0)
    assert per.ready("10.0.0.1") and per.allow("10.0.0.1") and not per.allow("10.0.0.1")


async def test_a_flooding_socket_is_refused_then_served_again_as_the_clock_moves(
    rooms: MakeRooms,
) -> None:
    """The socket endpoint's limiter on the clock: the burst passes, the rest is
    refused with ``rate-limited``, the connection stays, and once time has passed
    the next ping is answered."""
    made = await rooms()
    clock = made.clock
    endpoint = WebSocketEndpoint(
        made.hubs[0],
        max_frame_bytes=4096,
        allowed_origins=(),
        limiter_factory=lambda: TokenBucket(5.0, 10, clock),
        max_queued_frames=100,
        abuse_refusals=100,
        clock=clock,
    )
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[MutableMapping[str, Any]] = asyncio.Queue()
    await inbox.put({"type": "websocket.connect"})
    scope = {"type": "websocket"}
    served = asyncio.create_task(endpoint(scope, inbox.get, outbox.put))

    async def reply() -> dict[str, Any]:
        sent = await asyncio.wait_for(outbox.get(), 5)
        assert sent["type"] == "websocket.send", sent
        return dict(json.loads(sent["text"]))

    assert (await asyncio.wait_for(outbox.get(), 5))["type"] == "websocket.accept"
    for i in range(30):
        await inbox.put({"type": "websocket.receive", "text": json.dumps({"type": "ping", "t": i})})
    replies = [await reply() for _ in range(30)]
    pongs = [r["t"] for r in replies if r["type"] == "pong"]
    assert pongs == list(range(10))  # the burst passes; the clock stands still
    assert {r["code"] for r in replies if r["type"] == "error"} == {"rate-limited"}
    await clock.advance(0.4)  # tokens refill with time
    await inbox.put({"type": "websocket.receive", "text": json.dumps({"type": "ping", "t": 99})})
    answer = await reply()
    assert answer["type"] == "pong" and answer["t"] == 99
    await inbox.put({"type": "websocket.disconnect", "code": 1000})
    await asyncio.wait_for(served, 5)
