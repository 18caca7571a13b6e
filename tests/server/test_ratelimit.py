"""Rate limits on a manual clock: tokens refill as the clock moves, not as the
machine runs (the flood against a real server is in ``test_server_edges``)."""

from __future__ import annotations

from canfield_server.ops.clock import ManualClock
from canfield_server.ops.ratelimit import PerAddress, TokenBucket

from tests.server.conftest import MakeRooms
from tests.server.inprocess import AsgiSocket, socket_endpoint


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
    socket = await AsgiSocket(socket_endpoint(made.hubs[0], clock, 5.0, 10)).open()
    assert (await socket.sent())["type"] == "websocket.accept"
    for i in range(30):
        await socket.send(type="ping", t=i)
    replies = [await socket.reply() for _ in range(30)]
    pongs = [r["t"] for r in replies if r["type"] == "pong"]
    assert pongs == list(range(10))  # the burst passes; the clock stands still
    assert {r["code"] for r in replies if r["type"] == "error"} == {"rate-limited"}
    await clock.advance(0.4)  # tokens refill with time
    await socket.send(type="ping", t=99)
    answer = await socket.reply()
    assert answer["type"] == "pong" and answer["t"] == 99
    await socket.close()
