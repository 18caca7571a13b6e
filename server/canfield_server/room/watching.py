"""The racers' boards a room's spectators watch, where its host chose to show them.

A session keeps each racer's board as the racer sees it (``SpectatorBoards``),
from the moves made here and the rows other processes publish, and sends
those that changed with the next leaderboard: a racer's many moves in one
interval are one board, the latest, in one frame for all spectators. What
it does not hold - the boards of racers who have not moved since this
process began serving the room, or every board after the room bus came
back - is rebuilt from the racers' logs (``Rooms.fill_boards``) before a
spectator is told the race so far. Never in a public race, and never a
face-down card: a board is the racer's own view (``PlayerRace.view_json``).
Kept apart from the session because it is a room's second broadcast, with
its own rule of what is new (an action's number, not a version).
"""

from __future__ import annotations

from collections.abc import Iterable

from canfield_server.ops import metrics
from canfield_server.room import frames
from canfield_server.room.ports import Peer

__all__ = ["SpectatorBoards"]


class SpectatorBoards:
    """The boards held for a room's spectators: member id -> (the number of
    actions it is at, the racer's own view as JSON, encoded once); a newer one
    replaces it."""

    __slots__ = ("held", "_changed")

    def __init__(self) -> None:
        self.held: dict[str, tuple[int, bytes]] = {}
        #: racers whose board changed since the spectators were last sent boards
        self._changed: set[str] = set()

    def adopt(self, member_id: str, seq: int, board: bytes) -> bool:
        """Keep ``board`` unless the one held is as new; True when it was kept."""
        held = self.held.get(member_id)
        if held is not None and held[0] >= seq:
            return False
        self.held[member_id] = (seq, board)
        return True

    def moved(self, member_id: str, seq: int, board: bytes) -> bool:
        """``adopt``, and a board kept goes to the spectators with the next send."""
        if not self.adopt(member_id, seq, board):
            return False
        self._changed.add(member_id)
        return True

    def missing(self, racers: Iterable[str]) -> list[str]:
        """The racers whose board is not held."""
        return [pid for pid in racers if pid not in self.held]

    def take_changed(self) -> set[str]:
        """The racers whose board changed since the last call."""
        changed, self._changed = self._changed, set()
        return changed

    def frame(self, now_ms: int, only: set[str] | None = None) -> str:
        """The boards held (``only`` those racers'), one frame for every spectator."""
        held = {pid: board for pid, (_, board) in self.held.items() if only is None or pid in only}
        return frames.boards_frame(held, now_ms)

    def send(self, watchers: list[Peer], changed: set[str], now_ms: int) -> None:
        """The ``changed`` boards to ``watchers``: one frame encoded once, the
        same text to each."""
        if not watchers:
            return
        frame = self.frame(now_ms, changed)
        for peer in watchers:
            peer.send(frame)
        metrics.broadcast(len(watchers))

    def clear(self) -> None:
        """Forget the boards held (the bus came back: they are read again)."""
        self.held.clear()
