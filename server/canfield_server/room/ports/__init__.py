"""What the room logic needs from the world, as interfaces.

The room package never imports Redis, Starlette or websockets: it talks
to a ``RoomStore`` (``storage.store.RedisStore`` in production), a
``RoomBus`` (``storage.pubsub.RedisBus``), a ``SolverService``
(``solving.deal_pool``), a ``BotLauncher`` and ``Peer`` connections
(``transport.ws``), all wired together at start-up by ``transport.app``.
Tests wire in-memory peers the same way.

One module per seam: ``rooms`` (the room store, the bus, a peer),
``matchmaking``, ``solving``, ``identities``, ``challenges``, ``daily``,
``ratings`` and ``review``; every name is imported from here.
"""

from __future__ import annotations

from canfield_server.room.ports.arenas import (
    LAST_PLACES,
    ArenaRecord,
    ArenaStore,
    HeatPlace,
    HeatRecord,
    StandingEntry,
)
from canfield_server.room.ports.challenges import ChallengeStore, Taken
from canfield_server.room.ports.daily import (
    DailyAttempt,
    DailyDeals,
    DailyMove,
    DailyStore,
    NoAttempt,
)
from canfield_server.room.ports.identities import (
    IdentitiesRefused,
    IdentityBudget,
    IdentityStore,
)
from canfield_server.room.ports.matchmaking import (
    Band,
    MatchQueue,
    RaceSearch,
    Waiting,
)
from canfield_server.room.ports.ratings import (
    LadderRow,
    RatingChange,
    RatingPoint,
    RatingStore,
    StoredRating,
)
from canfield_server.room.ports.review import (
    REVIEW_CLEARED,
    REVIEW_CONFIRMED,
    REVIEW_OPEN,
    IntegrityStore,
    ReviewCase,
    daily_result,
    race_of,
    room_result,
)
from canfield_server.room.ports.rooms import (
    Behind,
    MoveRecord,
    Peer,
    RaceOver,
    RoomBudget,
    RoomBus,
    RoomRecord,
    RoomSave,
    RoomsRefused,
    RoomStore,
    StorageErrors,
    Stored,
    StoredRow,
)
from canfield_server.room.ports.solving import (
    BotLauncher,
    Proven,
    SignalService,
    SolverBusy,
    SolverService,
)

__all__ = [
    "LAST_PLACES",
    "ArenaRecord",
    "ArenaStore",
    "HeatPlace",
    "HeatRecord",
    "StandingEntry",
    "StorageErrors",
    "Peer",
    "StoredRow",
    "RoomRecord",
    "RoomBudget",
    "RoomsRefused",
    "MoveRecord",
    "RoomSave",
    "Stored",
    "Behind",
    "RaceOver",
    "RoomStore",
    "RoomBus",
    "Band",
    "MatchQueue",
    "RaceSearch",
    "Waiting",
    "Proven",
    "SolverBusy",
    "SolverService",
    "SignalService",
    "BotLauncher",
    "ChallengeStore",
    "Taken",
    "IdentityBudget",
    "IdentitiesRefused",
    "IdentityStore",
    "DailyMove",
    "DailyAttempt",
    "DailyStore",
    "NoAttempt",
    "DailyDeals",
    "StoredRating",
    "RatingPoint",
    "RatingChange",
    "LadderRow",
    "RatingStore",
    "REVIEW_OPEN",
    "REVIEW_CLEARED",
    "REVIEW_CONFIRMED",
    "room_result",
    "daily_result",
    "race_of",
    "ReviewCase",
    "IntegrityStore",
]
