"""What one connection knows of its race, from the server's messages alone.

``RaceView.apply(msg)`` folds one decoded server message into the state:
the seat (room, player id, token, host), the room, the board, the race's
start and end, the leaderboard, the daily race's end, what a public race's
waiting screen says (``searching``, ``bot_offer``, ``ghost_offer``), and how soon to come
back after a ``reconnect``. No socket, no task, no clock: the reducer is
tested on messages alone (``tests/client/test_race_view.py``), and
``RaceClient`` (the connection and its requests) keeps one and reads it.
The web page's twin is ``applyServerMessage`` (``web/js/race-state.js``): both
run the recorded sequences of ``tests/fixtures/race_messages.json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from canfield_protocol import (
    Ack,
    Board,
    BoardMsg,
    Boards,
    BotOffer,
    DailyFinished,
    Finished,
    GhostOffer,
    Joined,
    Kicked,
    Leaderboard,
    Left,
    Phase,
    Reconnect,
    RoomMsg,
    RoomState,
    Searching,
    Started,
)

__all__ = ["RaceView"]


@dataclass
class RaceView:
    room: str | None = None
    player_id: str | None = None
    #: the seat's secret (None once the seat is gone: nothing to resume)
    token: str | None = None
    is_host: bool = False
    state: RoomState | RoomMsg | None = None
    #: my board as the server last showed it
    board: Board | None = None
    #: the last action number used on my board
    seq: int = 0
    started: Started | None = None
    finished: Finished | None = None
    leaderboard: Leaderboard | None = None
    #: the ``kicked`` notice when the host removed this seat
    kicked: Kicked | None = None
    daily_finished: DailyFinished | None = None
    #: seconds to wait before coming back after a lost connection
    retry_s: float = 0.2
    #: waiting alone for a public race: the last word on it, and the bot race offered
    search: Searching | None = None
    bot_offer: BotOffer | None = None
    #: a past public race's racer offered as a ghost to race instead
    ghost_offer: GhostOffer | None = None
    #: a spectator's view of the racers' boards (a room that shows them), by member id
    boards: dict[str, Board] = field(default_factory=dict)

    def apply(self, msg: object) -> None:
        """Fold one server message in (any other message changes nothing)."""
        if isinstance(msg, Ack | BoardMsg):
            self.board = msg.board
        elif isinstance(msg, Leaderboard):
            self.leaderboard = msg
        elif isinstance(msg, Boards):
            self.boards.update((racer.id, racer.board) for racer in msg.boards)
        elif isinstance(msg, Joined):
            self.room, self.player_id, self.token = msg.room, msg.player_id, msg.token
            self.is_host, self.state = msg.is_host, msg.state
            self.search = self.bot_offer = self.ghost_offer = (
                None  # told again after every ``joined``
            )
        elif isinstance(msg, RoomMsg):
            self.state = msg
            if msg.phase != Phase.LOBBY:
                self.search = self.bot_offer = self.ghost_offer = None
        elif isinstance(msg, Searching | BotOffer | GhostOffer):
            self._searched(msg)
        elif isinstance(msg, Started):
            self.started, self.board, self.seq = msg, msg.board, 0
            self.finished = None
            self.boards = {}
            self.search = self.bot_offer = self.ghost_offer = None
        elif isinstance(msg, Reconnect):
            self.retry_s = max(msg.retry_ms / 1000, 0.05)
        elif isinstance(msg, Left | Kicked):
            # the seat is gone for good: never try to resume it
            self.token = None
            self.kicked = msg if isinstance(msg, Kicked) else None
            self.search = self.bot_offer = self.ghost_offer = None
        elif isinstance(msg, DailyFinished):
            self.daily_finished = msg
        elif isinstance(msg, Finished):
            self.finished = msg

    def _searched(self, msg: Searching | BotOffer | GhostOffer) -> None:
        """Said while this seat waits alone in its public race's lobby, else stale
        (a seat gone, left or removed, has no token: it waits no more)."""
        if msg.room != self.room or self.state is None or self.state.phase != Phase.LOBBY:
            return
        if self.token is None:
            return
        if isinstance(msg, Searching):
            self.search = msg
        elif isinstance(msg, GhostOffer):
            self.ghost_offer = msg
        else:
            self.bot_offer = msg
