"""A numbered board action, the same in a room's race and in the daily race.

Every move, tap, undo and give-up carries ``seq``, the number it takes on
the player's board. One routine decides what happens to it:

* a number already used is a duplicate (a retry after a lost ack): it is
  acknowledged again with the action the log holds, nothing is applied;
* a number past the next one is a gap: refused, with the last number used;
* the next number: the action is checked by the engine and stored, with
  the moment the server received it (``stamps.stamp``: ms since the racer's
  race started, taken before anything was awaited), in one round trip that
  also checks the stored board is the one applied to (compare-and-set on
  ``seq``). The local board is trusted again only once
  storage confirms; when another connection of the same player stored
  first, the board is reloaded and the action looked at again, up to
  ``BOARD_ATTEMPTS`` times ("your board is busy" after that).

What differs between a room and the daily race - where the board is
stored, what a stored action sets off - is the ``BoardStorage`` they pass in.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Protocol, TypeVar

from canfield_protocol import Ack, GiveUp, MemberStatus, MoveMsg, ProtocolError, Tap, Undo
from canfield_protocol import ErrorCode as E

from canfield_server.room.race import PlayerRace
from canfield_server.room.stamps import stamp, unstamp

__all__ = ["BOARD_ATTEMPTS", "BoardAction", "BoardStorage", "numbered_action"]

#: tries of one action while other connections of the same player keep storing first
BOARD_ATTEMPTS = 4

BoardAction = MoveMsg | Tap | Undo | GiveUp

#: what the storage call answers (``RoomStore.apply``, ``DailyStore.apply``)
Applied = TypeVar("Applied")


class BoardStorage(Protocol[Applied]):
    """One player's board where it is stored.

    The hot path (a move on a board confirmed here) makes no coroutine of its
    own beyond the storage call: ``confirmed`` and ``saved`` are plain calls,
    ``save`` hands back the storage call's awaitable.
    """

    def confirmed(self) -> PlayerRace | None:
        """The board as last confirmed here (None: ``load`` it)."""
        ...

    async def load(self) -> PlayerRace:
        """The board as stored (and confirmed here from now on)."""
        ...

    async def logged(self, seq: int) -> str:
        """The log entry of action number ``seq`` as stored (stamped or bare)."""
        ...

    def save(self, race: PlayerRace, base_seq: int, entry: str) -> Awaitable[Applied]:
        """Store ``entry`` (the action with its receipt time), applied to ``race``
        (which was at ``base_seq``): the storage call, whose answer ``saved`` reads."""
        ...

    def saved(self, applied: Applied) -> bool:
        """True when kept, False when the stored board moved on (raises when its
        race is over)."""
        ...

    def trust(self, race: PlayerRace | None) -> None:
        """The board to start from next time (None: load it from storage)."""
        ...


async def numbered_action(
    board: BoardStorage[Applied],
    msg: BoardAction,
    elapsed_ms: int,
    quit_as: MemberStatus = MemberStatus.GAVE_UP,
) -> Ack:
    """The ack for ``msg`` on ``board``, received ``elapsed_ms`` into the race
    (stored with the action; ``quit_as``: what a give-up counts as). The engine
    checks the action first: an illegal one raises with nothing changed."""
    for _ in range(BOARD_ATTEMPTS):
        race = board.confirmed() or await board.load()
        if msg.seq <= race.seq:
            logged = unstamp(await board.logged(msg.seq)).text
            return Ack(seq=msg.seq, move=logged, board=race.board(), duplicate=True)
        if msg.seq > race.seq + 1:
            raise ProtocolError(
                E.SEQ_GAP, f"expected seq {race.seq + 1}, got {msg.seq}", last_seq=race.seq
            )
        base_seq = race.seq
        entry = race.apply(msg, elapsed_ms, quit_as)
        board.trust(None)  # until storage confirms, the local board is not trusted
        if board.saved(await board.save(race, base_seq, stamp(entry, elapsed_ms))):
            board.trust(race)
            return Ack(seq=msg.seq, move=entry, board=race.board())
        # another connection of this player stored first: reload and look again
    raise ProtocolError(E.UNAVAILABLE, "your board is busy; try again")
