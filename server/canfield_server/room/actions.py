"""Board actions in a room: move, tap, undo, give up, hint, each checked by the engine.

A numbered action goes through ``numbered.numbered_action`` (duplicates,
gaps, the compare-and-set on the board's seq, reload and retry), the same
as in the daily race; here a board is stored with the room's move script.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence

from canfield_protocol import ErrorCode as E
from canfield_protocol import (
    GiveUp,
    Hint,
    HintMsg,
    MemberStatus,
    MoveMsg,
    Phase,
    ProtocolError,
    Role,
    Undo,
    error,
)

from canfield_server.room import frames, rules
from canfield_server.room.numbered import BOARD_ATTEMPTS, BoardAction, numbered_action
from canfield_server.room.ports import (
    Behind,
    MoveRecord,
    Peer,
    RaceOver,
    SolverBusy,
    SolverService,
    Stored,
    StoredRow,
)
from canfield_server.room.race import GIVE_UP, UNDO, PlayerRace
from canfield_server.room.registry import Rooms
from canfield_server.room.session import RoomSession, Slot

__all__ = ["BoardActions"]

#: a racer's statuses once their race is over (away, within the grace time, is not)
_OVER = frozenset(MemberStatus) - {MemberStatus.PLAYING, MemberStatus.DISCONNECTED}


class BoardActions:
    def __init__(self, rooms: Rooms, solver: SolverService | None) -> None:
        self.rooms = rooms
        self.store = rooms.store
        self.solver = solver

    async def act(self, peer: Peer, msg: BoardAction) -> None:
        session = self.rooms.session_of(peer)
        member_id = peer.member_id or ""
        if peer.role != Role.PLAYER:
            raise ProtocolError(E.NOT_PLAYER, "spectators watch; only players move")
        state = session.state
        now = self.rooms.clock.now_ms()  # the action's time: before waiting for the board
        if state.phase != Phase.RACING:
            raise ProtocolError(E.WRONG_PHASE, f"no race is on (the room is in {state.phase})")
        if state.starts_at and now < state.starts_at:
            raise ProtocolError(E.WRONG_PHASE, "the race has not started yet")
        if state.ends_at and now >= state.ends_at:
            raise ProtocolError(E.WRONG_PHASE, "time is up")
        slot = session.slot(member_id)
        async with slot.lock:
            board = _RoomBoard(self, session, member_id, slot, peer)
            ack = await numbered_action(board, msg, now - (state.starts_at or now))
            peer.send(frames.text(ack))

    async def give_up_for(
        self, session: RoomSession, member_id: str, quit_as: MemberStatus = MemberStatus.GAVE_UP
    ) -> None:
        """Lock a racer's result (they leave, the host removes them, or they were
        away too long: ``quit_as``): ``give_up`` at their next seq, counted done
        like any give up. Nothing to do when no race is on or their race is over."""
        slot = session.slot(member_id)
        async with slot.lock:
            board = _RoomBoard(self, session, member_id, slot)
            for _ in range(BOARD_ATTEMPTS):
                if session.state.phase != Phase.RACING:
                    return
                race = board.confirmed() or await board.load()
                if race.done:
                    return
                now = self.rooms.clock.now_ms()
                elapsed = now - (session.state.starts_at or now)
                try:
                    give_up = GiveUp(seq=race.seq + 1)
                    ack = await numbered_action(board, give_up, elapsed, quit_as)
                except ProtocolError as exc:
                    if exc.code == E.WRONG_PHASE:
                        return  # the race ended meanwhile: nothing left to lock
                    raise
                if not ack.duplicate:
                    return
                # another connection of theirs took that number first: look again
            raise ProtocolError(E.UNAVAILABLE, "that board is busy; try again")

    async def play_for(
        self,
        session: RoomSession,
        member_id: str,
        seq: int,
        entry: str,
        elapsed_ms: int,
        quit_as: MemberStatus = MemberStatus.GAVE_UP,
    ) -> None:
        """A ghost's recorded action number ``seq`` (a move's text, ``U`` or ``G``:
        ``quit_as``), stamped with its recorded time: on the path a racer's takes
        (played twice, by two processes, it is a duplicate the second time).
        Nothing to do once its race is over."""
        slot = session.slot(member_id)
        async with slot.lock:
            board = _RoomBoard(self, session, member_id, slot)
            race = board.confirmed() or await board.load()
            if race.done:
                return
            msg: BoardAction = (
                Undo(seq=seq)
                if entry == UNDO
                else GiveUp(seq=seq)
                if entry == GIVE_UP
                else MoveMsg(seq=seq, move=entry)
            )
            await numbered_action(board, msg, elapsed_ms, quit_as)

    async def hint(self, peer: Peer, msg: Hint, shares: Sequence[str] = ()) -> None:
        """The solver's next move for this player's board: practice rooms only.

        Answered off the connection's path: the handler returns once the hint
        is asked, so a move sent right after it never waits behind the solver.
        ``shares``: whose turn at the solver it takes (the first: the client's
        address) and whose hints in the works it counts (its identity too);
        default the room's, so eight rooms of one asker are one share, not eight.
        """
        session = self.rooms.session_of(peer)
        state = session.state
        if not state.settings.practice:
            raise ProtocolError(E.NOT_ALLOWED, "hints are for practice rooms, not races")
        if peer.role != Role.PLAYER:
            raise ProtocolError(E.NOT_PLAYER, "spectators have no board to hint")
        if state.phase != Phase.RACING or (
            state.starts_at and self.rooms.clock.now_ms() < state.starts_at
        ):
            raise ProtocolError(E.WRONG_PHASE, "hints come once the deal is out")
        if self.solver is None:
            raise ProtocolError(E.UNAVAILABLE, "this server has no solver workers")
        race = await self.race_of(session, peer.member_id or "")
        position = race.game.to_dict()
        solver, member_id = self.solver, peer.member_id or ""

        async def answer() -> None:
            try:
                move = await solver.hint(session.code, member_id, position, shares)
            except SolverBusy:
                peer.send(frames.text(HintMsg(move=None, busy=True)))
                return
            except ProtocolError as exc:
                peer.send(frames.text(error(exc)))
                return
            peer.send(frames.text(HintMsg(move=move)))

        self.rooms.spawn(answer())

    async def seat_moved_elsewhere(self, session: RoomSession, member_id: str) -> None:
        """A racer acted on another process and has a connection here too: their
        board, read anew from the store, to that connection (``board``)."""
        slot = session.slot(member_id)
        async with slot.lock:  # in order: a later action's board is never sent first
            if not session.seat_peers(member_id):
                return
            race = await self._load(session, member_id, slot)
            session.seat_moved(member_id, frames.board_frame(race))

    async def race_of(self, session: RoomSession, member_id: str) -> PlayerRace:
        """A racer's race as this process holds it, loaded under its slot's lock."""
        slot = session.slot(member_id)
        async with slot.lock:
            return slot.race or await self._load(session, member_id, slot)

    async def _load(self, session: RoomSession, member_id: str, slot: Slot) -> PlayerRace:
        snap, log = await self.store.load_player(session.code, member_id)
        if session.deal is None:
            session.deal = (await self.rooms.load(session.code)).deal
        deal = session.deal or ""
        race = (
            PlayerRace.from_snapshot(snap, deal, log)
            if snap is not None
            else PlayerRace.fresh(deal)
        )
        slot.race = race
        return race


class _RoomBoard:
    """A racer's board in a room (``numbered.BoardStorage``): confirmed here in its slot,
    stored with the room's move script, which also ends the race with its last racer."""

    __slots__ = (
        "actions",
        "session",
        "member_id",
        "slot",
        "peer",
        "row",
        "race_no",
        "view",
        "seat_frame",
        "seq",
    )

    def __init__(
        self,
        actions: BoardActions,
        session: RoomSession,
        member_id: str,
        slot: Slot,
        peer: Peer | None = None,
    ) -> None:
        self.actions, self.session, self.member_id, self.slot = actions, session, member_id, slot
        #: the connection that acted (None: the server acts for the racer)
        self.peer = peer
        self.row: StoredRow | None = None
        self.race_no = 0
        #: the board saved, as the spectators see it (a room that shows boards)
        self.view: bytes | None = None
        #: the board saved (a ``board`` frame), for the racer's other connections here
        self.seat_frame: str | None = None
        self.seq = 0

    def confirmed(self) -> PlayerRace | None:
        return self.slot.race

    async def load(self) -> PlayerRace:
        return await self.actions._load(self.session, self.member_id, self.slot)

    async def logged(self, seq: int) -> str:
        return await self.actions.store.log_entry(self.session.code, self.member_id, seq)

    def save(
        self, race: PlayerRace, base_seq: int, entry: str
    ) -> Awaitable[Stored | Behind | RaceOver]:
        session, member_id = self.session, self.member_id
        state = session.state
        me = rules.member(state, member_id)
        name = me.name if me else "?"
        self.row, self.race_no = race.row(member_id, name, session.rtt_of(member_id)), state.race
        self.view = race.view_json() if rules.boards_shown(state) else None
        twins = session.seat_peers(member_id, self.peer)
        self.seat_frame = frames.board_frame(race) if twins else None
        self.seq = race.seq
        return self.actions.store.apply(
            MoveRecord(
                room_code=session.code,
                member_id=member_id,
                race_no=state.race,
                base_seq=base_seq,
                entry=entry,
                snapshot=race.snapshot(),
                row=self.row,
                done=race.done,
                board=self.view,
            )
        )

    def saved(self, applied: Stored | Behind | RaceOver) -> bool:
        if isinstance(applied, RaceOver):
            raise ProtocolError(E.WRONG_PHASE, "this race is over")
        if isinstance(applied, Behind) or self.row is None:
            return False
        session, rooms = self.session, self.actions.rooms
        session.rows[self.member_id] = self.row
        session.mark_dirty()
        if session.playback is not None and self.row.status in _OVER:
            session.playback.racer_done(self.member_id)
        if self.view is not None:
            session.board_moved(self.member_id, self.seq, self.view)
        if self.seat_frame is not None:
            session.seat_moved(self.member_id, self.seat_frame, self.peer)
        if applied.race_over:  # this action ended the race: its results
            rooms.spawn(rooms.owner.finalize(session.code, self.race_no))
        elif self.row.status == MemberStatus.WON and session.state.settings.first_finish_ends:
            rooms.owner.end_now(session.code, self.race_no)  # the first win ends it for all
        return True

    def trust(self, race: PlayerRace | None) -> None:
        self.slot.race = race
