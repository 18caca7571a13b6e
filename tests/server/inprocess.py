"""Room tests in process: hubs over the in-memory adapters, on a manual clock.

``Rooms`` (the ``rooms`` fixture) builds one or more hubs - a server
process's worth of room logic each - on one ``MemoryBackend`` (one Redis'
worth), with a ``ManualClock``. ``HubClient`` speaks to a hub as the
WebSocket endpoint does (each JSON frame decoded at the same edge, handled
in turn; ``close`` is the socket's end) and has the methods of the real
test ``Client`` (``tests/server/conftest.py``), so a test reads the same on
either.

Time moves only when a test waits: when a client expects a message and
nothing is ready, the clock jumps to the next timer (a countdown, a grace
time, a time limit, a paced broadcast), so a race with a 30-second limit
ends in a millisecond, and no test depends on how busy the machine is.
The in-memory adapters are proven equal to the Redis ones by
``test_ports_contract.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, MutableMapping
from typing import Any

from canfield_protocol import ProtocolError, Role, decode_client, encode, error
from canfield_server.ops.clock import ManualClock
from canfield_server.ops.config import Settings
from canfield_server.ops.ratelimit import TokenBucket
from canfield_server.room.hub import Hub
from canfield_server.room.ports import SignalService, SolverService
from canfield_server.room.rating_races import FairPlay, match_rating_of, public_race_rater
from canfield_server.room.review import Reviews
from canfield_server.storage.errors import STORAGE_ERRORS
from canfield_server.storage.memory import (
    MemoryArenaStore,
    MemoryBackend,
    MemoryBus,
    MemoryChallengeStore,
    MemoryDailyDeals,
    MemoryDailyStore,
    MemoryIdentityStore,
    MemoryIntegrityStore,
    MemoryMatchQueue,
    MemoryRatingStore,
    MemoryRoomStore,
)
from canfield_server.storage.memory.failing import Faults, failing
from canfield_server.transport.ws import WebSocketEndpoint

from tests.server.client_api import TIMEOUT, ClientApi

__all__ = ["MemoryPeer", "HubClient", "Rooms", "TIMEOUT", "socket_endpoint", "AsgiSocket"]


class MemoryPeer:
    """A connection that keeps what the hub sends it."""

    def __init__(self, ip: str | None = None) -> None:
        self.room: str | None = None
        self.member_id: str | None = None
        self.role: Role | None = None
        self.ip = ip
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.seen: list[dict[str, Any]] = []
        self.closed: tuple[int, str] | None = None

    def send(self, text: str) -> None:
        self.inbox.put_nowait(json.loads(text))

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    async def expect(
        self,
        kind: str,
        where: Callable[[dict[str, Any]], bool] = lambda m: True,
        timeout: float = TIMEOUT,
    ) -> dict[str, Any]:
        """The next message of ``kind`` (``where`` it holds), up to the tests' own
        generous wait: a hub on a real redis-server is as slow as a loaded
        machine makes it (5 s ran out at a load of 28 waiting for "started")."""
        async with asyncio.timeout(timeout):
            while True:
                msg = await self.inbox.get()
                self.seen.append(msg)
                if msg["type"] == kind and where(msg):
                    return msg


class HubClient(ClientApi):
    """A client of one hub, with the test ``Client``'s methods (``ClientApi``)."""

    def __init__(self, hub: Hub, clock: ManualClock, ip: str | None = None) -> None:
        super().__init__()
        self.hub = hub
        self.clock = clock
        self.peer = MemoryPeer(ip)
        self.open = True

    async def send(self, **msg: Any) -> None:
        """One frame, as the endpoint takes it: decoded at the edge, then handled."""
        assert self.open, "this client closed its connection"
        try:
            decoded = decode_client(json.dumps(msg))
        except ProtocolError as exc:  # the endpoint answers a bad frame with its error
            self.peer.send(encode(error(exc)).decode())
            return
        await self.hub.handle(self.peer, decoded)

    async def _next(self, deadline: float) -> dict[str, Any]:
        """The next message; when none is ready, the clock jumps to its next timer
        (past ``deadline``, loop time, ``TimeoutError``: timers that come back
        forever, a heartbeat, never keep a test that waits in vain going)."""
        loop = asyncio.get_running_loop()
        while True:
            if not self.peer.inbox.empty():
                msg = self.peer.inbox.get_nowait()
                self.log.append(msg)
                return msg
            if loop.time() > deadline:
                raise TimeoutError("no message by the deadline")
            await self.clock.settle()
            if not self.peer.inbox.empty():
                continue
            if not await self.clock.jump():
                # nothing due on the clock: only real work (another task) can answer
                left = deadline - loop.time()
                if left <= 0:
                    raise TimeoutError("no message, and no timer left to run")
                try:
                    msg = await asyncio.wait_for(self.peer.inbox.get(), min(left, 0.05))
                except TimeoutError:
                    continue
                self.log.append(msg)
                return msg

    async def close(self) -> None:
        """The connection ends (a closed tab)."""
        if self.open:
            self.open = False
            await self.hub.detach(self.peer)


class Rooms:
    """Hubs on one in-memory storage and one manual clock."""

    def __init__(
        self,
        settings: Settings | None = None,
        processes: int = 1,
        solver: SolverService | None = None,
        signals: SignalService | None = None,
        daily_deal: str = "AAAAACL",
    ) -> None:
        """``daily_deal``: every day's deal, as the part of its code after the draw."""
        self.settings = settings or Settings()
        self.clock = ManualClock()
        self.backend = MemoryBackend()
        #: the stores' outages, as a test chooses them (``failing``): the room
        #: stores' calls by name (``save_room``), the others' by port and name
        #: (``identity.claim_identity``, ``daily.apply``, ``deals.deal``)
        self.faults = Faults()
        self.daily_deals = failing(
            MemoryDailyDeals(self.backend, lambda date, draw: f"CF1-D{draw}-{daily_deal}"),
            self.faults,
            "deals",
        )
        #: every process's ratings (public races rated; quick races matched by them)
        self.ratings = failing(
            MemoryRatingStore(self.backend, max_points=self.settings.rating_history_max),
            self.faults,
            "ratings",
        )
        #: every process's integrity review (flagged results, the queue, bars)
        self.integrity = failing(MemoryIntegrityStore(self.backend), self.faults, "integrity")
        self.buses: list[MemoryBus] = []
        self.hubs: list[Hub] = []
        for _ in range(processes):
            bus = MemoryBus(self.backend)
            identities = failing(
                MemoryIdentityStore(
                    self.backend,
                    max_races=self.settings.history_max_races,
                    clock=self.clock,
                    retention_days=self.settings.history_retention_days,
                    new_ttl_s=self.settings.new_identity_ttl_s,
                ),
                self.faults,
                "identity",
            )
            hub = Hub(
                failing(
                    MemoryRoomStore(
                        self.backend,
                        self.settings.room_ttl_s,
                        os.urandom(4).hex().encode(),
                        self.clock,
                        presence_stale_ms=self.settings.presence_stale_ms,
                    ),
                    self.faults,
                ),
                self.settings,
                clock=self.clock,
                storage_errors=STORAGE_ERRORS,
                bus=bus,
                identities=identities,
                challenges=failing(
                    MemoryChallengeStore(self.backend, self.clock), self.faults, "challenges"
                ),
                daily=failing(MemoryDailyStore(self.backend), self.faults, "daily"),
                daily_deals=self.daily_deals,
                solver=solver,
                queue=MemoryMatchQueue(self.backend),
                ratings=public_race_rater(
                    self.ratings,
                    identities,
                    min_races=self.settings.rating_min_races,
                    min_opponents=self.settings.rating_min_opponents,
                    clock=self.clock,
                    integrity=self.integrity,
                    fair_play=FairPlay.of(self.settings),
                ),
                match_rating=match_rating_of(self.ratings),
                integrity=self.integrity,
                reviews=Reviews(
                    self.integrity,
                    self.ratings,
                    min_races=self.settings.rating_min_races,
                    clock=self.clock,
                ),
                signals=signals,
                arenas=MemoryArenaStore(self.backend, self.clock.now_ms),
            )
            bus.start(hub.on_event, hub.resync)
            self.buses.append(bus)
            self.hubs.append(hub)
        self.clients: list[HubClient] = []

    async def open(self, process: int = 0, ip: str | None = "127.0.0.1") -> HubClient:
        """A new connection to hub ``process`` (the ``connect(url)`` of real tests)."""
        client = HubClient(self.hubs[process], self.clock, ip)
        self.clients.append(client)
        return client

    async def close(self) -> None:
        for client in self.clients:
            await client.close()
        for hub, bus in zip(self.hubs, self.buses, strict=True):
            await hub.shutdown()
            await bus.stop()


def socket_endpoint(
    hub: Hub, clock: ManualClock, rate: float = 50.0, burst: int = 100, abuse_refusals: int = 100
) -> WebSocketEndpoint:
    """The ``/ws`` endpoint over ``hub``, its rate limit (``rate`` a second,
    bursts of ``burst``) on ``clock``."""
    return WebSocketEndpoint(
        hub,
        max_frame_bytes=4096,
        allowed_origins=(),
        limiter_factory=lambda: TokenBucket(rate, burst, clock),
        max_queued_frames=100,
        abuse_refusals=abuse_refusals,
        clock=clock,
    )


class AsgiSocket:
    """One WebSocket to an endpoint in process, as the ASGI messages it takes
    (``receive``) and sends (``sent``)."""

    def __init__(self, endpoint: WebSocketEndpoint) -> None:
        self.endpoint = endpoint
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.outbox: asyncio.Queue[MutableMapping[str, Any]] = asyncio.Queue()
        self.served: asyncio.Task[None] | None = None

    async def open(self) -> AsgiSocket:
        await self.inbox.put({"type": "websocket.connect"})
        served = self.endpoint({"type": "websocket"}, self.inbox.get, self.outbox.put)
        self.served = asyncio.create_task(served)
        return self

    async def sent(self) -> MutableMapping[str, Any]:
        """The next ASGI message the endpoint sent."""
        return await asyncio.wait_for(self.outbox.get(), TIMEOUT)

    async def send(self, **frame: Any) -> None:
        await self.inbox.put({"type": "websocket.receive", "text": json.dumps(frame)})

    async def reply(self) -> dict[str, Any]:
        """The next frame the endpoint sent, decoded."""
        sent = await self.sent()
        assert sent["type"] == "websocket.send", sent
        return dict(json.loads(sent["text"]))

    async def close(self) -> None:
        """The client goes; the endpoint's end is awaited."""
        await self.inbox.put({"type": "websocket.disconnect", "code": 1000})
        assert self.served is not None
        await asyncio.wait_for(self.served, TIMEOUT)
