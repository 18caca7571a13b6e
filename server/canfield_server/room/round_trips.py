"""Each racer's round trip to the server, measured by the server itself.

A frame of the protocol (``rtt_ping``, answered with ``rtt_pong``), not the
WebSocket's own ping: the ASGI server answers and times control pings itself
and never tells the application, and a browser answers a control ping in its
network code, never on the page's thread, so that figure would leave out the
page's own delays, which every reveal of a racer pays as it pays the wire's.
An ``rtt_ping`` is answered by the page's code (``web/js/net.js``) on the
thread that draws the board: what it measures is what an answer to an action
costs that racer.

One timer per process (the process's beat) probes every connection that asked
for it (``hello`` with ``rtt_ping``) and sits in a room as a racer: one
``rtt_ping`` per connection per ``rtt_ping_s``, one frame encoded for all of
them, no task per connection. A connection whose last probe is unanswered is
not probed again until that probe is ``LOST_AFTER`` periods old (a slow link is
never flooded); an answer that is not to the connection's last probe counts
nothing. Each answer is a sample for the racer's room (``Samples``: the median
of the race).
"""

from __future__ import annotations

from collections.abc import Callable

from canfield_protocol import Role, RttPing, RttPong

from canfield_server.ops.clock import Clock
from canfield_server.room import frames
from canfield_server.room.ports import Peer

__all__ = ["KEEP", "LOST_AFTER", "RoundTrips", "Samples"]

#: samples a racer's median is taken over: the race's last ones (17 minutes at
#: the default period), so a long race keeps a bounded list
KEEP = 255
#: periods an unanswered probe waits before the connection is probed again
LOST_AFTER = 3


class Samples:
    """One racer's round trips in one race (ms), and their median."""

    __slots__ = ("_ms", "_median")

    def __init__(self) -> None:
        # a list, not a deque(maxlen=KEEP): a deque allocates a 64-slot block up
        # front, and every racer in a room here has one (docs/performance.md)
        self._ms: list[int] = []
        #: worked out once per sample: every move of the racer reads it for its row
        self._median = 0

    def add(self, ms: int) -> int:
        """Keep one more round trip; the median now."""
        self._ms.append(ms)
        if len(self._ms) > KEEP:
            del self._ms[0]
        ordered = sorted(self._ms)
        mid = len(ordered) // 2
        if len(ordered) % 2:
            self._median = ordered[mid]
        else:
            self._median = round((ordered[mid - 1] + ordered[mid]) / 2)
        return self._median

    def median(self) -> int:
        """The middle sample (of an even count, the mean of the two middle ones):
        a median, so one stall (a busy page, a lost packet) does not move it."""
        return self._median


class RoundTrips:
    """The probes of one process, and their answers (a part of the process's beat:
    ``name``, ``every_s``, ``first_s``, ``tick``, ``forget``)."""

    name = "round trips"

    def __init__(self, clock: Clock, every_s: float, record: Callable[[Peer, int], None]) -> None:
        self.clock = clock
        self.every_s = self.first_s = every_s
        #: told each round trip measured: the connection, its ms
        self.record = record
        #: the connections that answer probes (their ``hello`` said so)
        self._asked: set[Peer] = set()
        #: each probed connection's last probe: its number and when it went (monotonic s)
        self._out: dict[Peer, tuple[int, float]] = {}
        self._n = 0

    def ask(self, peer: Peer) -> None:
        """This connection answers ``rtt_ping``: probe it while it races."""
        self._asked.add(peer)

    def detach(self, peer: Peer) -> None:
        """The connection ended."""
        self._asked.discard(peer)
        self._out.pop(peer, None)

    async def tick(self) -> None:
        self.probe()

    async def forget(self) -> None:
        """Nothing published to take back at stop."""

    def probe(self) -> int:
        """One probe to every racer's connection that answers them and has no
        recent probe unanswered; how many went."""
        now = self.clock.monotonic()
        wait_s = self.every_s * LOST_AFTER
        racers = [
            p
            for p in self._asked
            if p.room is not None
            and p.role == Role.PLAYER
            and (p not in self._out or now - self._out[p][1] >= wait_s)
        ]
        if not racers:
            return 0
        self._n += 1
        frame = frames.text(RttPing(n=self._n))
        for peer in racers:
            self._out[peer] = (self._n, now)
            peer.send(frame)
        return len(racers)

    def answered(self, peer: Peer, msg: RttPong) -> None:
        """An ``rtt_pong``: a round trip when it answers this connection's last probe
        (any other counts nothing: late, or never asked)."""
        out = self._out.get(peer)
        if out is None or out[0] != msg.n:
            return
        del self._out[peer]
        self.record(peer, round((self.clock.monotonic() - out[1]) * 1000))
