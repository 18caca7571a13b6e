"""The operator closes a room: the race so far ends with its results, then every seat goes.

One change removes every member at once, marked ``kicked=CLOSED_BY_OPERATOR``
on the room bus, so each process tells its own connections of the room why
(``kicked`` with ``by: "operator"``) and closes them. The results of a race
cut short go out first (``finished``, on the same channel, so before the
seats go), and are kept as any race's are (replay, histories).
"""

from __future__ import annotations

import msgspec
from canfield_protocol import Phase, RoomState

from canfield_server.room.registry import Rooms
from canfield_server.room.results import Results
from canfield_server.room.session import CLOSED_BY_OPERATOR

__all__ = ["close_room"]


def _nobody(state: RoomState) -> RoomState:
    return msgspec.structs.replace(state, members=[])


async def close_room(rooms: Rooms, results: Results, code: str) -> bool:
    """End the room's race (results so far to everyone) and remove every seat,
    whichever processes serve it; False when there is no such room."""
    record = await rooms.store.load_room(code)
    if record is None:
        return False
    session = rooms.sessions.get(code)
    opened = session is None
    if session is None:
        session = await rooms.open(record)
    try:
        if session.state.phase == Phase.RACING:
            await results.end(code, session.state.race)
        await rooms.mutate(code, _nobody, kicked=CLOSED_BY_OPERATOR)
    finally:
        if opened:
            await rooms.drop_if_empty(session)
    return True
