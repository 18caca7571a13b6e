"""The racers' boards a room's spectators watch, where its host chose to show them.

A session keeps each racer's board as the racer sees it (``RoomSession.boards``),
from the moves made here and the rows other processes publish. What it does
not hold - the boards of racers who have not moved since this process began
serving the room, or every board after the room bus came back - is rebuilt
here from the racers' logs, before a spectator is told the race so far.
Never in a public race, and never a face-down card: a board is the racer's
own view (``PlayerRace.view_json``).
"""

from __future__ import annotations

from canfield_server.room import rules
from canfield_server.room.ports import RoomStore
from canfield_server.room.race import PlayerRace, replay
from canfield_server.room.session import RoomSession

__all__ = ["fill_boards"]


async def fill_boards(store: RoomStore, session: RoomSession) -> None:
    """Every racer's board the session does not hold, from their logs (one round
    trip for all of them); nothing in a room that does not show boards."""
    if not rules.boards_shown(session.state):
        return
    missing = [pid for pid in session.rows if pid not in session.boards]
    if not missing:
        return
    if session.deal is None:
        record = await store.load_room(session.code)
        session.deal = record.deal if record else None
    deal = session.deal
    if deal is None:
        return
    for pid, log in (await store.logs(session.code, missing)).items():
        # one log entry per action: its length is the board's action number
        session.adopt_board(pid, len(log), PlayerRace(replay(deal, log)).view_json())
