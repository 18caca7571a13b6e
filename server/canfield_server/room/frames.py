"""Every frame the server sends, built in one place.

A frame is the text of one WebSocket message. Frames meant for a whole
room are encoded once and sent to every connection as the same string.
"""

from __future__ import annotations

from typing import Any

import msgspec
from canfield_protocol import (
    HIDDEN_DEAL,
    BoardMsg,
    Boards,
    Leaderboard,
    Phase,
    Progress,
    ProtocolError,
    RacerBoard,
    RacerProgress,
    RoomMsg,
    RoomState,
    Row,
    encode,
    error,
)

from canfield_server.room import rules
from canfield_server.room.race import PlayerRace

__all__ = [
    "text",
    "public_state",
    "room_frame",
    "leaderboard_frame",
    "progress_frame",
    "boards_frame",
    "board_frame",
    "error_frame",
    "shared_frames",
]


def text(message: Any) -> str:
    return encode(message).decode()


def public_state(state: RoomState, now: int) -> RoomState:
    """A room as clients see it at ``now`` (ms): the server clock, a typed-in deal
    hidden, the countdown; a challenge race's replay hidden until it is over (the
    replay names the deal)."""
    phase = state.phase
    if phase == Phase.RACING and state.starts_at and now < state.starts_at:
        phase = Phase.COUNTDOWN
    ghost_of = state.ghost_of
    if state.challenge is not None and state.phase != Phase.FINISHED:
        ghost_of = HIDDEN_DEAL
    return msgspec.structs.replace(
        state,
        phase=phase,
        settings=rules.public_settings(state.settings),
        server_time=now,
        ghost_of=ghost_of,
    )


def room_frame(state: RoomState, now: int) -> str:
    public = public_state(state, now)
    return text(RoomMsg(**{f: getattr(public, f) for f in public.__struct_fields__}))


def leaderboard_frame(rows: list[Row], now: int) -> str:
    return text(Leaderboard(rows=rows, server_time=now))


def progress_frame(started_at: int, reached: dict[str, list[int]], now: int) -> str:
    """Every racer's progress so far (``reached`` by member id), for a chart drawn
    from the race's start by a connection that came later."""
    racers = [RacerProgress(id=pid, reached=steps) for pid, steps in reached.items()]
    return text(Progress(started_at=started_at, racers=racers, server_time=now))


def boards_frame(boards: dict[str, bytes], now: int) -> str:
    """Racers' boards (member id -> the board's JSON, each a racer's own view,
    encoded once when it changed) for a room's spectators."""
    racers = [RacerBoard(id=pid, board=msgspec.Raw(board)) for pid, board in boards.items()]  # type: ignore[arg-type]
    return text(Boards(boards=racers, server_time=now))


def board_frame(race: PlayerRace) -> str:
    """A racer's own board (``useful_move`` too) after their last action: to a
    connection that comes back mid-race, or to their other connections."""
    return text(BoardMsg(board=race.board(), last_seq=race.seq))


def shared_frames(message: msgspec.Struct, own: list[dict[str, Any]]) -> list[str]:
    """``message`` for many connections that differ in a few fields (``own``: each
    connection's own values, by field name): the rest is encoded once, however
    many connections (an arena's page: its standing and heats for every page, the
    page's own row alone per page). The frames are those ``text`` gives."""
    kind = type(message)
    config = kind.__struct_config__
    shared: dict[str, Any] = {}
    if config.tag_field is not None:
        shared[config.tag_field] = config.tag
    names = {}
    for field in msgspec.structs.fields(kind):
        names[field.name] = field.encode_name
        shared[field.encode_name] = msgspec.Raw(encode(getattr(message, field.name)))
    return [
        encode({**shared, **{names[name]: value for name, value in mine.items()}}).decode()
        for mine in own
    ]


def error_frame(exc: ProtocolError, seq: int | None = None) -> str:
    return text(error(exc, seq))
