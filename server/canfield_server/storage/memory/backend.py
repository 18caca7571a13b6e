"""What one Redis holds for the room logic, in memory: the ``MemoryBackend``
every in-memory adapter of a test shares (several hubs' worth), and its pub/sub."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from canfield_server.room.ports import (
    LadderRow,
    RatingChange,
    RatingPoint,
    ReviewCase,
    StoredRating,
)

if TYPE_CHECKING:
    from canfield_server.storage.memory.pubsub import MemoryBus

__all__ = ["MemoryBackend", "StoredRoom", "StoredBoard", "StoredDaily", "StoredChallenge"]


@dataclass
class StoredRoom:
    """A room's hash (``keys.room``)."""

    state: bytes
    ver: int
    phase: str
    race: int
    deal: str | None = None
    final: bytes = b""
    done: int = 0
    nplayers: int = 0
    #: the address that created the room, and ``rules.room_open`` at the last save
    ip: str = ""
    open: bool = False


@dataclass
class StoredBoard:
    """A racer's board in a room: its seq, snapshot and log."""

    seq: int = 0
    snap: bytes | None = None
    log: list[str] = field(default_factory=list)


@dataclass
class StoredDaily:
    """A player's daily attempt: its start, board and log."""

    start: int
    name: str
    seq: int = 0
    snap: bytes | None = None
    done: bool = False
    log: list[str] = field(default_factory=list)


@dataclass
class StoredChallenge:
    """A challenge (``player_keys.challenge``) with its standing (``challenge_rank``,
    ``challenge_rows``), all gone at ``until`` (server ms)."""

    body: bytes
    until: int
    scores: dict[str, float] = field(default_factory=dict)
    rows: dict[str, bytes] = field(default_factory=dict)


class MemoryBackend:
    """What one Redis holds for the room logic, and its pub/sub."""

    def __init__(self) -> None:
        self.rooms: dict[str, StoredRoom] = {}
        self.tokens: dict[str, dict[str, str]] = {}
        self.presence: dict[str, dict[bytes, int]] = {}
        self.rows: dict[str, dict[str, bytes]] = {}
        self.boards: dict[tuple[str, str], StoredBoard] = {}
        self.servers: dict[str, dict[bytes, int]] = {}
        self.due: dict[str, int] = {}
        #: address -> room code -> ms it stops counting as open at the latest
        self.open_rooms: dict[str, dict[str, int]] = {}
        #: address -> room code -> ms it was created (the burst window)
        self.new_rooms: dict[str, dict[str, int]] = {}
        self.identities: dict[str, dict[str, Any]] = {}
        self.challenges: dict[str, StoredChallenge] = {}
        #: who -> (challenges made in the window, ms the window ends)
        self.challenges_made: dict[str, tuple[int, int]] = {}
        #: network -> its identity budget (``tokens``, ``at``, ``i:SLOT``, ``r:SLOT``),
        #: and network -> ms it last asked
        self.identity_budgets: dict[str, dict[str, float]] = {}
        self.identity_networks: dict[str, int] = {}
        self.histories: dict[str, list[bytes]] = {}
        self.room_identities: dict[str, dict[str, str]] = {}
        self.room_networks: dict[str, dict[str, str]] = {}
        #: UTC day -> "identity:identity" -> public races rated together that day
        self.rating_pairs: dict[str, dict[str, int]] = {}
        #: (identity, draw) -> the identities it was rated against
        self.rating_opponents: dict[tuple[str, int], set[str]] = {}
        self.replays: dict[str, bytes] = {}
        #: (date, draw) -> player -> attempt; and the standing's (score, player) rows
        self.daily: dict[tuple[str, int], dict[str, StoredDaily]] = {}
        self.daily_rows: dict[tuple[str, int], dict[str, bytes]] = {}
        self.daily_rank: dict[tuple[str, int], dict[str, float]] = {}
        #: (date, draw) -> network -> its first player; player -> why unranked ('' ranked)
        self.daily_networks: dict[tuple[str, int], dict[str, str]] = {}
        self.daily_held: dict[tuple[str, int], dict[str, str]] = {}
        #: (date, draw) -> the day's deal code
        self.daily_codes: dict[tuple[str, int], str] = {}
        #: (identity, draw) -> rating, and its history (newest first)
        self.ratings: dict[tuple[str, int], StoredRating] = {}
        self.rating_points: dict[tuple[str, int], list[RatingPoint]] = {}
        #: draw -> identity -> its ladder row
        self.ladders: dict[int, dict[str, LadderRow]] = {}
        #: (room, race number) of the public races whose ratings were stored
        self.rated_races: set[tuple[str, int]] = set()
        #: result -> its integrity assessment; the open queue (result -> ms
        #: recorded), the decided (result -> ms decided); barred identities
        self.cases: dict[str, ReviewCase] = {}
        self.review_queue: dict[str, int] = {}
        self.review_decided: dict[str, int] = {}
        self.barred: set[str] = set()
        self.barred_players: set[str] = set()
        #: (room, race number) -> (draw, identity -> what that rated race changed)
        self.race_changes: dict[tuple[str, int], tuple[int, dict[str, RatingChange]]] = {}
        self.subscribers: dict[str, set[MemoryBus]] = {}
        #: pool -> the public races it gathers into -> (rating, ms opened);
        #: public race -> ms it started
        self.quick: dict[str, dict[str, tuple[int, int]]] = {}
        #: pool -> the racers waiting alone in it (``CODE/MEMBER``) -> ms they stop counting
        self.quick_waiting: dict[str, dict[str, int]] = {}
        self.live: dict[str, int] = {}
        #: pool -> finished public races' racers (a ghost offer's text) -> rating, oldest first
        self.quick_past: dict[str, dict[str, int]] = {}
        #: arena code -> its state (``memory.arena_store.MemoryArena``)
        self.arenas: dict[str, Any] = {}
        #: identity (token hash) -> its arena results, newest first
        self.arena_results: dict[str, list[bytes]] = {}
        #: public arena code -> ms it starts; racer -> (the heat they hold, until ms)
        self.arena_public: dict[str, int] = {}
        #: private arena code -> ms it starts (driven by every process's beat)
        self.arena_private: dict[str, int] = {}
        self.arena_racers: dict[str, tuple[str, int]] = {}

    def publish(self, code: str, payload: bytes) -> None:
        """Deliver on the next turn of the event loop, as a Redis subscriber hears it."""
        loop = asyncio.get_running_loop()
        for bus in list(self.subscribers.get(code, ())):
            loop.call_soon(bus.deliver, code, payload)
