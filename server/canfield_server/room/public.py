"""Public races, sans I/O: rooms the server opens and hosts itself ("Race now").

A public race has no host (``rules.NO_HOST``, ``rules.check_public_host``):
it is opened empty for a draw mode, and the quick-race queue seats racers in
it while it gathers or counts down. Like ``rules``, each function takes a
``RoomState`` and returns a new one or raises ``ProtocolError``. A racer's
ask (``Ask``) and the pool it gathers in (``pool_of``) are here too: the
seat found, the wait alone and the offers (``room.quick``,
``quick_waiting``, ``quick_past``) all read them.
"""

from __future__ import annotations

from typing import NamedTuple

import msgspec
from canfield_protocol import (
    Cap,
    ErrorCode,
    Member,
    Phase,
    ProtocolError,
    Role,
    RoomSettings,
    RoomState,
)

from canfield_server.room.identity import Identity
from canfield_server.room.names import free_name, name_key
from canfield_server.room.rules import NO_HOST, member, players

__all__ = [
    "Ask",
    "create_public_room",
    "pool_of",
    "public_counting",
    "racer_name",
    "seat_public",
]


def pool_of(draw: int) -> str:
    """The pool a racer gathers in: one per draw mode (``d3``, ``d1``); the rating
    bands are within it (``MatchQueue.find_race``)."""
    return f"d{draw}"


class Ask(NamedTuple):
    """What a racer asked for: a seat in ``draw``'s pool, matched by ``rating``."""

    pool: str
    draw: int
    rating: int
    name: str
    identity: Identity
    #: server ms the racer began waiting (their waiting screen's clock); None: when
    #: their race opened (a racer back on a new connection)
    since_ms: int | None = None


def create_public_room(code: str, draw: int) -> RoomState:
    """An empty public race of a draw mode: proven-winnable random deals, no host."""
    return RoomState(
        room=code,
        phase=Phase.LOBBY,
        host_id=NO_HOST,
        settings=RoomSettings(draw=1 if draw == 1 else 3),
        members=[],
        public=True,
    )


def public_counting(state: RoomState, now_ms: int) -> bool:
    """A public race's countdown is on: a newcomer still races in it."""
    return state.phase == Phase.RACING and now_ms < (state.starts_at or 0)


def seat_public(
    state: RoomState, member_id: str, name: str, now_ms: int, max_racers: int
) -> RoomState:
    """A racer takes a seat in a public race while it gathers or counts down.
    A name taken there gets a number (``Ana 2``): a stranger cannot refuse it."""
    if not state.public:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "not a public race")
    if state.phase != Phase.LOBBY and not public_counting(state, now_ms):
        raise ProtocolError(ErrorCode.WRONG_PHASE, "this public race has started")
    if len(players(state)) >= max_racers:
        raise ProtocolError(
            ErrorCode.ROOM_FULL,
            f"this public race has {max_racers} racers, the most it takes",
            params={"cap": Cap.PLAYERS, "limit": max_racers},
        )
    text = free_name(name, {name_key(m.name) for m in state.members})
    new = Member(id=member_id, name=text, role=Role.PLAYER, ready=True)
    return msgspec.structs.replace(state, members=[*state.members, new])


def racer_name(state: RoomState, member_id: str | None) -> str:
    """The racer's name in the race (for the next one they are matched to)."""
    me = member(state, member_id or "")
    return me.name if me is not None else "Player"
