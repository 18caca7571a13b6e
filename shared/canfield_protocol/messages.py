"""Wire protocol v1: one msgspec Struct per message, shared by server and clients.

Every frame is a JSON object tagged by ``type`` (see ``docs/protocol.md``).
Client messages form one tagged union decoded with its schema at the edge
(:func:`decode_client`), so a handler only ever sees a valid, typed
message; server messages go out through the single :func:`encode`.
The Python client imports these same types (:func:`decode_server`), so the
shape is written once.

Boards (``Board``) are the engine's player view; the server passes the
view dict straight through (msgspec encodes a dict as readily as a
Struct), clients decode it into the typed Struct.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

import msgspec
from canfield.textinput import excerpt

from .arena_messages import (
    ArenaBerserk,
    ArenaBerserkOn,
    ArenaCreate,
    ArenaEnd,
    ArenaHistory,
    ArenaHistoryQuery,
    ArenaJoin,
    ArenaLeave,
    ArenaLeft,
    ArenaMsg,
    ArenaRemove,
    ArenaSettingsMsg,
    ArenaWatch,
)
from .enums import Cap, MemberStatus, Outcome, Phase, ReviewState, Role

__all__ = [
    "VERSION",
    "ReplayPlayer",
    "RoomReplay",
    "DailyReplay",
    "LineVerdict",
    "SlipWhy",
    "RacerReview",
    "ReplayReview",
    "ReviewState",
    "Outcome",
    "RANDOM_DEAL",
    "HIDDEN_DEAL",
    "Phase",
    "Role",
    "MemberStatus",
    "Cap",
    "ErrorCode",
    "ProtocolError",
    "ECHO_LIMIT",
    "RoomSettings",
    "NewRoomSettings",
    "Hello",
    "Create",
    "Join",
    "Resume",
    "SettingsMsg",
    "Ready",
    "Start",
    "MoveMsg",
    "Tap",
    "Undo",
    "GiveUp",
    "RaceAgain",
    "Rematch",
    "AddBot",
    "Ping",
    "RttPong",
    "Hint",
    "Leave",
    "Kick",
    "EndRace",
    "Quick",
    "GhostRace",
    "MAX_GHOSTS",
    "ClientMessage",
    "ReserveView",
    "StockView",
    "WasteView",
    "Board",
    "Member",
    "Series",
    "SeriesScore",
    "RoomState",
    "Row",
    "RatedRow",
    "rated_row",
    "Welcome",
    "Joined",
    "RoomMsg",
    "Countdown",
    "Started",
    "Ack",
    "BoardMsg",
    "Leaderboard",
    "RacerBoard",
    "Boards",
    "RacerProgress",
    "Progress",
    "Finished",
    "Error",
    "Pong",
    "RttPing",
    "Reconnect",
    "Notice",
    "HintMsg",
    "Left",
    "Kicked",
    "BotFailed",
    "BotOffer",
    "GhostOffer",
    "Searching",
    "LiveRace",
    "CLOSE_KICKED",
    "Identify",
    "Daily",
    "DailyStandingQuery",
    "HistoryQuery",
    "DeleteHistory",
    "IdentityMsg",
    "DailyStarted",
    "DailyFinished",
    "DailyStanding",
    "HistoryEntry",
    "DrawStats",
    "HistoryMsg",
    "HistoryDeleted",
    "ChallengeId",
    "MakeChallenge",
    "TakeChallenge",
    "ChallengeMade",
    "ChallengeRow",
    "ChallengeView",
    "ServerMessage",
    "encode",
    "decode_client",
    "decode_server",
    "error",
]


VERSION = 1

#: a board action's sequence number: 1, 2, ... (bounded so every client can
#: hold it exactly; 0, negatives and huge values are schema errors)
Seq = Annotated[int, msgspec.Meta(ge=1, le=2**53 - 1)]


class ErrorCode(StrEnum):
    """Every ``error.code`` the server sends (a stable, documented list)."""

    BAD_JSON = "bad-json"
    BAD_MESSAGE = "bad-message"
    TOO_LARGE = "too-large"
    BINARY = "binary"
    UNKNOWN_TYPE = "unknown-type"
    UNSUPPORTED_VERSION = "unsupported-version"
    NOT_IN_ROOM = "not-in-room"
    UNKNOWN_PLAYER = "unknown-player"
    ALREADY_IN_ROOM = "already-in-room"
    UNKNOWN_ROOM = "unknown-room"
    BAD_TOKEN = "bad-token"
    NOT_HOST = "not-host"
    NOT_PLAYER = "not-player"
    WRONG_PHASE = "wrong-phase"
    NOT_ALLOWED = "not-allowed"
    ROOM_FULL = "room-full"
    BAD_NAME = "bad-name"
    BAD_SETTINGS = "bad-settings"
    BAD_DEAL_CODE = "bad-deal-code"
    BAD_MOVE = "bad-move"
    BAD_CARD = "bad-card"
    ILLEGAL_MOVE = "illegal-move"
    NO_TARGET = "no-target"
    NOTHING_TO_UNDO = "nothing-to-undo"
    SEQ_GAP = "seq-gap"
    DONE = "done"
    RATE_LIMITED = "rate-limited"
    NOT_READY = "not-ready"
    UNAVAILABLE = "unavailable"
    INTERNAL = "internal"
    BAD_IDENTITY = "bad-identity"
    NO_IDENTITY = "no-identity"
    TOO_MANY_IDENTITIES = "too-many-identities"
    DAILY_PLAYED = "daily-played"
    BAD_DATE = "bad-date"
    UNKNOWN_REPLAY = "unknown-replay"
    UNKNOWN_CHALLENGE = "unknown-challenge"


class ProtocolError(Exception):
    """A request the server refuses; becomes one ``error`` message, nothing applied."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        rule: str | None = None,
        last_seq: int | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule
        self.last_seq = last_seq
        #: the facts behind the message, for a client to word it in its own
        #: language (e.g. ``names`` for ``not-ready``, ``retry_at`` for a limit)
        self.params = params


# ---------------------------------------------------------------- shared bodies


#: ``RoomSettings.deal`` for a new random deal each race
RANDOM_DEAL = "random"
#: ``RoomSettings.deal`` as broadcast for a typed-in code (nobody can look it up early)
HIDDEN_DEAL = "custom"


class RoomSettings(msgspec.Struct, kw_only=True, omit_defaults=False):
    """Host settings. ``deal`` is ``RANDOM_DEAL`` or a deal code (``HIDDEN_DEAL``
    when broadcast, so players cannot look a typed-in deal up before the race)."""

    draw: Literal[1, 3] = 3
    deal: str = RANDOM_DEAL
    time_limit_s: int | None = None
    #: a random deal is one the solver has proven winnable (the default): a race worth racing
    winnable_only: bool = True
    #: practice rooms allow hints (races do not)
    practice: bool = False
    #: races in a series: 1 (single races), or best of 3, 5 or 7
    best_of: Literal[1, 3, 5, 7] = 1
    #: the first racer to win ends the race for everyone (default: race for every place)
    first_finish_ends: bool = False
    #: spectators see every racer's board live (``boards``): what each racer sees,
    #: never a face-down card; never in a public race (added within version 1)
    spectator_boards: bool = False


class NewRoomSettings(RoomSettings, forbid_unknown_fields=True):
    """``create.settings``: the same fields, and a misspelt one is refused, not
    ignored. (What the server sends, ``RoomSettings``, takes fields a newer
    server may add, as every server-to-client struct does.)"""


# ---------------------------------------------------------------- client -> server


class _Client(
    msgspec.Struct, tag_field="type", forbid_unknown_fields=True, kw_only=True, omit_defaults=True
):
    """Base of client messages: tagged by ``type``, unknown fields refused."""


class Hello(_Client, tag="hello"):
    v: int = VERSION
    #: this client answers ``rtt_ping`` with ``rtt_pong`` at once, so the server
    #: may measure its round trip (added within version 1; a server that does not
    #: know it refuses the hello with ``bad-message``)
    rtt_ping: bool = False


class Create(_Client, tag="create"):
    name: str
    settings: NewRoomSettings | None = None


class Join(_Client, tag="join"):
    room: str
    name: str
    role: Role = Role.PLAYER
    #: a program, not a person: always ready, never the host, and it leaves
    #: the room with the last person
    bot: bool = False


class Resume(_Client, tag="resume"):
    room: str
    token: str


class SettingsMsg(_Client, tag="settings"):
    """Partial update: a field left out (or null, except ``time_limit_s``) keeps its value."""

    draw: Literal[1, 3] | None = None
    deal: str | None = None
    time_limit_s: int | None | msgspec.UnsetType = msgspec.UNSET
    winnable_only: bool | None = None
    practice: bool | None = None
    best_of: Literal[1, 3, 5, 7] | None = None
    first_finish_ends: bool | None = None
    spectator_boards: bool | None = None


class Ready(_Client, tag="ready"):
    ready: bool = True


class Start(_Client, tag="start"):
    """``force``: start although some players are not ready (the host confirmed)."""

    force: bool = False


class MoveMsg(_Client, tag="move"):
    seq: Seq
    move: str


class Tap(_Client, tag="tap"):
    seq: Seq
    card: str
    double_click: bool = True


class Undo(_Client, tag="undo"):
    seq: Seq


class GiveUp(_Client, tag="give_up"):
    seq: Seq


class Rematch(_Client, tag="rematch"):
    pass


class RaceAgain(_Client, tag="race_again"):
    """After a race, a racer asks for the next one: when every racer has, it starts."""


class AddBot(_Client, tag="add_bot"):
    strength: str | None = None
    pace_s: float | None = None


class Ping(_Client, tag="ping"):
    t: float = 0


#: a round-trip probe's number (the server's own count; bounded like ``Seq``)
ProbeNo = Annotated[int, msgspec.Meta(ge=1, le=2**53 - 1)]


class RttPong(_Client, tag="rtt_pong"):
    """The answer to the server's ``rtt_ping``: its ``n``, sent back at once."""

    n: ProbeNo


class Hint(_Client, tag="hint"):
    """The solver's next move for my board (practice rooms only; no ``seq``)."""


class Leave(_Client, tag="leave"):
    """Leave the room for good: the seat goes (mid-race, the player gives up first)."""


class Kick(_Client, tag="kick"):
    """The host removes a member: their seat goes (mid-race, they give up first)."""

    player_id: str


class EndRace(_Client, tag="end_race"):
    """The host ends the race now: results so far, by the usual ranking."""


class Quick(_Client, tag="quick"):
    """Race anyone, now: a seat in the next public race of this draw mode
    (identified connections only; answered with ``joined``)."""

    name: str
    draw: Literal[1, 3] = 3


#: ghosts one race may have (each a recorded racer the server replays)
MAX_GHOSTS = 3

#: a replay's id (``/replay/<id>``): a room race's ``r-...`` or a daily's ``d-...``
ReplayIdText = Annotated[str, msgspec.Meta(min_length=3, max_length=40)]
#: a racer's public id in a replay (a member id, or a daily racer's identity id)
RacerIdText = Annotated[str, msgspec.Meta(min_length=1, max_length=16)]


class GhostRace(_Client, tag="ghost_race"):
    """Race a finished race's deal against one or several of its racers, replayed
    by the server as ghosts at their own recorded pace (added within version 1;
    answered with ``joined``, then the countdown). ``racers``: their ids in the
    replay, at most ``MAX_GHOSTS``; none: the replay's first."""

    name: str
    replay: ReplayIdText
    racers: Annotated[list[RacerIdText], msgspec.Meta(max_length=MAX_GHOSTS)] = []


# identity, history and the daily race (docs/protocol.md "Identity, history, daily race")

#: a UTC date, ``YYYY-MM-DD`` in ASCII digits (``\Z``: no trailing newline)
DateText = Annotated[str, msgspec.Meta(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")]


class Identify(_Client, tag="identify"):
    """Who this browser is: its identity token, or none to be issued one."""

    token: str | None = None


class Daily(_Client, tag="daily"):
    """Play today's daily deal of a draw mode (once a day; again: resume it)."""

    name: str
    draw: Literal[1, 3] = 3


class DailyStandingQuery(_Client, tag="daily_standing"):
    """The standing of a day's daily race (default: today); a past day shows its deal."""

    draw: Literal[1, 3] = 3
    date: DateText | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=100)] = 10


class HistoryQuery(_Client, tag="history"):
    """This identity's finished races (newest first) and its stats."""

    limit: Annotated[int, msgspec.Meta(ge=1, le=200)] = 20


class DeleteHistory(_Client, tag="delete_history"):
    """Forget this identity's finished races."""


#: a challenge link's id: 16 URL-safe characters (96 random bits)
ChallengeId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{16}\Z")]


class TakeChallenge(_Client, tag="take_challenge"):
    """Race a challenge link's racer as a ghost on its deal (added within version 1)."""

    challenge: ChallengeId
    name: str


class MakeChallenge(_Client, tag="challenge"):
    """A challenge link of one racer's run in a finished race (added within
    version 1): ``replay`` the race's replay id (``r-...``), ``player_id`` the racer."""

    replay: Annotated[str, msgspec.Meta(max_length=64)]
    player_id: Annotated[str, msgspec.Meta(max_length=32)]


ClientMessage = (
    Hello
    | Create
    | Join
    | Resume
    | SettingsMsg
    | Ready
    | Start
    | MoveMsg
    | Tap
    | Undo
    | GiveUp
    | Rematch
    | RaceAgain
    | AddBot
    | Ping
    | RttPong
    | Hint
    | Leave
    | Kick
    | EndRace
    | Quick
    | GhostRace
    | Identify
    | Daily
    | DailyStandingQuery
    | HistoryQuery
    | DeleteHistory
    | ArenaCreate
    | ArenaJoin
    | ArenaWatch
    | ArenaSettingsMsg
    | ArenaEnd
    | ArenaRemove
    | ArenaBerserk
    | ArenaLeave
    | MakeChallenge
    | TakeChallenge
    | ArenaHistoryQuery
)


# ---------------------------------------------------------------- server -> client


class ReserveView(msgspec.Struct):
    top: str | None
    count: int


class StockView(msgspec.Struct):
    count: int


class WasteView(msgspec.Struct):
    """``under``: Draw 3's seen cards beneath a fan of fewer than three (absent
    from an older server, so read as none)."""

    fan: list[str]
    count: int
    under: list[str] = msgspec.field(default_factory=list)


class Board(msgspec.Struct, kw_only=True):
    """The engine's player view: never a stock card, never a reserve card under its top."""

    draw: int
    start_rank: str
    reserve: ReserveView
    foundations: list[list[str]]
    tableau: list[list[str]]
    stock: StockView
    waste: WasteView
    score: int
    on_foundations: int
    won: bool
    can_undo: bool
    useful_move: bool | None = None


class Member(msgspec.Struct, kw_only=True):
    id: str
    name: str
    role: Role
    ready: bool = False
    connected: bool = True
    bot: bool = False
    #: server time when an away member's seat is given up (all their
    #: connections dropped); null while connected
    away_until: int | None = None
    #: joined as a player while a race was on: watches, and races from the rematch
    waiting: bool = False
    #: a ghost: a recorded racer the server replays at their own pace (also
    #: ``bot``: never hosts, always ready); added within version 1
    ghost: bool = False


class SeriesScore(msgspec.Struct, kw_only=True):
    id: str
    name: str
    wins: int = 0


class Series(msgspec.Struct, kw_only=True):
    """A best-of-N series: races won so far, each racer's (who left included).
    ``winner_id``: set when nobody can catch the leader any more."""

    best_of: int
    races: int = 0
    scores: list[SeriesScore] = msgspec.field(default_factory=list)
    winner_id: str | None = None


class _RoomBody(msgspec.Struct, kw_only=True):
    room: str
    phase: Phase
    host_id: str
    settings: RoomSettings
    members: list[Member]
    race: int = 0
    starts_at: int | None = None
    ends_at: int | None = None
    server_time: int = 0
    #: the series so far (rooms set to best of 3, 5 or 7), after its first race
    series: Series | None = None
    #: a public race (``quick``): anyone may be seated, nobody hosts it
    public: bool = False
    #: the arena this race is a heat of (its code; added within version 1)
    arena: str | None = None
    #: a heat of a public arena: rated as a public race is (added within version 1)
    rated: bool = False
    #: a ghost race: the replay whose racers race again as ghosts (``ghost_race``;
    #: unrated, one racer, no rematch); added within version 1
    ghost_of: str | None = None
    #: a challenge race: the challenge link's id it takes (``take_challenge``; its
    #: ``ghost_of`` is hidden until the race is over); added within version 1
    challenge: str | None = None


class RoomState(_RoomBody):
    """The body of a ``room`` message (and of ``joined.state``)."""


class Row(msgspec.Struct, kw_only=True):
    """One leaderboard row. ``time_ms``: from the start to the finish (won or
    gave up), else to the player's last accepted action. ``rank`` is shared by
    a true tie; ``reached_ms`` (when they won, or first had their number of
    cards home) is the tie-break, so a page can say what decided a place."""

    rank: int = 0
    id: str
    name: str
    score: int
    on_foundations: int
    moves: int
    status: MemberStatus
    time_ms: int
    reached_ms: int | None = None
    #: cards left in the racer's reserve, and cards on their tableau: counts of
    #: cards the racer sees (never which), the progress a lane shows before cards
    #: go home (added within version 1: null from an older server)
    reserve: int | None = None
    tableau: int | None = None
    #: the racer's round trip to the server, the median of the server's
    #: measures in this race (``rtt_ping``), in ms; null while there is none (a
    #: client that does not answer, or an older server: added within version 1)
    rtt_ms: int | None = None


class RatedRow(Row, kw_only=True, omit_defaults=True):
    """A ``finished`` standings row: for an identified racer in a public race, their
    rating after the race (the estimate), its uncertainty (``±``), whether it is
    still provisional (shown with a "?") and the change the race made to the
    estimate; bots, and racers of room races, have none of them."""

    rating: int | None = None
    rating_deviation: int | None = None
    rating_change: int | None = None
    rating_provisional: bool | None = None
    #: the integrity review of this result: ``open`` (flagged: under review, off
    #: the ladder and the daily ranked list until the operator decides) or
    #: ``confirmed`` (removed); absent: nothing to say
    review: str | None = None
    #: why an identified racer of a public race was not rated (fair play,
    #: docs/security.md): ``same-network``, ``pair-limit``, ``left-early``,
    #: ``barred``, ``no-opponent``; absent: rated, or nothing to rate (bots, rooms)
    unrated: str | None = None


def rated_row(
    row: Row,
    *,
    rating: int | None = None,
    rating_deviation: int | None = None,
    rating_change: int | None = None,
    rating_provisional: bool | None = None,
    unrated: str | None = None,
) -> RatedRow:
    """``row`` as a ``finished`` standings row, rated or not."""
    return RatedRow(
        **msgspec.structs.asdict(row),
        rating=rating,
        rating_deviation=rating_deviation,
        rating_change=rating_change,
        rating_provisional=rating_provisional,
        unrated=unrated,
    )


class _Server(msgspec.Struct, tag_field="type", kw_only=True):
    """Base of server messages."""


class Welcome(_Server, tag="welcome"):
    v: int
    server_time: int


class Joined(_Server, tag="joined"):
    room: str
    player_id: str
    token: str
    role: Role
    is_host: bool
    last_seq: int
    state: RoomState


class RoomMsg(_RoomBody, tag_field="type", tag="room"):
    """Sent to every member whenever the room changes."""


class Countdown(_Server, tag="countdown"):
    starts_at: int
    server_time: int


class Started(_Server, tag="started"):
    started_at: int
    ends_at: int | None
    board: Board | None
    server_time: int


class Ack(_Server, tag="ack"):
    seq: int
    move: str
    board: Board
    duplicate: bool = False


class BoardMsg(_Server, tag="board"):
    board: Board
    last_seq: int = 0


class Leaderboard(_Server, tag="leaderboard"):
    rows: list[Row]
    server_time: int


class RacerBoard(msgspec.Struct, kw_only=True):
    """One racer's board as that racer sees it (the engine's player view)."""

    id: str
    board: Board


class Boards(_Server, tag="boards"):
    """To spectators of a room whose host chose ``spectator_boards``: the racers'
    boards that changed since the last one (all of them on joining and at the
    start), at most one a leaderboard interval. Never a face-down card."""

    boards: list[RacerBoard]
    server_time: int


#: cards on the foundations run from 0 to 52: a racer's progress has at most 53 steps
CARDS_HOME_MAX = 52


class RacerProgress(msgspec.Struct, kw_only=True):
    """One racer's progress so far: ``reached[n]`` is the ms from the start when
    ``n`` cards first lay on their foundations (the counts, never the cards)."""

    id: str
    reached: Annotated[
        list[Annotated[int, msgspec.Meta(ge=0)]], msgspec.Meta(max_length=CARDS_HOME_MAX + 1)
    ]


class Progress(_Server, tag="progress"):
    """What the race chart needs from before a connection came: every racer's
    progress since ``started_at`` (sent on joining or resuming mid-race)."""

    started_at: int
    racers: list[RacerProgress]
    server_time: int


class Finished(_Server, tag="finished"):
    standings: list[RatedRow]
    deal: str
    replays: dict[str, list[str]]
    par: int | None = None
    server_time: int = 0
    #: the race's replay for anyone with the link (``/replay/<id>``)
    replay: str | None = None
    #: member id -> when the server received each action of ``replays[id]``, ms
    #: since the race's start (same length); racers whose log has no times
    #: (stored before times were kept) are left out; null from older servers
    replay_times: dict[str, list[int]] | None = None


class Error(_Server, tag="error", omit_defaults=True):
    code: str
    message: str
    seq: int | None = None
    rule: str | None = None
    last_seq: int | None = None
    params: dict[str, Any] | None = None


class Pong(_Server, tag="pong"):
    t: float
    server_time: int


class RttPing(_Server, tag="rtt_ping"):
    """The server measures this connection's round trip: answer ``rtt_pong`` with
    the same ``n`` at once (only to a client whose ``hello`` said ``rtt_ping``)."""

    n: int


class HintMsg(_Server, tag="hint"):
    """Reply to ``hint``: a move in engine notation, or null when none was found;
    ``busy``: no hint now (the solver could not take it in time; ask again)."""

    move: str | None
    busy: bool = False


class Reconnect(_Server, tag="reconnect"):
    """The server is going away (shutdown, redeploy): resume on a new connection."""

    message: str
    retry_ms: int = 500


class Notice(_Server, tag="notice"):
    """A word from the server's operator to every connected page ("the server
    restarts in 5 minutes"), in the operator's words; a page shows it as a banner.
    ``id``: a new notice has a new one (a page shows each once)."""

    id: str
    text: str


class Left(_Server, tag="left"):
    """This seat left the room (reply to ``leave``); the connection stays open, in no room."""

    room: str


#: the WebSocket close code after ``kicked``
CLOSE_KICKED = 4001


class BotFailed(_Server, tag="bot_failed"):
    """To the host: a bot it added could not take its seat (``code``: why, e.g.
    ``room-full``); nothing changed in the room."""

    name: str
    code: str
    message: str


class BotOffer(_Server, tag="bot_offer"):
    """To a racer waiting alone in a public race for ``waited_s``: nobody else
    came yet; the page may offer a race against a bot (never started for them)."""

    room: str
    draw: int
    waited_s: float


class GhostOffer(_Server, tag="ghost_offer"):
    """To a racer alone in a public race (with ``bot_offer``): a real past public
    race near their rating, over now, whose racer they may race as a ghost
    (``ghost_race`` with ``replay`` and ``racers: [racer]``). Added within
    version 1: a client that does not know it ignores it."""

    room: str
    draw: int
    replay: str
    racer: str
    name: str
    status: MemberStatus
    time_ms: int
    cards: int


class Searching(_Server, tag="searching", kw_only=True):
    """To a racer waiting alone in a public race, on arrival and each time the
    bands widen: what their waiting screen says. Counts and the band only:
    nobody's name, rating or room (added within version 1)."""

    room: str
    draw: int
    #: racers waiting alone for a public race of this draw mode now, this one included
    searching: int
    #: rating points either side of their race's centre it takes racers now
    #: (null: this server matches without ratings)
    band: int | None = None
    #: the widest the band gets (``band`` equal to it: it widens no more)
    band_most: int | None = None
    #: server ms the racer began waiting (their waiting clock counts from it)
    queued_at: int
    server_time: int


class LiveRace(msgspec.Struct, kw_only=True):
    """One public race in progress, as ``GET /api/live`` lists it (no cards)."""

    room: str
    draw: int
    racers: int
    names: list[str]
    elapsed_ms: int
    #: the name of the racer in first place now (null before anyone moved)
    leader: str | None = None


class Kicked(_Server, tag="kicked"):
    """The host removed this seat - or, ``by: "operator"``, the server's operator
    removed it, or (``closed``) closed the whole room; the connection is closed
    next (``CLOSE_KICKED``)."""

    room: str
    message: str
    by: Literal["host", "operator"] = "host"
    closed: bool = False


class IdentityMsg(_Server, tag="identity"):
    """Reply to ``identify``: ``token`` only when the server issued a new one."""

    id: str
    token: str | None = None
    new: bool = False
    #: consecutive UTC days with a daily race played (today or yesterday the last)
    streak: int = 0


class DailyStarted(_Server, tag="daily_started"):
    """Reply to ``daily``: the clock runs from ``started_at``; play with ``move``,
    ``tap``, ``undo``, ``give_up`` as in a room. The deal code is not sent."""

    date: str
    draw: int
    started_at: int
    board: Board
    last_seq: int = 0
    resumed: bool = False
    streak: int = 0
    server_time: int = 0


class DailyFinished(_Server, tag="daily_finished"):
    """This identity's daily race is over (won or given up): its row, ranked now."""

    date: str
    draw: int
    row: Row
    players: int
    replay: str
    streak: int = 0


class DailyStanding(_Server, tag="daily_standing"):
    """Everyone who played a day's daily race, by the rooms' ranking. ``deal`` and
    replays only once the day is over (``over``)."""

    date: str
    draw: int
    over: bool
    deal: str | None
    players: int
    rows: list[Row]
    me: Row | None = None
    #: replay links of ``rows`` (member id -> link), once the day is over
    replays: dict[str, str] | None = None
    server_time: int = 0
    #: flagged results waiting for the operator's review (rank 0: unranked),
    #: shown apart from ``rows``
    under_review: list[Row] | None = None
    #: rows of racers barred from ranked play, or held out by the fair-play rules
    #: (rank 0; ``unranked_why``), shown apart
    unranked: list[Row] | None = None
    #: why each of ``unranked`` (and ``me``, when unranked) is unranked: public id
    #: -> ``network-played`` (another identity of their network started this
    #: day's daily first), ``new-identity``; barred racers are not listed
    unranked_why: dict[str, str] | None = None


class ReplayPlayer(RatedRow, kw_only=True):
    """A racer in a replay: their final row and every action they took."""

    moves_list: list[str]
    #: when the server received each action of ``moves_list`` (same length), ms
    #: since the racer's race started (a room's start; in the daily race, the
    #: player's own); null in a replay kept before times were kept
    times_ms: list[int] | None = None


class RoomReplay(msgspec.Struct, kw_only=True, tag_field="kind", tag="room"):
    """``GET /replay/<id>`` of a room race (kept with the history that links to it)."""

    id: str
    room: str
    deal: str
    draw: int
    par: int | None
    #: server ms when the results were written
    at: int
    players: list[ReplayPlayer]


class DailyReplay(msgspec.Struct, kw_only=True, tag_field="kind", tag="daily"):
    """``GET /replay/<id>`` of one player's daily race, once its day is over."""

    id: str
    date: str
    deal: str
    draw: int
    players: list[ReplayPlayer]
    #: how many played that day
    daily_players: int
    #: the board the player left (the engine's view)
    final_board: dict[str, Any]


class SlipWhy(msgspec.Struct, kw_only=True):
    """What the move that lost the win gave up, in cards (``canfield.lesson.Why``):
    the page puts it into words."""

    kind: Literal["buried", "covered", "taken", "used", "filled", "early", "instead"]
    #: the card the winning line needed (a card text such as ``5H``)
    card: str
    #: the card the slip moved (None for a draw)
    moved: str | None = None
    #: the card the line built on ``card`` next
    need: str | None = None
    #: where the line sent ``card``: ``foundation``, ``column`` (an empty one),
    #: or a card text (onto that card)
    to: str | None = None


class LineVerdict(msgspec.Struct, kw_only=True):
    """The solver's review of one racer's line (``canfield.review.Verdict``):
    ``slip`` indexes the racer's actions (undos included), ``continuation``
    wins from the position just before it."""

    outcome: Outcome
    winnable_at_start: bool | None
    slip: int | None
    slip_move: str | None
    continuation: list[str] | None
    winnable_at_end: bool | None
    decided: bool
    won: bool
    #: the racer's actions, as reviewed
    moves: int
    solver_calls: int
    seconds: float
    #: with a slip, once taught (``canfield.lesson``): what the slip gave up,
    #: the length of the solver's first line (``continuation`` is then a short
    #: one), and whether no shorter line exists (false: the search's bound came
    #: first, so a shorter one may); all null in a verdict kept before, or when
    #: the teaching job did not get its turn
    why: SlipWhy | None = None
    line_first: int | None = None
    shortest: bool | None = None


class RacerReview(msgspec.Struct, kw_only=True):
    """One racer's review: its verdict, or how far it has come."""

    id: str
    state: ReviewState
    verdict: LineVerdict | None = None
    #: solver questions answered so far, and at most how many the review asks
    answered: int = 0
    questions: int = 0


class ReplayReview(msgspec.Struct, kw_only=True):
    """``GET /replay/<id>/review``: every racer's review of a finished race."""

    id: str
    deal: str
    racers: list[RacerReview]
    #: while any review is pending: ms to wait before asking again (else null)
    retry_ms: int | None = None


class HistoryEntry(msgspec.Struct, kw_only=True):
    """One finished race of an identity."""

    kind: Literal["room", "daily"]
    #: server ms when the race ended (a daily: when this player finished)
    at: int
    draw: int
    #: null while it may not be shown (today's daily deal)
    deal: str | None = None
    room: str | None = None
    date: str | None = None
    place: int
    players: int
    #: another racer shared the place (added within version 1; false when absent)
    tied: bool = False
    status: MemberStatus
    cards: int
    time_ms: int
    moves: int
    won: bool
    #: ``/replay/<id>`` (null for today's daily: shown once the day is over)
    replay: str | None = None
    #: the challenge link this race took (``/c/<id>``; added within version 1)
    challenge: str | None = None


class DrawStats(msgspec.Struct, kw_only=True):
    draw: int
    races: int
    wins: int
    win_rate: float
    best_time_ms: int | None
    avg_cards: float


class HistoryMsg(_Server, tag="history"):
    id: str
    races: list[HistoryEntry]
    stats: list[DrawStats]
    streak: int = 0


class HistoryDeleted(_Server, tag="history_deleted"):
    removed: int


class ChallengeMade(_Server, tag="challenge"):
    """A challenge link made (``challenge``): its id, its page's path (``/c/<id>``)
    and when it expires (server ms). Added within version 1."""

    id: str
    link: str
    expires_at: int


class ChallengeRow(msgspec.Struct, kw_only=True):
    """One taker of a challenge: their best result there."""

    rank: int
    name: str
    status: MemberStatus
    won: bool
    cards: int
    time_ms: int
    moves: int
    #: server ms their race ended
    at: int
    #: they did better than the challenge's racer
    beat: bool


class ChallengeView(msgspec.Struct, kw_only=True):
    """``GET /api/challenge/<id>``: what a challenge link shows before its race.
    Never its deal, its replay or its racer's moves."""

    id: str
    #: the challenge's racer and their result
    name: str
    status: MemberStatus
    won: bool
    cards: int
    time_ms: int
    draw: int
    created_at: int
    expires_at: int
    standing: list[ChallengeRow]


ServerMessage = (
    Welcome
    | Joined
    | RoomMsg
    | Countdown
    | Started
    | Ack
    | BoardMsg
    | Leaderboard
    | Boards
    | Progress
    | Finished
    | Error
    | Pong
    | RttPing
    | Reconnect
    | Notice
    | HintMsg
    | Left
    | Kicked
    | BotFailed
    | BotOffer
    | GhostOffer
    | Searching
    | IdentityMsg
    | DailyStarted
    | DailyFinished
    | DailyStanding
    | HistoryMsg
    | HistoryDeleted
    | ArenaMsg
    | ArenaLeft
    | ArenaBerserkOn
    | ChallengeMade
    | ArenaHistory
)

# ---------------------------------------------------------------- codecs

_encoder = msgspec.json.Encoder()
_client_decoder = msgspec.json.Decoder(ClientMessage)
_server_decoder = msgspec.json.Decoder(ServerMessage)
_any_decoder = msgspec.json.Decoder()


def encode(message: Any) -> bytes:
    """The one encoder for everything that goes on the wire (or into Redis)."""
    return _encoder.encode(message)


#: characters of a client's own text an error may quote (then "...")
ECHO_LIMIT = 24
#: the longest schema complaint sent back, whatever the decoder said
_COMPLAINT_MAX = 160


def _without_input(text: str) -> str:
    """msgspec's complaint with the one value it quotes from the input (an
    unknown field's name, a bad enum value) cut to a short, escaped excerpt.
    The ``- at `$.path``` tail names schema fields only, so it stays whole."""
    head, at, path = text.rpartition(" - at `")
    if not at:
        head, path = text, ""
    else:
        path = at + path
    for quote in "'`":
        first, last = head.find(quote), head.rfind(quote)
        if 0 <= first < last and last - first - 1 > ECHO_LIMIT:
            head = head[:first] + excerpt(head[first + 1 : last], ECHO_LIMIT) + head[last + 1 :]
            break
    if len(head) > _COMPLAINT_MAX:
        head = head[:_COMPLAINT_MAX] + "..."
    return head + path[:_COMPLAINT_MAX]


def decode_client(data: str | bytes) -> ClientMessage:
    """A client frame -> its typed message, or ``ProtocolError`` naming the problem
    (quoting at most ``ECHO_LIMIT`` characters of what the client sent)."""
    try:
        return _client_decoder.decode(data)
    except msgspec.ValidationError as exc:
        text = str(exc)
        if text.startswith("Invalid value") and text.endswith("`$.type`"):
            first, last = text.find("'"), text.rfind("'")
            name = text[first + 1 : last] if 0 <= first < last else "?"
            raise ProtocolError(
                ErrorCode.UNKNOWN_TYPE, f"unknown message type {excerpt(name, ECHO_LIMIT)}"
            ) from None
        if "Object missing required field `type`" in text:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message needs a string 'type'") from None
        raise ProtocolError(ErrorCode.BAD_MESSAGE, _without_input(text)) from None
    except msgspec.DecodeError as exc:
        try:
            _any_decoder.decode(data)
        except msgspec.DecodeError:
            raise ProtocolError(
                ErrorCode.BAD_JSON, f"not JSON: {_without_input(str(exc))}"
            ) from None
        raise ProtocolError(ErrorCode.BAD_MESSAGE, _without_input(str(exc))) from None


def decode_server(data: str | bytes) -> ServerMessage:
    """A server frame -> its typed message (for Python clients)."""
    return _server_decoder.decode(data)


def error(exc: ProtocolError, seq: int | None = None) -> Error:
    return Error(
        code=exc.code,
        message=exc.message,
        seq=seq,
        rule=exc.rule,
        last_seq=exc.last_seq,
        params=exc.params,
    )
