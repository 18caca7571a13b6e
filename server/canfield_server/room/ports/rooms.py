"""Rooms: the room store (every read and write of a room, its players and
their moves), the room bus between processes, and a client connection."""

from __future__ import annotations

from typing import NamedTuple, Protocol

import msgspec
from canfield_protocol import Cap, MemberStatus, Role, RoomState

__all__ = [
    "StorageErrors",
    "Peer",
    "StoredRow",
    "RoomRecord",
    "RoomBudget",
    "RoomsRefused",
    "MoveRecord",
    "RoomStore",
    "RoomBus",
]


#: the exception types that mean "storage unreachable, nothing applied"
#: (the storage layer names them; the room logic answers ``unavailable``)
StorageErrors = tuple[type[BaseException], ...]


class Peer(Protocol):
    """One client connection, as the room logic sees it."""

    room: str | None
    member_id: str | None
    role: Role | None
    #: the client's address (None for in-process peers: tests, bots)
    ip: str | None

    def send(self, text: str) -> None:
        """Queue one text frame; never blocks."""

    def close(self, code: int, reason: str) -> None:
        """Close after the queued frames."""


class StoredRow(msgspec.Struct, kw_only=True):
    """A leaderboard row as stored in Redis: the wire row plus the ranking clock.

    ``at``: ms from the start when the player won or first reached their
    current number of cards on foundations (the tie-breaker).
    """

    id: str
    name: str
    score: int
    on_foundations: int
    moves: int
    status: MemberStatus
    time_ms: int
    at: int


class RoomRecord(msgspec.Struct):
    """A room as stored: its state, version, secret deal and final results."""

    state: RoomState
    ver: int
    deal: str | None = None
    final: bytes | None = None


class RoomBudget(NamedTuple):
    """The room-creation limits of one client address (``Settings``; 0: none)."""

    #: rooms it may hold open at once (``rules.room_open``)
    max_open: int
    #: rooms it may create within ``window_ms``
    max_new: int
    window_ms: int


class RoomsRefused(NamedTuple):
    """Why an address may not create a room now: the limit it hit (``Cap``) and
    when (server ms) that limit frees a place at the latest."""

    cap: Cap
    limit: int
    retry_at: int


class MoveRecord(NamedTuple):
    """One accepted board action, as the move script stores it (one round trip)."""

    room_code: str
    member_id: str
    race_no: int
    #: the seq the board had before this action (the script's compare-and-set)
    base_seq: int
    #: the log entry: move text, ``U`` (undo) or ``G`` (give up), with its
    #: receipt time (``room.stamps``: ``"2:3-4@1234"``)
    entry: str
    #: ``PlayerRace.snapshot()``: the race's bookkeeping
    snapshot: bytes
    row: StoredRow
    done: bool


class RoomStore(Protocol):
    """Every read and write the room logic makes; each one round trip."""

    origin: bytes
    #: a process whose heartbeat is older than this counts as gone
    presence_stale_ms: int

    async def load_room(self, code: str) -> RoomRecord | None: ...

    async def save_room(
        self,
        expected_ver: int,
        state: RoomState,
        *,
        deal: str | None = None,
        token: tuple[str, str] | None = None,
        new_race: list[str] | None = None,
        final: bytes | None = None,
        revoke: str | None = None,
        kicked: str | None = None,
        present: str | None = None,
        creator: str | None = None,
    ) -> int | None: ...

    async def claim_room(self, ip: str, code: str, budget: RoomBudget) -> RoomsRefused | None:
        """Count a new room ``code`` against ``ip`` if its budget allows, in one
        step (None), or say which limit refuses it (nothing counted). The room
        stops counting as open when a save finds it closed (``save_room``
        passes ``rules.room_open``), and one room TTL after it opened at the latest."""
        ...

    async def member_for_token(self, code: str, token_hash: str) -> str | None: ...

    async def presence(self, code: str, member_id: str, delta: int) -> int: ...

    async def serve_room(self, code: str, serving: bool = True) -> None: ...

    async def beat(self, due: dict[str, int]) -> dict[str, set[str]]: ...

    async def schedule(self, code: str, due_ms: int | None, earlier: bool = False) -> None: ...

    async def due_rooms(self, now: int, limit: int) -> list[str]: ...

    async def claim_due(self, code: str, now: int, lease_ms: int) -> bool: ...

    async def finish(self, code: str, race: int) -> bool: ...

    async def load_player(self, code: str, member_id: str) -> tuple[bytes | None, list[str]]: ...

    async def snapshots(self, code: str, member_ids: list[str]) -> dict[str, bytes]:
        """The players' race snapshots (those who have one), read together."""
        ...

    async def apply(self, move: MoveRecord) -> tuple[int, int | str]: ...

    async def log_entry(self, code: str, member_id: str, seq: int) -> str:
        """The log entry action ``seq`` stored, as stored ("" if none)."""
        ...

    async def rows(self, code: str) -> dict[str, StoredRow]: ...

    async def logs(self, code: str, member_ids: list[str]) -> dict[str, list[str]]:
        """The racers' logs as stored (entries stamped, ``room.stamps.split_log``
        parts them into actions and times)."""
        ...


class RoomBus(Protocol):
    """Room events from other processes (their handler is wired at start-up)."""

    async def subscribe(self, code: str) -> None: ...

    async def unsubscribe(self, code: str) -> None: ...
