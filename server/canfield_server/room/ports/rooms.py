"""Rooms: the room store (every read and write of a room, its players and
their moves), the room bus between processes, and a client connection."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
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
    "RoomSave",
    "Stored",
    "Behind",
    "RaceOver",
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
    #: cards left in the reserve and cards on the tableau (counts of cards the
    #: racer sees, never which): a lane's progress before cards go home; None in
    #: a row stored by an older server
    reserve: int | None = None
    tableau: int | None = None
    #: the racer's median round trip this race when the row was stored (ms; None:
    #: not measured, or stored by an older server)
    rtt_ms: int | None = None


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
    #: the racer's board after it (``PlayerRace.view_json``), for the spectators of
    #: a room that shows boards: it goes to the other processes with the row
    board: bytes | None = None


@dataclass(frozen=True, slots=True)
class RoomSave:
    """One save of a room (``RoomStore.save_room``): its new ``state`` if the
    stored version is still ``expected_ver``, and what else changes with it."""

    expected_ver: int
    state: RoomState
    _: KW_ONLY
    #: the room's secret deal (a new race)
    deal: str | None = None
    #: (token hash, member id): a seat's token, kept for rejoining
    token: tuple[str, str] | None = None
    #: the player ids whose last race is cleared (start and rematch)
    new_race: list[str] | None = None
    #: the race finished: its results
    final: bytes | None = None
    #: a member whose tokens are deleted (their seat is gone)
    revoke: str | None = None
    #: the member the host removed (the event says so)
    kicked: str | None = None
    #: a new member whose connection here is counted in the same step (no
    #: heartbeat can see the seat without its connection)
    present: str | None = None
    #: the address creating this new room (``claim_room`` counted it); a save that
    #: opens or closes a room (``rules.room_open``) counts it again, or no more,
    #: against the address that created it
    creator: str | None = None


@dataclass(frozen=True, slots=True)
class Stored:
    """A board action is stored. ``race_over``: it ended the race (it was the last
    racer's finishing action)."""

    race_over: bool = False


@dataclass(frozen=True, slots=True)
class Behind:
    """Nothing stored: the stored board moved on (another connection of the same
    player stored first); it is at ``seq``."""

    seq: int


@dataclass(frozen=True, slots=True)
class RaceOver:
    """Nothing stored: the race the action was for is not on (it is over, or another
    race is); ``phase``: the room's phase ("" when there is no such room)."""

    phase: str


class RoomStore(Protocol):
    """Every read and write the room logic makes; each one round trip."""

    origin: bytes
    #: a process whose heartbeat is older than this counts as gone
    presence_stale_ms: int

    async def load_room(self, code: str) -> RoomRecord | None: ...

    async def save_room(self, save: RoomSave) -> int | None:
        """Compare-and-set the room and publish it: its new version, or None when
        someone else saved first (the version was not ``save.expected_ver``)."""
        ...

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

    async def apply(self, move: MoveRecord) -> Stored | Behind | RaceOver:
        """Store one board action in one step (the compare-and-set on ``base_seq``)."""
        ...

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

    async def publish(self, code: str, payload: bytes) -> None:
        """Send ``payload`` to every process subscribed to ``code``, this one too
        (the room events are published by the store's scripts; this is for the
        signals that change no room, as an arena's heat formed)."""
        ...
