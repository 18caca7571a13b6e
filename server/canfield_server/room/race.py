"""One player's race, sans I/O: apply a board action, snapshot, leaderboard row.

``PlayerRace.apply`` validates and applies ``move``/``tap``/``undo``/
``give_up`` against the engine; on any error it raises ``ProtocolError``
and the board is exactly as before. The caller persists the result
(``snapshot()``, ``row()``) and only then acknowledges it.
"""

from __future__ import annotations

from typing import Any

import msgspec
from canfield import (
    DealCode,
    Game,
    IllegalMoveError,
    InvalidCardError,
    InvalidMoveError,
    Move,
    NothingToUndoError,
    parse_card,
)
from canfield.analysis import has_useful_move_seen
from canfield.moves import UNDO
from canfield_protocol import ErrorCode as E
from canfield_protocol import GiveUp, MemberStatus, MoveMsg, ProtocolError, Tap, Undo

from canfield_server.room.ports import StoredRow
from canfield_server.room.stamps import unstamp

__all__ = ["UNDO", "GIVE_UP", "PlayerRace", "reached_of", "replay", "useful"]


GIVE_UP = "G"


class _Snapshot(msgspec.Struct, kw_only=True):
    seq: int
    moves: int
    status: MemberStatus
    time_ms: int
    reached: list[int]
    #: the whole board: only in snapshots written before the log rebuilt it
    game: dict[str, Any] | None = None


_snap_decoder = msgspec.json.Decoder(_Snapshot)
_encoder = msgspec.json.Encoder()


class PlayerRace:
    """A player's board and race bookkeeping, as the server holds it."""

    __slots__ = ("game", "seq", "moves", "status", "time_ms", "reached")

    def __init__(self, game: Game) -> None:
        self.game = game
        #: the last applied sequence number
        self.seq = 0
        #: accepted actions other than undo and give up
        self.moves = 0
        self.status = MemberStatus.PLAYING
        #: ms from the start to the last accepted action (frozen when done)
        self.time_ms = 0
        #: reached[n] = ms when n cards first lay on the foundations
        self.reached = [0] * (game.on_foundations + 1)

    @classmethod
    def fresh(cls, deal: DealCode | str) -> PlayerRace:
        return cls(Game.deal(deal))

    @property
    def done(self) -> bool:
        return self.status != MemberStatus.PLAYING

    # ------------------------------------------------------------ actions

    def apply(
        self,
        msg: MoveMsg | Tap | Undo | GiveUp,
        elapsed_ms: int,
        quit_as: MemberStatus = MemberStatus.GAVE_UP,
    ) -> str:
        """Apply one action; returns its log entry (move text, ``U`` or ``G``).

        ``quit_as``: the status a ``give_up`` locks in (``LEFT`` for a racer
        away past the grace time, whose time stays that of their last action)."""
        if self.done:
            raise ProtocolError(E.DONE, f"your race is over ({self.status.replace('_', ' ')})")
        game = self.game
        if isinstance(msg, MoveMsg):
            try:
                move = Move.parse(msg.move)
            except InvalidMoveError as exc:
                raise ProtocolError(E.BAD_MOVE, str(exc)) from None
            self._push(move)
            entry = move.text()
        elif isinstance(msg, Tap):
            try:
                card = parse_card(msg.card)
            except InvalidCardError as exc:
                raise ProtocolError(E.BAD_CARD, str(exc)) from None
            target = game.tap_move(card, msg.double_click)
            if target is None:
                raise ProtocolError(E.NO_TARGET, f"{msg.card.strip().upper()} has nowhere to go")
            self._push(target)
            entry = target.text()
        elif isinstance(msg, Undo):
            try:
                game.pop()
            except NothingToUndoError as exc:
                raise ProtocolError(E.NOTHING_TO_UNDO, str(exc)) from None
            entry = UNDO
        else:
            self.status = quit_as
            entry = GIVE_UP
        self.seq += 1
        if self.status != MemberStatus.LEFT:
            self.time_ms = max(self.time_ms, elapsed_ms)
        if entry not in (UNDO, GIVE_UP):
            self.moves += 1
            if game.is_won:
                self.status = MemberStatus.WON
        count = game.on_foundations
        while len(self.reached) <= count:
            self.reached.append(self.time_ms)
        return entry

    def _push(self, move: Move) -> None:
        try:
            self.game.push(move)
        except IllegalMoveError as exc:
            raise ProtocolError(E.ILLEGAL_MOVE, str(exc), rule=exc.rule) from None

    # ------------------------------------------------------------ outputs

    def board(self) -> Any:
        """The player's view (no face-down card), plus the "useful move" hint: the
        engine's view dict, sent as it is where the protocol says ``Board``."""
        view = self.game.view()
        view["useful_move"] = useful(self.game, len(self.reached) - 1)
        return view

    def view_json(self) -> bytes:
        """The player's view as JSON, as a spectator is shown it (no face-down card;
        no "useful move" note, which is the racer's own)."""
        return _encoder.encode(self.game.view())

    def row(self, member_id: str, name: str, rtt_ms: int | None = None) -> StoredRow:
        game, won = self.game, self.status == MemberStatus.WON
        home = game.on_foundations
        return StoredRow(
            id=member_id,
            name=name,
            score=game.score,
            on_foundations=home,
            moves=self.moves,
            status=self.status,
            time_ms=self.time_ms,
            at=self.time_ms if won else self.reached[home],
            reserve=len(game.reserve),
            tableau=sum(map(len, game.tableau)),
            rtt_ms=rtt_ms,
        )

    def snapshot(self) -> bytes:
        """The race's bookkeeping, not its board: the move log, stored by the same
        script, rebuilds the board exactly (re-encoding the whole game with its
        undo history on every move was a tenth of a move's cost)."""
        return _encoder.encode(
            _Snapshot(
                seq=self.seq,
                moves=self.moves,
                status=self.status,
                time_ms=self.time_ms,
                reached=self.reached,
            )
        )

    @classmethod
    def from_snapshot(cls, data: bytes, deal: DealCode | str, entries: list[str]) -> PlayerRace:
        """Restore a race from its snapshot and its log (``entries``, oldest first)."""
        snap = _snap_decoder.decode(data)
        if snap.game is not None:
            game = Game.from_dict(snap.game)
        elif len(entries) < snap.seq:
            raise ValueError(f"the log holds {len(entries)} actions, the snapshot {snap.seq}")
        else:
            game = replay(deal, entries[: snap.seq])
        race = cls(game)
        race.seq = snap.seq
        race.moves = snap.moves
        race.status = snap.status
        race.time_ms = snap.time_ms
        race.reached = snap.reached
        return race


def reached_of(snapshot: bytes) -> list[int]:
    """A stored race's progress: ``reached[n]`` is the ms when ``n`` cards first lay
    on the foundations (the race chart's points; counts only, never a card)."""
    return _snap_decoder.decode(snapshot).reached


_USEFUL_CACHE: dict[bytes, bool] = {}
#: about 1 KB a position: this bounds the cache near 16 MB (65,536 let a
#: long soak grow the process by ~65 MB before the first clear)
_USEFUL_CACHE_MAX = 16384


def useful(game: Game, best: int = 0) -> bool:
    """``has_useful_move_seen``, cheaply: worked out only from the cards this player
    has seen (a face-down card never shapes the answer). A stock card not yet
    seen or an obvious progress move answers at once, and a search result is
    remembered per position (racers share one deal, so positions repeat).
    ``best``: the most cards the player ever had home (playing a card home
    again after taking it back is no progress)."""
    if game.unseen_stock:
        return True  # drawing may bring anything: the flag says nothing of it
    past_best = game.on_foundations >= best
    # a card home or off the reserve: never a run between columns, nor a take-back
    for move in game.legal_moves(takebacks=False, runs=False):
        if (move.dst == "F" and past_best) or move.src == "R":
            return True
    # the whole position as bytes (cards 0..51, 254 an empty foundation, 255 between piles)
    key = b"\xff".join(
        [
            bytes((game.draw, game.base_rank, max(best - game.on_foundations, 0))),
            bytes(game.reserve),
            *(bytes(col) for col in game.tableau),
            bytes(pile[-1] if pile else 254 for pile in game.foundations),
            bytes(game.stock),
            bytes(game.waste),
        ]
    )
    found = _USEFUL_CACHE.get(key)
    if found is None:
        if len(_USEFUL_CACHE) >= _USEFUL_CACHE_MAX:
            _USEFUL_CACHE.clear()
        found = _USEFUL_CACHE[key] = bool(has_useful_move_seen(game, best=best))
    return found


def replay(deal: DealCode | str, entries: list[str]) -> Game:
    """Rebuild a board from its race log (entries stamped with their receipt
    times or bare, ``room.stamps``): the engine's replay, less the give-up entry
    (``G`` ends a race; it does not change the board)."""
    texts = (unstamp(entry).text for entry in entries)
    return Game.replay(deal, [text for text in texts if text != GIVE_UP])
