"""Room rules, sans I/O: who may do what to a room, as pure functions.

Each function takes a :class:`RoomState` and returns a new one (or raises
``ProtocolError`` naming the problem, with the input untouched). Storage,
sockets and clocks stay outside: the caller passes ``now_ms`` and saves
the result, so these rules are tested without Redis or a server.

Beside them, each its own concept: what a room hands out (room codes,
member ids, tokens, an address's network) in ``identifiers``, public races
in ``public``, departures and the room's timers in ``departures``.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from canfield import DealCode, InvalidDealCodeError
from canfield.textinput import strip_spaces
from canfield_protocol import (
    HIDDEN_DEAL,
    RANDOM_DEAL,
    Cap,
    ErrorCode,
    Member,
    Phase,
    ProtocolError,
    Role,
    RoomSettings,
    RoomState,
    Row,
    SettingsMsg,
)

from canfield_server.ops.config import Settings
from canfield_server.room.names import NAME_MAX, clean_name, name_key
from canfield_server.room.series import score_series

__all__ = [
    "NAME_MAX",
    "TIME_LIMIT_RANGE",
    "Limits",
    "clean_name",
    "check_settings",
    "create_room",
    "NO_HOST",
    "check_public_host",
    "add_member",
    "update_settings",
    "set_ready",
    "start_race",
    "finish_race",
    "rematch",
    "score_series",
    "set_connected",
    "remove_member",
    "check_kick",
    "kick",
    "players",
    "name_key",
    "not_ready",
    "check_end_race",
    "heir",
    "member",
    "public_settings",
    "boards_shown",
]

TIME_LIMIT_RANGE = (30, 7200)


class Limits(msgspec.Struct, frozen=True):
    """Seats per room (from ``Settings``: its defaults are the only ones)."""

    max_players: int
    max_spectators: int


DEFAULT_LIMITS = Limits(Settings.max_players_per_room, Settings.max_spectators_per_room)


def check_settings(settings: RoomSettings) -> RoomSettings:
    """Validate host settings; a typed-in deal code is normalised and its draw wins."""
    limit = settings.time_limit_s
    low, high = TIME_LIMIT_RANGE
    if limit is not None and not low <= limit <= high:
        raise ProtocolError(
            ErrorCode.BAD_SETTINGS, f"time_limit_s must be null or {low}..{high}, not {limit}"
        )
    deal = strip_spaces(settings.deal)  # ASCII spaces only: the code's own alphabet
    draw = settings.draw
    if deal.lower() == RANDOM_DEAL or not deal:
        deal = RANDOM_DEAL
    else:
        try:
            code = DealCode.parse(deal)
        except InvalidDealCodeError as exc:
            raise ProtocolError(ErrorCode.BAD_DEAL_CODE, str(exc)) from None
        deal, draw = str(code), 1 if code.draw == 1 else 3
    return msgspec.structs.replace(settings, deal=deal, draw=draw)


def public_settings(settings: RoomSettings) -> RoomSettings:
    """Settings as broadcast: a typed-in deal code shows as ``custom``."""
    if settings.deal == RANDOM_DEAL:
        return settings
    return msgspec.structs.replace(settings, deal=HIDDEN_DEAL)


def boards_shown(state: RoomState) -> bool:
    """Whether this room's spectators see the racers' boards live: only where its
    host chose it, and never in a public race (rated: nobody may watch a rival's
    cards there; its boards show in its replays, once it is over), nor in a
    ghost race (a ghost's board would show the racer cards still face down on
    their own board: docs/security.md, "Ghost races")."""
    return state.settings.spectator_boards and not state.public and state.ghost_of is None


def member(state: RoomState, member_id: str) -> Member | None:
    for m in state.members:
        if m.id == member_id:
            return m
    return None


def players(state: RoomState) -> list[Member]:
    return [m for m in state.members if m.role == Role.PLAYER]


def _replace_member(state: RoomState, new: Member) -> RoomState:
    members = [new if m.id == new.id else m for m in state.members]
    return msgspec.structs.replace(state, members=members)


#: who acts as host in a public race: the server, never a member
NO_HOST = ""


def _require_host(state: RoomState, member_id: str, what: str) -> None:
    if state.public:
        check_public_host(state, member_id, what)
    elif state.host_id != member_id:
        raise ProtocolError(ErrorCode.NOT_HOST, f"only the host can {what}")


def _require_phase(state: RoomState, phase: Phase, what: str) -> None:
    if state.phase != phase:
        raise ProtocolError(
            ErrorCode.WRONG_PHASE, f"cannot {what} now: the room is in {state.phase}"
        )


def check_public_host(state: RoomState, member_id: str, what: str) -> None:
    """A public race has no host: only the server (``NO_HOST``) starts it."""
    if state.public and member_id != NO_HOST:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"a public race has no host: nobody can {what}")


def create_room(
    code: str, host_id: str, name: str, settings: RoomSettings | None = None
) -> RoomState:
    host = Member(id=host_id, name=clean_name(name), role=Role.PLAYER)
    return RoomState(
        room=code,
        phase=Phase.LOBBY,
        host_id=host_id,
        settings=check_settings(settings or RoomSettings()),
        members=[host],
    )


def add_member(
    state: RoomState,
    member_id: str,
    name: str,
    role: Role,
    limits: Limits = DEFAULT_LIMITS,
    bot: bool = False,
) -> RoomState:
    """A newcomer. Spectators join any time, players in the lobby or after a race;
    a player who comes while a race is on watches it (``waiting``) and races
    from the rematch (in a ghost race, which has one racer, they watch).
    ``bot``: a bot the host added (shown as one)."""
    text = clean_name(name)
    waiting = False
    if state.ghost_of is not None:
        role = Role.SPECTATOR  # a ghost race has one racer: anyone else watches it
    if role == Role.PLAYER:
        seated = len(players(state)) + sum(m.waiting for m in state.members)
        if seated >= limits.max_players:
            raise ProtocolError(
                ErrorCode.ROOM_FULL,
                f"the room has {limits.max_players} players, the most it takes",
                params={"cap": Cap.PLAYERS, "limit": limits.max_players},
            )
        if state.phase in (Phase.COUNTDOWN, Phase.RACING):
            role, waiting = Role.SPECTATOR, True
    elif _spectators(state) >= limits.max_spectators:
        raise ProtocolError(
            ErrorCode.ROOM_FULL,
            "the room has no more spectator seats",
            params={"cap": Cap.SPECTATORS, "limit": limits.max_spectators},
        )
    key = name_key(text)
    if any(name_key(m.name) == key for m in state.members):
        raise ProtocolError(
            ErrorCode.BAD_NAME, "that name is taken in this room (or looks like one that is)"
        )
    # a bot is ready from the start: a start never waits for it, and the lobby says so
    new = Member(id=member_id, name=text, role=role, bot=bot, ready=bot, waiting=waiting)
    # a room whose people all left is hosted by the next person to come; a public
    # race never has a host (a watcher who comes is no host of it)
    host_id = state.host_id or (NO_HOST if bot or state.public else member_id)
    return msgspec.structs.replace(state, members=[*state.members, new], host_id=host_id)


def _spectators(state: RoomState) -> int:
    """Spectator seats taken (a player waiting for the rematch holds a player's)."""
    return sum(m.role == Role.SPECTATOR and not m.waiting for m in state.members)


def update_settings(state: RoomState, member_id: str, msg: SettingsMsg) -> RoomState:
    _require_host(state, member_id, "change the settings")
    _require_phase(state, Phase.LOBBY, "change the settings")
    old = state.settings
    merged = RoomSettings(
        draw=old.draw if msg.draw is None else msg.draw,
        deal=old.deal if msg.deal is None else msg.deal,
        time_limit_s=old.time_limit_s if msg.time_limit_s is msgspec.UNSET else msg.time_limit_s,
        winnable_only=old.winnable_only if msg.winnable_only is None else msg.winnable_only,
        practice=old.practice if msg.practice is None else msg.practice,
        best_of=old.best_of if msg.best_of is None else msg.best_of,
        first_finish_ends=(
            old.first_finish_ends if msg.first_finish_ends is None else msg.first_finish_ends
        ),
        spectator_boards=(
            old.spectator_boards if msg.spectator_boards is None else msg.spectator_boards
        ),
    )
    if msg.draw is not None and msg.deal is None and merged.deal != RANDOM_DEAL:
        # a new draw mode applies to the typed-in deal too
        merged = msgspec.structs.replace(
            merged, deal=str(DealCode.parse(merged.deal).with_draw(msg.draw))
        )
    series = state.series if merged.best_of == old.best_of else None  # a new series
    return msgspec.structs.replace(state, settings=check_settings(merged), series=series)


def set_ready(state: RoomState, member_id: str, ready: bool) -> RoomState:
    _require_phase(state, Phase.LOBBY, "get ready")
    me = member(state, member_id)
    if me is None or me.role != Role.PLAYER:
        raise ProtocolError(ErrorCode.NOT_PLAYER, "only players get ready")
    return _replace_member(state, msgspec.structs.replace(me, ready=ready or me.bot))


def not_ready(state: RoomState) -> list[Member]:
    """Players the host would start without: people (bots are ready from the
    start, the host starts) who have not said they are ready."""
    return [m for m in players(state) if not (m.ready or m.bot or m.id == state.host_id)]


def start_race(
    state: RoomState,
    member_id: str,
    now_ms: int,
    countdown_s: float,
    proven: str | None = None,
    force: bool = False,
) -> tuple[RoomState, DealCode]:
    """The host starts: the deal is fixed now and dealt at ``starts_at``.

    Every player must be ready, unless the host confirmed (``force``).
    ``proven``: a solver-proven code to use instead of a random one
    (winnable-only rooms); a typed-in deal code always wins.
    """
    _require_host(state, member_id, "start the race")
    _require_phase(state, Phase.LOBBY, "start a race")
    if not players(state):
        raise ProtocolError(ErrorCode.WRONG_PHASE, "a race needs at least one player")
    waiting_for = not_ready(state)
    if waiting_for and not force:
        names = [m.name for m in waiting_for]
        raise ProtocolError(
            ErrorCode.NOT_READY,
            f"{len(names)} player(s) not ready yet (start anyway to race without waiting)",
            params={"names": names},
        )
    settings = state.settings
    if settings.deal == RANDOM_DEAL:
        deal = DealCode.parse(proven) if proven else DealCode.random(settings.draw)
    else:
        deal = DealCode.parse(settings.deal)
    starts_at = now_ms + int(countdown_s * 1000)
    ends_at = starts_at + settings.time_limit_s * 1000 if settings.time_limit_s else None
    new = msgspec.structs.replace(
        state, phase=Phase.RACING, race=state.race + 1, starts_at=starts_at, ends_at=ends_at
    )
    return new, deal


def finish_race(state: RoomState, standings: Sequence[Row] | None = None) -> RoomState:
    """The race is over; in a series, its winner (first in ``standings``) scores.
    Nobody but the bots is ready for the next race until they say so (``race_again``)."""
    members = [msgspec.structs.replace(m, ready=m.bot) for m in state.members]
    done = msgspec.structs.replace(state, phase=Phase.FINISHED, members=members)
    return score_series(done, standings) if standings else done


def race_again(state: RoomState, member_id: str) -> RoomState:
    """After a race, a racer (or one who joined as a player during it) asks for
    the next: ready for it."""
    _require_phase(state, Phase.FINISHED, "race again")
    me = member(state, member_id)
    if me is None or me.role != Role.PLAYER:
        raise ProtocolError(ErrorCode.NOT_PLAYER, "only players race again")
    return _replace_member(state, msgspec.structs.replace(me, ready=True))


def everyone_again(state: RoomState) -> bool:
    """Every connected racer of the next race asked for it (bots always do; a
    racer who is away does not hold the others up)."""
    people = [m for m in state.members if m.role == Role.PLAYER and not m.bot and m.connected]
    return state.phase == Phase.FINISHED and bool(people) and all(m.ready for m in people)


def rematch(state: RoomState, member_id: str) -> RoomState:
    """Back to the lobby, same members, a new random deal; ready: the bots, and
    whoever asked to race again."""
    _require_host(state, member_id, "call a rematch")
    _require_phase(state, Phase.FINISHED, "call a rematch")
    if state.ghost_of is not None:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, "a ghost race is raced again as a new one (race_again)"
        )
    # a decided series is over: the next race starts a new one
    series = None if state.series is None or state.series.winner_id else state.series
    # who joined as a player during the race takes their seat now
    members = [
        msgspec.structs.replace(
            m, ready=m.bot or m.ready, waiting=False, role=Role.PLAYER if m.waiting else m.role
        )
        for m in state.members
    ]
    settings = msgspec.structs.replace(state.settings, deal=RANDOM_DEAL)
    return msgspec.structs.replace(
        state,
        phase=Phase.LOBBY,
        members=members,
        settings=settings,
        starts_at=None,
        ends_at=None,
        series=series,
    )


def set_connected(
    state: RoomState, member_id: str, connected: bool, away_until: int | None = None
) -> RoomState:
    """A member's connections came back, or all went (``away_until``: when the
    seat is given up if they do not come back)."""
    me = member(state, member_id)
    if me is None or me.connected == connected:
        return state
    until = None if connected else away_until
    return _replace_member(
        state, msgspec.structs.replace(me, connected=connected, away_until=until)
    )


def room_open(state: RoomState) -> bool:
    """A room counts against the address that created it while it is open: its
    race is not over (a lobby, a countdown, a race) and a person (not a bot) is
    still in it, here or away within the grace time. Racing again opens it again."""
    return state.phase != Phase.FINISHED and any(not m.bot for m in state.members)


def check_end_race(state: RoomState, member_id: str) -> None:
    _require_host(state, member_id, "end the race")
    _require_phase(state, Phase.RACING, "end the race")


def remove_member(state: RoomState, member_id: str) -> RoomState:
    """A member leaves for good: their seat goes (no ghost fills the lobby).

    A leaving host hands the role on (``heir``).
    """
    if member(state, member_id) is None:
        raise ProtocolError(ErrorCode.UNKNOWN_PLAYER, f"no member {member_id!r} in this room")
    members = [m for m in state.members if m.id != member_id]
    host_id = state.host_id
    if host_id == member_id:
        host_id = heir(members)
    return msgspec.structs.replace(state, members=members, host_id=host_id)


def heir(members: list[Member]) -> str:
    """Who hosts next: the earliest-joined person who is here, a player before a
    spectator; then one who is away; never a bot ("" when only bots are left)."""
    people = [m for m in members if not m.bot]
    # stable: join order within each kind
    ranked = sorted(people, key=lambda m: (not m.connected, m.role != Role.PLAYER))
    return ranked[0].id if ranked else ""


def check_kick(state: RoomState, host_id: str, target_id: str) -> Member:
    """Who the host may remove: any other member of the room."""
    _require_host(state, host_id, "remove members")
    if target_id == host_id:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, "the host cannot remove themselves: leave instead"
        )
    target = member(state, target_id)
    if target is None:
        raise ProtocolError(ErrorCode.UNKNOWN_PLAYER, f"no member {target_id[:16]!r} in this room")
    return target


def kick(state: RoomState, host_id: str, target_id: str) -> RoomState:
    """The host removes another member's seat (in any phase)."""
    check_kick(state, host_id, target_id)
    return remove_member(state, target_id)
