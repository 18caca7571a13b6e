"""What the room logic needs from the world, as interfaces.

The room package never imports Redis, Starlette or websockets: it talks
to a ``RoomStore`` (``storage.store.RedisStore`` in production), a
``RoomBus`` (``storage.pubsub``), a ``SolverService``
(``solving.deal_pool``), a ``BotLauncher`` and ``Peer`` connections
(``transport.ws``), all wired together at start-up by ``transport.app``.
Tests wire in-memory peers the same way.
"""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from typing import Any, NamedTuple, Protocol

import msgspec
from canfield_protocol import Cap, MemberStatus, Role, RoomState

from canfield_server.room.integrity import Signals

__all__ = [
    "StoredRow",
    "Peer",
    "RoomRecord",
    "RoomBudget",
    "RoomsRefused",
    "Band",
    "MatchQueue",
    "MoveRecord",
    "RoomStore",
    "RoomBus",
    "Proven",
    "SolverBusy",
    "SolverService",
    "BotLauncher",
    "StorageErrors",
    "IdentityStore",
    "IdentityBudget",
    "IdentitiesRefused",
    "DailyMove",
    "DailyAttempt",
    "DailyStore",
    "DailyDeals",
    "StoredRating",
    "RatingPoint",
    "LadderRow",
    "RatingChange",
    "RatingStore",
    "REVIEW_OPEN",
    "REVIEW_CLEARED",
    "REVIEW_CONFIRMED",
    "ReviewCase",
    "IntegrityStore",
    "room_result",
    "daily_result",
    "race_of",
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


class Band(NamedTuple):
    """How far apart in rating a gathering public race takes racers: ``points``
    either side of its first racer's rating at first, ``widen_points`` more for
    every ``widen_ms`` it has waited, at most ``most_points``."""

    points: int
    widen_points: int
    widen_ms: int
    most_points: int

    def width(self, waited_ms: int) -> int:
        steps = max(0, waited_ms) // max(1, self.widen_ms)
        return min(self.points + self.widen_points * steps, self.most_points)


class MatchQueue(Protocol):
    """Where public races gather, shared by every process (``room/quick.py``):
    the open races of each pool (a draw mode), each centred on its first
    racer's rating, and the public races in progress."""

    async def find_race(
        self,
        pool: str,
        rating: int,
        now_ms: int,
        band: Band,
        *,
        ttl_s: int,
        offer: str = "",
        mine: str = "",
    ) -> str | None:
        """The gathering race of ``pool`` whose band (widened by its wait so far)
        holds ``rating``, the closest in rating first (then the longest waiting).
        None found: ``offer`` (a new race's code; empty: none) becomes one of the
        pool's races, centred on ``rating``, and is returned. A race open longer
        than ``ttl_s`` (its room is gone) is forgotten.
        ``mine``: the race a racer waits alone in, looking again as the bands
        widen. It is never the answer: when another race is found it leaves the
        pool (the racer moves there), else it stays, or comes back, centred on
        ``rating`` and keeping the time it opened, and is returned.
        One atomic step: two processes never both open a race for close racers."""
        ...

    async def close_race(self, pool: str, code: str) -> None:
        """``code`` takes nobody more: the pool forgets it."""
        ...

    async def reopen_race(self, pool: str, code: str, rating: int, now_ms: int, ttl_s: int) -> None:
        """``code`` gathers again, centred on ``rating`` (its racer found another race
        as someone joined theirs, and stays): back in the pool, waiting from now."""
        ...

    async def live_add(self, code: str, started_at: int) -> None: ...

    async def live(self, limit: int) -> list[str]:
        """Public races in progress (or just over), newest first."""
        ...

    async def live_drop(self, code: str) -> None: ...


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


class Proven(NamedTuple):
    """A deal code the solver won, and the length of its winning line."""

    code: str
    par: int

    def entry(self) -> str:
        return f"{self.code} {self.par}"

    @classmethod
    def from_entry(cls, raw: bytes | str) -> Proven:
        code, par = (raw.decode() if isinstance(raw, bytes) else raw).split()
        return cls(code, int(par))


class SolverBusy(Exception):
    """The solver cannot answer in time: "no hint now" (nothing was computed)."""


class SolverService(Protocol):
    """The solver's workers: winnable-only deals, par, hints; each request in its
    room's fair turn (see ``solving.scheduler``)."""

    async def take(self, draw: int, room: str) -> Proven: ...

    async def put_back(self, draw: int, proven: Proven) -> None: ...

    def solve_par(self, code: str, room: str) -> Any: ...

    async def par(self, code: str, room: str) -> int | None: ...

    async def hint(
        self, room: str, who: str, position: dict[str, Any], shares: Sequence[str] = ()
    ) -> str | None: ...


class SignalService(Protocol):
    """A finished racer's integrity signals (``solving.integrity``): its stored log
    (receipt times in it) judged, the solver asked in ``owner``'s fair turn;
    None when the log does not replay on the deal."""

    async def assess(
        self, owner: str, deal: str, log_entries: Sequence[str], par: int | None
    ) -> Signals | None: ...


class BotLauncher(Protocol):
    """Starts a bot that joins ``room_code`` as ``name`` over the server's own
    protocol; the returned coroutine runs the bot to its end. Raises
    ``ValueError`` or ``TypeError`` for options it does not take."""

    def __call__(
        self, room_code: str, name: str, **options: Any
    ) -> Coroutine[Any, Any, object]: ...


# ---------------------------------------------------------------- identity, history, daily


class IdentityBudget(NamedTuple):
    """New identities one network (``rules.address_prefix``) may have: a token
    bucket of ``burst``, refilled at ``per_hour`` (``Settings``)."""

    burst: int
    per_hour: float

    def keep_ms(self) -> int:
        """How long a network's bucket is kept after it last asked: a day, or as
        long as it takes to fill again if that is longer."""
        if self.per_hour <= 0:
            return 7 * 86_400_000
        return max(86_400_000, int(self.burst / self.per_hour * 3_600_000) + 60_000)


class IdentitiesRefused(NamedTuple):
    """A network's budget of new identities is spent: its limits, and when (server
    ms) the next identity is back (-1: never; the refill rate is 0)."""

    burst: int
    per_hour: float
    retry_at: int


class IdentityStore(Protocol):
    """Identities (stored by the hash of their token), their finished races, the
    room replays, and which identity sits in which room seat.

    A new identity lives a short while (a day) unless it finishes a race: a
    history entry added for it (``add_races``) keeps it, and it then lives the
    full retention from its last use."""

    async def claim_identity(
        self, network: str, budget: IdentityBudget
    ) -> IdentitiesRefused | None:
        """Take one new identity from ``network``'s bucket (None), or say when one
        is back (nothing taken); one atomic step, shared by every process. Both
        are counted for the operator console."""
        ...

    async def new_identity(self, token_hash: str, public_id: str, network: str = "") -> None:
        """Store a new identity, issued to ``network`` (empty: no address)."""
        ...

    async def identity(self, token_hash: str) -> tuple[str, int, str] | None:
        """(public id, streak, date of the last daily played), keeping it alive
        if it is kept (it finished a race)."""
        ...

    async def identity_created(self, token_hash: str) -> int | None:
        """When the identity was issued (server ms; None: no such identity)."""
        ...

    async def identity_network(self, token_hash: str) -> str | None:
        """The network (``rules.address_prefix``) the identity was issued to; None
        when unknown (no address, an identity older than this field, or none)."""
        ...

    async def note_daily(self, token_hash: str, date: str, day_before: str) -> int: ...

    async def link_member(
        self, room: str, member_id: str, token_hash: str, network: str = ""
    ) -> None:
        """The seat ``member_id`` of ``room`` is ``token_hash``'s, taken from
        ``network`` ("": no network - an in-process peer, this host's own)."""
        ...

    async def room_networks(self, room: str) -> dict[str, str]:
        """member id -> the network its seat was last taken from (none: absent)."""
        ...

    async def room_identities(self, room: str) -> dict[str, str]: ...

    async def add_races(self, entries: list[tuple[str, bytes]]) -> None: ...

    async def races(self, token_hash: str, limit: int) -> list[bytes]: ...

    async def delete_races(self, token_hash: str) -> int: ...

    async def save_replay(self, replay_id: str, body: bytes) -> None: ...

    async def load_replay(self, replay_id: str) -> bytes | None: ...


class DailyMove(NamedTuple):
    """One accepted action in a daily race (one round trip, as in a room)."""

    date: str
    draw: int
    player: str
    base_seq: int
    #: the action with its receipt time, ms since this player's start (``room.stamps``)
    entry: str
    snapshot: bytes
    row: StoredRow
    #: the standing's sort score (``room.daily.standing_score``)
    score: float
    done: bool


class DailyAttempt(NamedTuple):
    """A player's daily race as stored."""

    started_at: int
    snapshot: bytes | None
    #: the actions as stored (``room.stamps.split_log``: actions and times)
    log: list[str]
    done: bool


class DailyStore(Protocol):
    """A day's daily race of one draw mode: attempts, logs and the standing."""

    async def claim(
        self, date: str, draw: int, player: str, name: str, now: int, row: StoredRow, score: float
    ) -> tuple[bool, int]:
        """Start ``player``'s attempt: (True, now), or (False, its start) if they have one."""
        ...

    async def attempt(self, date: str, draw: int, player: str) -> DailyAttempt | None: ...

    async def apply(self, move: DailyMove) -> tuple[int, int]:
        """(1, 0) stored, (0, stored seq) the board moved on elsewhere, (-1, 0) no attempt."""
        ...

    async def standing(
        self, date: str, draw: int, player: str | None, limit: int
    ) -> tuple[int, list[StoredRow], tuple[int, StoredRow] | None]:
        """(players, the first ``limit`` rows in rank order, (rank, row) of ``player``)."""
        ...

    async def hold(self, date: str, draw: int, player: str, network: str, reason: str) -> str:
        """Whether ``player``'s daily counts in the ranked standing, decided once, at
        their first start (later calls return the first answer): ``reason`` if
        given, else ``network-played`` if another player of ``network`` ("": none)
        started first that day, else "" (ranked)."""
        ...

    async def held(self, date: str, draw: int, players: list[str]) -> dict[str, str]:
        """Those of ``players`` held out of the ranked standing: id -> reason."""
        ...

    async def network_first(self, date: str, draw: int, network: str) -> str | None:
        """The player who first started that day's daily from ``network`` (None:
        nobody), as ``hold`` decided it."""
        ...


class DailyDeals(Protocol):
    """The deal of each day and draw mode: solver-proven, the same on every replica."""

    async def deal(self, date: str, draw: int) -> str: ...

    async def known(self, date: str, draw: int) -> str | None: ...


# ---------------------------------------------------------------- ratings


class StoredRating(msgspec.Struct, frozen=True, kw_only=True):
    """One identity's rating in one draw mode as stored (``room.ratings.Rating``
    plus the name it last raced under, which the ladder shows)."""

    mu: float
    sigma: float
    races: int
    name: str


class RatingPoint(msgspec.Struct, frozen=True, kw_only=True):
    """One public race in an identity's rating history (newest first when read)."""

    #: server ms when the race was rated
    at: int
    #: the cautious rating after the race (``ratings.shown``), its uncertainty, and
    #: the change of the estimate (of the cautious number, in points stored before)
    rating: int
    deviation: int
    change: int
    rank: int
    players: int
    #: the estimate after the race (``ratings.estimate``; None in points stored before)
    estimate: int | None = None


class RatingChange(msgspec.Struct, frozen=True, array_like=True):
    """What one rated race changed in one identity's rating: the mean's and the
    uncertainty's deltas (new minus old)."""

    mu: float
    sigma: float


class LadderRow(msgspec.Struct, frozen=True, kw_only=True):
    """A ladder row: the name, the cautious rating (its order) and its uncertainty,
    rated races, and the estimate shown (None in rows stored before)."""

    name: str
    rating: int
    deviation: int
    races: int
    estimate: int | None = None


class RatingStore(Protocol):
    """Ratings per identity (its token's hash) and draw mode, their histories,
    and the ladder of each draw mode (ordered by the shown rating)."""

    async def ratings(self, draw: int, identities: list[str]) -> dict[str, StoredRating]:
        """The stored ratings of those who have one, read together."""
        ...

    async def save_ratings(
        self, draw: int, saved: list[tuple[str, StoredRating, RatingPoint, LadderRow | None]]
    ) -> None:
        """Each identity's new rating, its history point (at the head; the oldest
        beyond the kept number go) and its ladder row (None: not on the ladder)."""
        ...

    async def claim_race(self, code: str, race_no: int) -> bool:
        """True for the first caller only, per race (room and race number): whoever
        gets it stores that race's ratings, so no race is rated twice."""
        ...

    async def ladder(self, draw: int, limit: int) -> list[LadderRow]:
        """The first ``limit`` ladder rows, best first."""
        ...

    async def ladder_of(self, draw: int, limit: int) -> list[tuple[str, LadderRow]]:
        """The same with each row's identity (token hash)."""
        ...

    async def rating_history(self, identity: str, draw: int, limit: int) -> list[RatingPoint]: ...

    async def pairs_rated(self, day: str, pairs: list[str]) -> dict[str, int]:
        """How many public races each pair (``rating_races.pair_key``) was rated
        together on the UTC ``day`` (pairs never rated that day: absent)."""
        ...

    async def note_pairs(self, day: str, pairs: list[str]) -> None:
        """Each pair was rated together once more on ``day`` (kept two days)."""
        ...

    async def opponents(self, draw: int, met: dict[str, list[str]]) -> dict[str, int]:
        """How many distinct identities each identity of ``met`` has been rated
        against in draw mode ``draw``, counting the ones listed for it."""
        ...

    async def note_opponents(self, draw: int, met: dict[str, list[str]]) -> None:
        """Each identity of ``met`` was rated against the identities listed for it
        (kept as long as its rating)."""
        ...

    async def save_race_changes(
        self, code: str, race_no: int, draw: int, changes: dict[str, RatingChange]
    ) -> None:
        """What a rated race changed for each of its rated identities (kept as
        long as histories), so a confirmed foul can give it back."""
        ...

    async def race_changes(self, code: str, race_no: int) -> tuple[int, dict[str, RatingChange]]:
        """(draw, identity -> change) of a rated race; (0, {}) if none is kept."""
        ...


# ---------------------------------------------------------------- integrity review

#: a flagged result waiting for the operator: shown to others as "under review",
#: off the ladder and the daily ranked list
REVIEW_OPEN = "open"
#: the operator found nothing wrong: the result stands again
REVIEW_CLEARED = "cleared"
#: the operator confirmed it: the result is removed, its identity barred from ranked play
REVIEW_CONFIRMED = "confirmed"


def room_result(code: str, race_no: int, member_id: str) -> str:
    """The result id of one racer's race in a room (a private or a public race)."""
    return f"{code}:{race_no}:{member_id}"


def daily_result(date: str, draw: int, public_id: str) -> str:
    """The result id of one identity's daily race (the same as its replay id)."""
    return f"d-{date}-{draw}-{public_id}"


def race_of(case: ReviewCase) -> str | None:
    """The race a result belongs to, as ``IntegrityStore.race_flags`` groups them:
    a daily's day and draw mode, a room race's replay id (None: it kept none)."""
    if case.kind == "daily":
        return f"daily:{case.date}:{case.draw}"
    return case.replay.rsplit("/", 1)[-1] if case.replay else None


class ReviewCase(msgspec.Struct, frozen=True, kw_only=True):
    """One finished racer's result as the integrity review keeps it: the evidence,
    who raced, which race, and (once flagged) where its review stands."""

    #: ``room_result`` or ``daily_result``
    result: str
    #: ``room`` (a private room's race), ``public`` (a quick race) or ``daily``
    kind: str
    #: server ms (epoch) when the assessment was recorded
    at: int
    draw: int
    #: a room race: its room code and race number; a daily: its date
    room: str | None = None
    race_no: int | None = None
    date: str | None = None
    #: the racer: identity token hash and public id (None: an unidentified guest),
    #: member id in the room (the daily: the public id) and the name raced under
    identity: str | None = None
    public_id: str | None = None
    member_id: str
    name: str
    #: the replay's link (``/replay/ID``), if the race kept one
    replay: str | None = None
    #: the network the racer's address belongs to (``rules.address_prefix``) and
    #: the public ids of the other identities seen on that network
    network: str | None = None
    shares: list[str] = []
    signals: Signals
    #: why the flag rule flagged it (empty: not flagged)
    reasons: list[str] = []
    #: "" (not flagged), ``REVIEW_OPEN``, ``REVIEW_CLEARED`` or ``REVIEW_CONFIRMED``;
    #: the operator who decided and when (server ms)
    status: str = ""
    decided_by: str | None = None
    decided_at: int | None = None


class IntegrityStore(Protocol):
    """Each finished result's integrity assessment, the queue of flagged ones
    (open until the operator clears or confirms them) and the identities barred
    from ranked play. Kept ``history_retention_days``."""

    async def record(self, case: ReviewCase) -> bool:
        """Keep one result's assessment, once: False (nothing changes) when that
        result has one already. A case with ``reasons`` is flagged: it is stored
        ``REVIEW_OPEN`` (whatever ``status`` it came with) and joins the queue;
        one without is stored with no status."""
        ...

    async def case(self, result: str) -> ReviewCase | None: ...

    async def open_cases(self, limit: int) -> list[ReviewCase]:
        """The first ``limit`` open cases, the newest recorded first."""
        ...

    async def decided_cases(self, limit: int) -> list[ReviewCase]:
        """The last ``limit`` decided cases, the latest decision first."""
        ...

    async def decide(self, result: str, confirm: bool, by: str, at: int) -> ReviewCase | None:
        """Clear (``confirm`` False) or confirm an open case, once: the case as
        decided, or None (nothing changes) when ``result`` is no open case
        (unknown, never flagged, or decided already). Confirming bars its
        identity from ranked play."""
        ...

    async def statuses(self, results: list[str]) -> dict[str, str]:
        """The flagged ones among ``results`` (read together): result -> status."""
        ...

    async def barred(self, identities: list[str]) -> set[str]:
        """The identities (token hashes) among these barred from ranked play."""
        ...

    async def barred_players(self, public_ids: list[str]) -> set[str]:
        """The same by public id (the daily standing's rows carry those)."""
        ...

    async def under_review(self, identities: list[str]) -> set[str]:
        """The identities (token hashes) among these with an open case."""
        ...

    async def race_flags(self, race: str) -> dict[str, str]:
        """One race's flagged results (``race_of``): a room race's member id, or
        a daily's public id -> status."""
        ...
