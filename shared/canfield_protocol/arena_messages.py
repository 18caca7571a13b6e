"""Arena messages (docs/protocol.md, "Arenas"): an evening of heats with a standing.

Kept in a module of their own; ``messages`` puts them in its tagged unions.
Every message here was added within version 1: a client that does not know
them ignores them, and an older client never sends them.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

__all__ = [
    "ARENA_CODE",
    "ARENA_MINUTES_MOST",
    "ARENA_MINUTES_LEAST",
    "ArenaCreate",
    "ArenaJoin",
    "ArenaWatch",
    "ArenaSettingsMsg",
    "ArenaEnd",
    "ArenaRemove",
    "ArenaBerserk",
    "ArenaLeave",
    "ArenaInfo",
    "ArenaListed",
    "PublicArenaList",
    "ArenaRow",
    "ArenaHeat",
    "ArenaMsg",
    "ArenaLeft",
    "ArenaBerserkOn",
    "ArenaHistoryQuery",
    "ArenaResult",
    "ArenaHistory",
]

#: an arena's code: 8 characters of the room codes' alphabet (a room's is 6)
ARENA_CODE = r"^[23456789ABCDEFGHJKMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz]{8}\Z"
ARENA_MINUTES_LEAST = 15
ARENA_MINUTES_MOST = 120

#: an arena's code as sent (any case); the server checks it (``ARENA_CODE``)
ArenaCode = Annotated[str, msgspec.Meta(min_length=1, max_length=16)]
Minutes = Annotated[int, msgspec.Meta(ge=ARENA_MINUTES_LEAST, le=ARENA_MINUTES_MOST)]
ArenaName = Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
PlayerName = Annotated[str, msgspec.Meta(min_length=1, max_length=40)]


class _ArenaClient(
    msgspec.Struct, tag_field="type", forbid_unknown_fields=True, kw_only=True, omit_defaults=True
):
    """Base of the arena's client messages: tagged by ``type``, unknown fields refused."""


class ArenaCreate(_ArenaClient, tag="arena_create"):
    """A private arena, joined by its link (identified connections only): its
    creator is its host and races in it as ``player_name``."""

    name: ArenaName
    player_name: PlayerName
    draw: Literal[1, 3] = 3
    minutes: Minutes = 30
    #: seconds from now to its start (0: at once)
    starts_in_s: Annotated[int, msgspec.Meta(ge=0, le=24 * 3600)] = 0


class ArenaJoin(_ArenaClient, tag="arena_join"):
    """Race in an arena (identified connections only); again: back in it."""

    arena: ArenaCode
    name: PlayerName


class ArenaWatch(_ArenaClient, tag="arena_watch"):
    """Follow an arena's standing without racing."""

    arena: ArenaCode


class ArenaSettingsMsg(_ArenaClient, tag="arena_settings"):
    """The host changes the length or the draw mode, before the start."""

    minutes: Minutes | None = None
    draw: Literal[1, 3] | None = None


class ArenaEnd(_ArenaClient, tag="arena_end"):
    """The host ends the arena now: the heats running end with their results."""


class ArenaRemove(_ArenaClient, tag="arena_remove"):
    """The host removes a racer (by their arena id): out of the standing for good."""

    racer: Annotated[str, msgspec.Meta(max_length=64)]


class ArenaBerserk(_ArenaClient, tag="arena_berserk"):
    """In a heat's countdown: no undo in this heat, for one point more on a podium."""


class ArenaLeave(_ArenaClient, tag="arena_leave"):
    """Stop racing in the arena (points kept); the connection follows it no more."""


class ArenaInfo(msgspec.Struct, kw_only=True):
    """An arena as its page shows it."""

    code: str
    name: str
    draw: int
    minutes: int
    starts_at: int
    ends_at: int
    #: ``scheduled`` (before its start), ``running``, ``closing`` (no new heat: the
    #: last minute, or the host ended it; heats still running), ``over``
    status: str
    public: bool = False
    #: the host's public id (a private arena's creator)
    host: str = ""
    #: a public arena's period in minutes (60 hourly, 1440 daily: the page names it
    #: in its reader's language); 0 for a private one. Added within version 1
    every: int = 0


class ArenaListed(ArenaInfo, kw_only=True):
    """A public arena as ``GET /api/arenas`` lists it: its racers so far."""

    racers: int = 0


class PublicArenaList(msgspec.Struct, kw_only=True):
    """``GET /api/arenas``: the public arenas running now, then the next ones, soonest
    first (the home page's announcement)."""

    arenas: list[ArenaListed]
    server_time: int


class ArenaRow(msgspec.Struct, kw_only=True):
    """One racer in the standing. ``last``: their places in their last heats, oldest
    first, one character each (``1``-``8``, ``-`` left)."""

    rank: int
    id: str
    name: str
    points: int
    #: podiums in a row: from 2 on, a podium counts double (the flame)
    streak: int
    heats: int
    last: str
    #: racing in a heat now
    racing: bool = False


class ArenaHeat(msgspec.Struct, kw_only=True):
    """A heat running now, one click from its spectator view (``/r/<room>?watch``)."""

    room: str
    names: list[str]
    started_at: int


class ArenaMsg(msgspec.Struct, tag_field="type", tag="arena", kw_only=True):
    """The arena's page: sent on ``arena_join``/``arena_watch`` and then at most once a
    tick (``CANFIELD_ARENA_TICK_S``) while anything in it changed; ``standing`` is
    the top of it, ``me`` this connection's own row wherever it stands."""

    arena: ArenaInfo
    standing: list[ArenaRow]
    racers: int
    me: ArenaRow | None = None
    heats: list[ArenaHeat] = msgspec.field(default_factory=list)
    #: racers waiting for their next heat now
    waiting: int = 0
    #: a racer of this connection waits for a heat (else: racing, watching, out)
    in_arena: bool = False
    server_time: int = 0


class ArenaLeft(msgspec.Struct, tag_field="type", tag="arena_left", kw_only=True):
    """This connection follows the arena no more: ``by`` ``self`` (``arena_leave``)
    or ``host`` (removed by the host)."""

    arena: str
    by: str = "self"


class ArenaBerserkOn(msgspec.Struct, tag_field="type", tag="arena_berserk_on", kw_only=True):
    """Berserk is on for this racer in heat ``room``: no undo until it ends."""

    room: str


class ArenaHistoryQuery(_ArenaClient, tag="arena_history"):
    """This identity's places in the arenas it raced (newest first)."""

    limit: Annotated[int, msgspec.Meta(ge=1, le=100)] = 20


class ArenaResult(msgspec.Struct, kw_only=True):
    """A racer's place in an arena that is over (kept in their history)."""

    code: str
    name: str
    draw: int
    place: int
    racers: int
    points: int
    heats: int
    ended_at: int
    public: bool = False
    #: a public arena's period (``ArenaInfo.every``); added within version 1
    every: int = 0
    #: a trophy: 1, 2 or 3 for a top-three place in a public arena (ties share
    #: it); 0 none. Added within version 1
    trophy: int = 0


class ArenaHistory(msgspec.Struct, tag_field="type", tag="arena_history", kw_only=True):
    """The reply to ``arena_history``."""

    arenas: list[ArenaResult]
