"""The operator acts on a room: closes it (the race so far ends with its results,
then every seat goes), or removes one member.

Closing is one change removing every member at once, marked
``kicked=CLOSED_BY_OPERATOR`` on the room bus, so each process tells its own
connections of the room why (``kicked`` with ``by: "operator"``, ``closed``)
and closes them. The results of a race cut short go out first (``finished``,
on the same channel, so before the seats go), and are kept as any race's are
(replay, histories). Removing a member is the host's kick by another hand
(``Seating.remove_by_operator``): the member gets ``kicked`` with
``by: "operator"`` on every process.

Either works from any process: one that does not serve the room opens it for
the change and lets it go after.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import msgspec
from canfield_protocol import Phase, RoomState

from canfield_server.room.registry import Rooms
from canfield_server.room.removal import CLOSED_BY_OPERATOR
from canfield_server.room.results import Results
from canfield_server.room.seating import Seating
from canfield_server.room.session import RoomSession

__all__ = ["close_room", "remove_member"]


def _nobody(state: RoomState) -> RoomState:
    return msgspec.structs.replace(state, members=[])


@asynccontextmanager
async def _opened(rooms: Rooms, code: str) -> AsyncIterator[RoomSession | None]:
    """The room's session (None: no such room), opened here for the change if
    this process does not serve it, and dropped after if nobody is left in it."""
    record = await rooms.store.load_room(code)
    if record is None:
        yield None
        return
    session = rooms.sessions.get(code)
    opened = session is None
    if session is None:
        session = await rooms.open(record)
    try:
        yield session
    finally:
        if opened:
            await rooms.drop_if_empty(session)


async def close_room(rooms: Rooms, results: Results, code: str) -> bool:
    """End the room's race (results so far to everyone) and remove every seat,
    whichever processes serve it; False when there is no such room."""
    async with _opened(rooms, code) as session:
        if session is None:
            return False
        if session.state.phase == Phase.RACING:
            await results.end(code, session.state.race)
        await rooms.mutate(code, _nobody, kicked=CLOSED_BY_OPERATOR)
    return True


async def remove_member(seating: Seating, code: str, member_id: str) -> bool | None:
    """Remove one member, whichever processes serve their connections: True when
    removed, False when the room has no such member, None when there is no room."""
    async with _opened(seating.rooms, code) as session:
        if session is None:
            return None
        return await seating.remove_by_operator(session, member_id)
