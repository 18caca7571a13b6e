"""A connection's own messages, before and beside any room.

``hello`` checks the protocol version and may ask for round-trip probes
(``room.round_trips``); ``ping`` gives the page the server's clock (its
countdowns and race clocks run on it); ``rtt_pong`` answers a probe. None
of them reads or changes a room, so they are apart from the room's parts
the hub hands messages to.
"""

from __future__ import annotations

from canfield_protocol import VERSION, Hello, Ping, Pong, ProtocolError, RttPong, Welcome
from canfield_protocol import ErrorCode as E

from canfield_server.ops.clock import Clock
from canfield_server.room import frames
from canfield_server.room.ports import Peer
from canfield_server.room.round_trips import RoundTrips

__all__ = ["LinkMessages"]


class LinkMessages:
    """``hello``, ``ping`` and ``rtt_pong``: the link's, not a room's."""

    def __init__(self, clock: Clock, round_trips: RoundTrips) -> None:
        self.clock = clock
        self.round_trips = round_trips

    async def hello(self, peer: Peer, msg: Hello) -> None:
        if msg.v != VERSION:
            raise ProtocolError(
                E.UNSUPPORTED_VERSION, f"this server speaks protocol {VERSION}, not {msg.v}"
            )
        if msg.rtt_ping:
            self.round_trips.ask(peer)
        peer.send(frames.text(Welcome(v=VERSION, server_time=self.clock.now_ms())))

    async def ping(self, peer: Peer, msg: Ping) -> None:
        peer.send(frames.text(Pong(t=msg.t, server_time=self.clock.now_ms())))

    async def rtt_pong(self, peer: Peer, msg: RttPong) -> None:
        self.round_trips.answered(peer, msg)
