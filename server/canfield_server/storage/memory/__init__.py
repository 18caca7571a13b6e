"""In-memory adapters of the room logic's ports, for tests that run in milliseconds.

One ``MemoryBackend`` stands for one Redis: the adapters of several hubs
(several server processes' worth) share it, and its pub/sub delivers
room events between them. Every operation does what its Redis adapter's
script or pipeline does, in one step with no ``await`` in between (as a
script is atomic); ``tests/server/test_ports_contract.py`` runs the same
cases against both, so they cannot drift apart.

What they leave out: keys do not expire (the per-address room counts
lapse by their times, as the Redis scripts prune them; an identity lapses
by its time on the store's clock, as its key would), and storage never
fails by itself: ``failing`` wraps an adapter whose calls fail when a test
says so, raising what the Redis adapters raise when Redis is unreachable.

One module per port, each the twin of its Redis adapter (``store``,
``pubsub``, ``matchmaking``, ``history``, ``daily_store``, ``rating_store``,
``integrity_store``, ``challenge_store``); ``backend`` holds what they share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from canfield_server.storage.memory.arena_store import MemoryArenaStore
from canfield_server.storage.memory.backend import MemoryBackend
from canfield_server.storage.memory.challenge_store import MemoryChallengeStore
from canfield_server.storage.memory.daily_store import MemoryDailyDeals, MemoryDailyStore
from canfield_server.storage.memory.history import MemoryIdentityStore
from canfield_server.storage.memory.integrity_store import MemoryIntegrityStore
from canfield_server.storage.memory.matchmaking import MemoryMatchQueue
from canfield_server.storage.memory.pubsub import MemoryBus
from canfield_server.storage.memory.rating_store import MemoryRatingStore
from canfield_server.storage.memory.store import MemoryRoomStore

if TYPE_CHECKING:
    from canfield_server.room.ports import (
        ArenaStore,
        ChallengeStore,
        DailyDeals,
        DailyStore,
        IdentityStore,
        IntegrityStore,
        MatchQueue,
        RatingStore,
        RoomBus,
        RoomStore,
    )

__all__ = [
    "MemoryArenaStore",
    "MemoryBackend",
    "MemoryRoomStore",
    "MemoryBus",
    "MemoryMatchQueue",
    "MemoryIdentityStore",
    "MemoryDailyStore",
    "MemoryDailyDeals",
    "MemoryRatingStore",
    "MemoryIntegrityStore",
    "MemoryChallengeStore",
]

if TYPE_CHECKING:  # the type checker proves each adapter is its port

    def _ports(
        backend: MemoryBackend,
    ) -> tuple[
        RoomStore, RoomBus, MatchQueue, IdentityStore, DailyStore, RatingStore, IntegrityStore
    ]:
        return (
            MemoryRoomStore(backend, 1, b"origin"),
            MemoryBus(backend),
            MemoryMatchQueue(backend),
            MemoryIdentityStore(backend, max_races=1),
            MemoryDailyStore(backend),
            MemoryRatingStore(backend, max_points=1),
            MemoryIntegrityStore(backend),
        )

    def _arenas(backend: MemoryBackend) -> ArenaStore:
        return MemoryArenaStore(backend, lambda: 0)

    def _challenges(backend: MemoryBackend) -> ChallengeStore:
        return MemoryChallengeStore(backend)

    def _deals(backend: MemoryBackend) -> DailyDeals:
        return MemoryDailyDeals(backend, lambda date, draw: "")
