"""One room as this process holds it: its state, connections, boards and clock.

A ``RoomSession`` adopts each newer room state (from this process or the
room bus), tells its connections what changed, runs the race's timers
(the deal at the end of the countdown, the time limit) and paces the
leaderboard. Waiting on storage is not its job: what needs a round trip
goes back to its owner through the ``SessionHooks`` it was given.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

import msgspec
from canfield_protocol import Countdown, Phase, Role, RoomState, Row, Started

from canfield_server.ops import metrics
from canfield_server.ops.clock import Clock, Timer
from canfield_server.ops.logs import event
from canfield_server.room import departures, frames, rules
from canfield_server.room.leaderboard import Pace, PaceTimer, ranked
from canfield_server.room.ports import Peer, RoomRecord, StoredRow
from canfield_server.room.race import PlayerRace
from canfield_server.room.removal import farewell
from canfield_server.room.round_trips import Samples
from canfield_server.room.watching import SpectatorBoards

__all__ = ["Playback", "Slot", "SessionHooks", "RoomSession"]

log = logging.getLogger(__name__)


class Slot:
    """A local player's board and the lock that serialises their actions here."""

    __slots__ = ("race", "lock")

    def __init__(self) -> None:
        self.race: PlayerRace | None = None
        self.lock = asyncio.Lock()


class Playback(Protocol):
    """A ghost race's playback (``room.ghosts``), run by the process that dealt it."""

    def racer_done(self, member_id: str) -> None:
        """A racer's race is over: once every live racer's is, the ghosts finish at once."""

    def cancel(self) -> None:
        """Stop: the race is over, or no longer served here."""


class SessionHooks(Protocol):
    """What a session hands back to its owner (each returns at once)."""

    def time_up(self, code: str, race_no: int) -> None:
        """The race's clock ran out: end it."""

    def unseated(self, session: RoomSession, member_id: str) -> None:
        """A member's seat is gone: count their connection here out of the room."""

    def grace_over(self, code: str) -> None:
        """Some member's grace time ran out: give up their seat."""


class RoomSession:
    """What this process knows of one room."""

    def __init__(
        self,
        record: RoomRecord,
        pace: Pace,
        hooks: SessionHooks,
        clock: Clock,
        room_interval_s: float = 0.0,
    ) -> None:
        self.code = record.state.room
        self.state = record.state
        self.ver = record.ver
        self.deal = record.deal
        self.final = record.final
        self.hooks = hooks
        self.clock = clock
        self.peers: set[Peer] = set()
        self.slots: dict[str, Slot] = {}
        self.rows: dict[str, StoredRow] = {}
        #: the racers' boards for the spectators, in a room that shows them
        #: (``rules.boards_shown``)
        self.boards = SpectatorBoards()
        #: the round trips of the racers connected here, this race (``round_trips``)
        self.rtts: dict[str, Samples] = {}
        self.timers: list[Timer] = []
        #: fires when the earliest grace time of an away member runs out
        self._grace: tuple[int, Timer] | None = None
        #: members whose last connection just went, recorded together by ``departures``
        self.departing: set[str] = set()
        #: changes to the room made here go one at a time: a crowd joining and
        #: leaving through this process never races itself in compare-and-set
        #: (only other processes' changes can make a save retry)
        self.changing = asyncio.Lock()
        self.departures: asyncio.Future[None] | None = None
        #: names of the bots this process launched that have not joined yet
        self.bot_names: set[str] = set()
        #: the ghosts' playback of a ghost race dealt here (``room.ghosts``)
        self.playback: Playback | None = None
        #: the leaderboard's timer: one per interval (``Pace``)
        self._pacer = PaceTimer(pace, clock, self.flush)
        #: the rows the last leaderboard showed (an unchanged one is not sent again)
        self._shown: list[Row] | None = None
        #: membership changes (joins, leaves, presence, ready) are announced at most
        #: once per interval, the latest state for all of them
        self.room_interval_s = room_interval_s
        self._room_sent = 0.0
        self._room_handle: Timer | None = None

    def slot(self, member_id: str) -> Slot:
        slot = self.slots.get(member_id)
        if slot is None:
            slot = self.slots[member_id] = Slot()
        return slot

    def broadcast(self, text: str) -> None:
        for peer in self.peers:
            peer.send(text)
        metrics.broadcast(len(self.peers))

    def close(self) -> None:
        """Stop every timer: the room is no longer served here."""
        self._cancel_timers()
        self._stop_playback()
        if self._grace:
            self._grace[1].cancel()
            self._grace = None
        if self._room_handle:
            self._room_handle.cancel()
            self._room_handle = None
        self._pacer.cancel()

    def _stop_playback(self) -> None:
        if self.playback is not None:
            self.playback.cancel()
            self.playback = None

    def _cancel_timers(self) -> None:
        for handle in self.timers:
            handle.cancel()
        self.timers.clear()

    # ------------------------------------------------------------ room changes

    def adopt(
        self,
        ver: int,
        state: RoomState,
        deal: str | None,
        final: bytes | None = None,
        *,
        force: bool = False,
        kicked: str | None = None,
    ) -> None:
        """Adopt a newer room state and tell every local connection what changed.

        ``force``: adopt even an equal version (a resync), never an older one;
        ``kicked``: the member the host removed by this change."""
        if ver <= self.ver and not force:
            return
        if ver < self.ver:
            # a forced re-read older than what the bus brought since (a room opened
            # here while another process changed it): the newer state stands, or the
            # next compare-and-set from here would write over the changes between
            state, ver, deal, final = self.state, self.ver, None, self.final
        old = self.state
        self.state, self.ver = state, ver
        if deal:
            self.deal = deal
        self._unseat_removed(kicked)
        self._watch_grace()
        self._announce(urgent=kicked is not None or _shape(old) != _shape(state))
        new_race = state.race != old.race or (force and state.phase == Phase.RACING)
        if state.phase == Phase.RACING and new_race:
            self._begin(fresh=state.race != old.race)
        elif state.phase == Phase.LOBBY and old.phase != Phase.LOBBY:
            self._cancel_timers()
            self._forget_race()
        if state.phase == Phase.FINISHED:
            self._cancel_timers()
            if final and final != self.final:
                self.final = final
                self.flush()
                self.broadcast(final.decode())
        elif state.phase == Phase.RACING and _presence(old) != _presence(state):
            self._fill_rows()  # a racer seated in a public race's countdown has a row
            self.mark_dirty()

    def _announce(self, urgent: bool) -> None:
        """Tell every connection the room changed: at once when the race or its
        host changed, else coalesced (churn cannot multiply the traffic)."""
        now = self.clock.monotonic()
        if not urgent and self._room_handle is not None:
            return  # the pending announcement will carry this state too
        delay = 0.0 if urgent else self._room_sent + self.room_interval_s - now
        if delay <= 0:
            self._send_room()
        else:
            self._room_handle = self.clock.call_later(delay, self._send_room)

    def _send_room(self) -> None:
        if self._room_handle is not None:
            self._room_handle.cancel()
            self._room_handle = None
        self._room_sent = self.clock.monotonic()
        self.broadcast(frames.room_frame(self.state, self.clock.now_ms()))

    def adopt_rows(self, rows: dict[str, StoredRow]) -> None:
        """Rows read from storage (first use, or after the bus reconnected)."""
        self.rows.update(rows)
        self._fill_rows()
        self.mark_dirty()

    def _unseat_removed(self, kicked: str | None) -> None:
        """Connections whose seat is gone leave the room: ``left``, or ``kicked`` and
        closed. Synchronous, so the socket's own detach finds no room to count out."""
        seated = {m.id: m for m in self.state.members}
        for peer in self.peers:  # a late joiner's seat becomes a player's at the rematch
            seat = seated.get(peer.member_id or "")
            if seat is not None and peer.role != seat.role:
                peer.role = seat.role
        gone = [p for p in self.peers if p.member_id and p.member_id not in seated]
        for peer in gone:
            member_id = peer.member_id or ""
            self.peers.discard(peer)
            peer.room = peer.member_id = peer.role = None
            event(log, "member.unseated", room=self.code, player=member_id)
            told = farewell(self.code, member_id, kicked)  # ``room.removal``
            peer.send(told.frame)
            if told.close is not None:
                peer.close(*told.close)
            self.hooks.unseated(self, member_id)

    def _watch_grace(self, again: bool = False) -> None:
        """One timer, for the earliest grace time of the members away.

        ``again``: the timer fired and left someone away (another process's
        clock runs a little behind): look again shortly."""
        due = departures.next_grace_end(self.state)
        if self._grace and self._grace[0] == due and not again:
            return
        if self._grace:
            self._grace[1].cancel()
            self._grace = None
        if due is not None:
            delay = max(0.2 if again else 0.0, (due - self.clock.now_ms()) / 1000)
            handle = self.clock.call_later(delay, self.hooks.grace_over, self.code)
            self._grace = (due, handle)

    def grace_checked(self) -> None:
        """The owner gave up the seats whose grace ran out; watch the rest."""
        self._watch_grace(again=True)

    # ------------------------------------------------------------ the race's clock

    def _begin(self, fresh: bool) -> None:
        """A race was started: countdown now, the deal at ``starts_at``, the end timer."""
        state = self.state
        self._cancel_timers()
        if fresh:
            self._forget_race()
        self._fill_rows()
        now = self.clock.now_ms()
        starts_at = state.starts_at or now
        if now < starts_at:
            self.broadcast(frames.text(Countdown(starts_at=starts_at, server_time=now)))
            self.timers.append(self.clock.call_later((starts_at - now) / 1000, self._deal))
        elif fresh:
            # a new race adopted at or past its start (its write, or the bus bringing
            # it from another process, took longer than the countdown on a busy
            # machine): dealt now, or the players here would never get their boards
            self._deal()
        if state.ends_at:
            delay = max(0.0, (state.ends_at - now) / 1000)
            race_no = state.race
            self.timers.append(self.clock.call_later(delay, self.hooks.time_up, self.code, race_no))

    def _forget_race(self) -> None:
        """The last race's boards, rows and results: gone with a new race or the lobby."""
        self._stop_playback()
        self.slots.clear()
        self.rows.clear()
        self.rtts.clear()
        self.boards = SpectatorBoards()
        self.final = None

    def _deal(self) -> None:
        """The start: every player here gets the same deal, spectators the clock."""
        state = self.state
        if state.phase != Phase.RACING or self.deal is None:
            return
        now = self.clock.now_ms()
        first = PlayerRace.fresh(self.deal)
        # boards start fresh (the start cleared Redis), so skip loading them; if
        # another process's connection moves first, the seq check reloads
        for peer in self.peers:
            if peer.role == Role.PLAYER and peer.member_id:
                slot = self.slot(peer.member_id)
                if slot.race is None and not slot.lock.locked():
                    slot.race = PlayerRace(first.game.copy())
        started_at = state.starts_at or now
        for_players = frames.text(
            Started(
                started_at=started_at, ends_at=state.ends_at, board=first.board(), server_time=now
            )
        )
        for_others = frames.text(
            Started(started_at=started_at, ends_at=state.ends_at, board=None, server_time=now)
        )
        for peer in self.peers:
            peer.send(for_players if peer.role == Role.PLAYER else for_others)
        metrics.broadcast(len(self.peers))
        if rules.boards_shown(state):
            # every racer starts on the same board (one on another process too)
            view = first.view_json()
            for m in rules.players(state):
                self.board_moved(m.id, 0, view)
        self.flush()

    def _fill_rows(self) -> None:
        """Every racer has a row from the start, even before their first move."""
        if self.deal is None:
            return
        base: PlayerRace | None = None
        for m in rules.players(self.state):
            if m.id not in self.rows:
                base = base or PlayerRace.fresh(self.deal)
                self.rows[m.id] = base.row(m.id, m.name, self.rtt_of(m.id))

    # ------------------------------------------------------------ round trips

    def round_trip(self, member_id: str, ms: int) -> None:
        """A racer's round trip measured here: their median goes on their row (and
        the leaderboard, when it moved)."""
        samples = self.rtts.get(member_id)
        if samples is None:
            samples = self.rtts[member_id] = Samples()
        median = samples.add(ms)
        row = self.rows.get(member_id)
        if row is not None and row.rtt_ms != median:
            self.rows[member_id] = msgspec.structs.replace(row, rtt_ms=median)
            self.mark_dirty()

    def rtt_of(self, member_id: str) -> int | None:
        """A racer's median round trip this race: measured here, else as their row
        last said (measured by the process that serves their connection)."""
        samples = self.rtts.get(member_id)
        if samples is not None:
            return samples.median()
        row = self.rows.get(member_id)
        return row.rtt_ms if row is not None else None

    # ------------------------------------------------------------ leaderboard

    def mark_dirty(self) -> None:
        """Coalesce: at most one leaderboard per pace interval (longer while the
        event loop runs late, see ``Pace``)."""
        self._pacer.changed()

    def flush(self, timed: bool = False) -> None:
        """Broadcast the leaderboard now; ``timed`` (the coalescing timer) skips one
        whose rows are those shown last."""
        now, dirty_since = self._pacer.flushing(timed)
        if self.rows and self.peers:
            rows = self.ranked()
            if not (timed and rows == self._shown):
                self._shown = rows
                self.broadcast(frames.leaderboard_frame(rows, self.clock.now_ms()))
                if dirty_since is not None:
                    metrics.leaderboard_sent(now - dirty_since)
        self._send_boards()

    # ------------------------------------------------------------ boards for spectators

    def board_moved(self, member_id: str, seq: int, board: bytes) -> None:
        """A racer's board after their action number ``seq`` (acted here, or heard on
        the bus): kept when newer than the one held, and sent to the spectators with
        the next leaderboard (coalesced: a racer's many moves in one interval are
        one board, the latest)."""
        if self.boards.moved(member_id, seq, board):
            self.mark_dirty()

    def seat_peers(self, member_id: str, but: Peer | None = None) -> list[Peer]:
        """A racer's connections here (a second tab, a reloaded page), but ``but``."""
        return [
            peer
            for peer in self.peers
            if peer.member_id == member_id and peer.role == Role.PLAYER and peer is not but
        ]

    def seat_moved(self, member_id: str, frame: str, but: Peer | None = None) -> None:
        """A racer's board after an action (``frame``: ``board``) to their other
        connections here (``but`` acted and has its ack): a second tab shows the
        board, the score and the cards home its racer has, whichever tab played."""
        for peer in self.seat_peers(member_id, but):
            peer.send(frame)

    def watchers(self) -> list[Peer]:
        """The connections here that watch the race (spectators, late joiners)."""
        return [peer for peer in self.peers if peer.role != Role.PLAYER]

    def boards_frame(self) -> str:
        """Every board held, one frame for every spectator (one who comes in)."""
        return self.boards.frame(self.clock.now_ms())

    def _send_boards(self) -> None:
        """The boards that changed, to this room's spectators here, only where the
        room shows them."""
        changed = self.boards.take_changed()
        if changed and rules.boards_shown(self.state):
            self.boards.send(self.watchers(), changed, self.clock.now_ms())

    def ranked(self) -> list[Row]:
        connected = {m.id for m in self.state.members if m.connected}
        return ranked(self.rows.values(), connected)


def _shape(state: RoomState) -> tuple[object, ...]:
    """What a room change must be announced at once for: the race, its host, a
    seat's role (the order of room events matters to every client)."""
    return (
        state.phase,
        state.race,
        state.host_id,
        state.settings,
        tuple((m.id, m.role) for m in state.members if m.role == Role.PLAYER),
    )


def _presence(state: RoomState) -> tuple[bool, ...]:
    return tuple(m.connected for m in state.members)
