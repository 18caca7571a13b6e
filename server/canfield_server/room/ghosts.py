"""Ghost races: a finished race's deal raced again against its racers' recordings.

Every stored action keeps the moment the server received it (``stamps``),
so a racer's line can be played again exactly: a *ghost* is a seat the
server fills (``Member.ghost``, and ``bot``: always ready, never host),
whose recorded actions are applied on the usual board path
(``BoardActions.play_for``) at their recorded times, counted from this
race's own start (the live racer's "Go"), and stamped with those times, so
the ghost's row (its cards home, its finish time) is the recording's.

The cost is bounded: at most ``MAX_GHOSTS`` ghosts a race, one timer per
race for the next due action (``Playback``), one task per firing, never
one per action. A ghost's end is the recording's: its winning move, its
give up, or (a racer still playing when the race stopped) a give up at
its recorded time with the status it had (``timed_out``, ``stopped``).
Once every live racer is done, the ghosts play the rest at once (their
recorded times still), so the results come without waiting out a slower
ghost.

Ghost races are private rooms of one racer: unrated, never a daily
standing, no rematch (racing again starts a new ghost race). A replay is
raced only when ``/replay/<id>`` would serve it (a daily's once its day is
over). Nobody sees a ghost's board: its lane is counts only (a ghost's
cards are the racer's own face-down cards; docs/security.md).

Playback runs on the process that serves the live racer: it starts where
the race is dealt, and when the racer comes back after their connection
went (a reload, another process after a drain) it goes on from each
ghost's last stored action. Each step carries its number on the ghost's
board, so a step two processes both play is a duplicate the second time,
never a second move.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, NamedTuple

from canfield_protocol import (
    MAX_GHOSTS,
    DailyReplay,
    GhostRace,
    Leave,
    Member,
    MemberStatus,
    Phase,
    ProtocolError,
    ReplayPlayer,
    Role,
    RoomReplay,
    RoomSettings,
    RoomState,
)
from canfield_protocol import ErrorCode as E

from canfield_server.ops.clock import Clock, Timer
from canfield_server.ops.logs import event
from canfield_server.room import rules
from canfield_server.room.actions import BoardActions
from canfield_server.room.lobby import Lobby
from canfield_server.room.names import free_name, name_key
from canfield_server.room.ports import Peer
from canfield_server.room.race import GIVE_UP
from canfield_server.room.registry import Rooms
from canfield_server.room.seating import Seating
from canfield_server.room.session import RoomSession

__all__ = ["GhostRaces", "Playback", "Step", "ghost_room", "ghost_steps", "pick_ghosts"]

log = logging.getLogger(__name__)

#: a finished race as ``/replay/<id>`` serves it, or ``ProtocolError``
#: (``unknown-replay``; ``not-allowed`` for a daily whose day is not over)
ReadReplay = Callable[[str], Awaitable[RoomReplay | DailyReplay]]

#: a recording that stopped with its racer still playing ends with this status
_STOPPED_AS = frozenset({MemberStatus.TIMED_OUT, MemberStatus.STOPPED})


class Step(NamedTuple):
    """One recorded action of a ghost, due ``at_ms`` after the race's start."""

    at_ms: int
    member_id: str
    #: its number on the ghost's board: a step played twice is a duplicate, never a second move
    seq: int
    entry: str
    #: what a give up locks in (the recording's own status)
    quit_as: MemberStatus


def ghost_steps(player: ReplayPlayer) -> list[Step]:
    """A racer's recording as steps in order: each action at its recorded time
    (never before the one it followed), and an end where the recording has none
    of its own (a racer still playing when the race stopped)."""
    times = player.times_ms or []
    if len(times) != len(player.moves_list):
        raise ProtocolError(
            E.NOT_ALLOWED, f"{player.name}'s race was kept without its times: it cannot be raced"
        )
    quit_as = MemberStatus.LEFT if player.status == MemberStatus.LEFT else MemberStatus.GAVE_UP
    steps, at = [], 0
    for seq, (entry, when) in enumerate(zip(player.moves_list, times, strict=True), start=1):
        at = max(at, when)
        steps.append(Step(at, player.id, seq, entry, quit_as))
    ended = player.status == MemberStatus.WON or (steps and steps[-1].entry == GIVE_UP)
    if not ended:
        status = player.status if player.status in _STOPPED_AS else MemberStatus.GAVE_UP
        steps.append(Step(max(at, player.time_ms), player.id, len(steps) + 1, GIVE_UP, status))
    return steps


def pick_ghosts(replay: RoomReplay | DailyReplay, racer_ids: Sequence[str]) -> list[ReplayPlayer]:
    """The replay's racers to race (its first when none is named); refused when
    one is not in it, its result was removed, or its times were not kept."""
    wanted = list(dict.fromkeys(racer_ids)) or [replay.players[0].id if replay.players else ""]
    if len(wanted) > MAX_GHOSTS:
        raise ProtocolError(E.BAD_MESSAGE, f"a race takes at most {MAX_GHOSTS} ghosts")
    by_id = {p.id: p for p in replay.players}
    picked = []
    for racer_id in wanted:
        player = by_id.get(racer_id)
        if player is None:
            raise ProtocolError(
                E.UNKNOWN_PLAYER, f"no racer {racer_id[:16]!r} in replay {replay.id}"
            )
        if player.review == "confirmed":
            raise ProtocolError(E.NOT_ALLOWED, "that result was removed: it cannot be raced")
        ghost_steps(player)  # refused here, before anything changes
        picked.append(player)
    return picked


def ghost_room(
    code: str,
    host_id: str,
    name: str,
    replay: RoomReplay | DailyReplay,
    ghosts: list[ReplayPlayer],
    challenge: str | None = None,
) -> RoomState:
    """A ghost race's room: its one racer (the host) and the ghosts, on the
    replay's deal, no time limit, no boards shown; ghost names numbered when
    taken (``Ana 2``: racing one's own ghost)."""
    host = Member(id=host_id, name=rules.clean_name(name), role=Role.PLAYER, ready=True)
    members, taken = [host], {name_key(host.name)}
    for player in ghosts:
        if player.id == host_id:  # pragma: no cover - 1 in 4 billion
            raise ProtocolError(E.UNAVAILABLE, "could not seat that ghost; try again")
        ghost_name = free_name(player.name, taken)
        taken.add(name_key(ghost_name))
        members.append(
            Member(
                id=player.id, name=ghost_name, role=Role.PLAYER, bot=True, ghost=True, ready=True
            )
        )
    # a deal code's draw mode wins over the settings' (``check_settings``)
    settings = RoomSettings(deal=replay.deal, winnable_only=False)
    return RoomState(
        room=code,
        phase=Phase.LOBBY,
        host_id=host_id,
        settings=rules.check_settings(settings),
        members=members,
        ghost_of=replay.id,
        challenge=challenge,
    )


class Playback:
    """A ghost race's ghosts at play: one timer, for the next step due."""

    def __init__(
        self,
        actions: BoardActions,
        session: RoomSession,
        steps: list[Step],
        clock: Clock,
        spawn: Callable[[Coroutine[Any, Any, None]], object],
    ) -> None:
        self.actions, self.session, self.clock, self.spawn = actions, session, clock, spawn
        self.race_no = session.state.race
        self.starts_at = session.state.starts_at or clock.now_ms()
        self.steps = sorted(steps, key=lambda s: s.at_ms)  # stable: each ghost's order kept
        self.ghosts = {s.member_id for s in steps}
        self.next = 0
        #: every live racer is done: the ghosts play the rest now
        self.rushing = False
        self.stopped = False
        self._playing = False
        self._timer: Timer | None = None
        #: ghosts whose recording could not be applied (left where they were)
        self.broken: set[str] = set()

    def arm(self) -> None:
        """The timer for the next step (none when all are played or it stopped)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.stopped or self.next >= len(self.steps):
            return
        due = self.starts_at + self.steps[self.next].at_ms
        delay = 0.0 if self.rushing else max(0.0, (due - self.clock.now_ms()) / 1000)
        self._timer = self.clock.call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        if not self._playing:
            self.spawn(self._play())

    async def _play(self) -> None:
        """Every step due now, in order (all of them once rushing); then the next timer."""
        self._playing = True
        try:
            while not self.stopped and self.next < len(self.steps):
                step = self.steps[self.next]
                if not self.rushing and self.starts_at + step.at_ms > self.clock.now_ms():
                    break
                self.next += 1
                await self._apply(step)
        finally:
            self._playing = False
        self.arm()

    async def _apply(self, step: Step) -> None:
        state = self.session.state
        if state.phase != Phase.RACING or state.race != self.race_no:
            self.cancel()
            return
        if step.member_id in self.broken or rules.member(state, step.member_id) is None:
            return
        try:
            await self.actions.play_for(
                self.session, step.member_id, step.seq, step.entry, step.at_ms, step.quit_as
            )
        except ProtocolError as exc:
            if exc.code == E.WRONG_PHASE:  # the race ended meanwhile
                self.cancel()
                return
            self.broken.add(step.member_id)
            event(
                log,
                "ghost.stuck",
                logging.WARNING,
                room=self.session.code,
                player=step.member_id,
                error=exc.message,
            )
        except self.actions.rooms.storage_errors as exc:
            self.broken.add(step.member_id)
            log.warning("ghost %s in %s stopped: %s", step.member_id, self.session.code, exc)

    def racer_done(self, member_id: str) -> None:
        if member_id in self.ghosts or self.rushing:
            return
        state, rows = self.session.state, self.session.rows
        live = [m for m in rules.players(state) if not m.ghost]
        if all(m.id in rows and rows[m.id].status not in _PLAYING for m in live):
            self.rushing = True
            self.arm()

    def cancel(self) -> None:
        self.stopped = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


_PLAYING = frozenset({MemberStatus.PLAYING, MemberStatus.DISCONNECTED})


class GhostRaces:
    """``ghost_race``: a replay raced again; the entry point of any way in (the
    results' "Race this", a challenge link, the quick race's ghost offer)."""

    def __init__(
        self,
        rooms: Rooms,
        seating: Seating,
        lobby: Lobby,
        actions: BoardActions,
        read_replay: ReadReplay,
    ) -> None:
        self.rooms, self.seating, self.lobby, self.actions = rooms, seating, lobby, actions
        self.read_replay = read_replay

    async def race(self, peer: Peer, msg: GhostRace) -> None:
        await self.start(peer, msg.name, msg.replay, msg.racers)

    async def again(self, peer: Peer) -> None:
        """``race_again`` after a ghost race: the same ghosts, a new race."""
        state = self.rooms.session_of(peer).state
        me = rules.member(state, peer.member_id or "")
        ghosts = [m.id for m in state.members if m.ghost]
        if state.ghost_of is None or me is None:
            raise ProtocolError(E.NOT_ALLOWED, "not a ghost race")
        await self.start(peer, me.name, state.ghost_of, ghosts, state.challenge)

    async def start(
        self,
        peer: Peer,
        name: str,
        replay_id: str,
        racer_ids: Sequence[str],
        challenge: str | None = None,
    ) -> RoomSession:
        """Race ``replay_id``'s racers ``racer_ids`` (its first when empty) as
        ghosts: a new room with ``peer`` its one racer, counting down at once.
        Refused with nothing changed (a bad name, an unknown replay or racer, a
        daily's before its day is over, a connection in a room still racing); a
        connection in a finished room leaves it first. ``challenge``: the challenge
        link it takes (``room.challenges``). The new room's session."""
        rules.clean_name(name)
        if peer.room is not None:
            current = self.rooms.session_of(peer)
            if current.state.phase != Phase.FINISHED:
                raise ProtocolError(E.ALREADY_IN_ROOM, f"this connection is in room {peer.room}")
        replay = await self.read_replay(replay_id)
        ghosts = pick_ghosts(replay, racer_ids)
        if peer.room is not None:
            await self.seating.leave(peer, Leave())
        session = await self.seating.open_room(
            peer, lambda code, host_id: ghost_room(code, host_id, name, replay, ghosts, challenge)
        )
        await self.lobby.start_for(session, peer.member_id or "")
        self._play(session, [step for player in ghosts for step in ghost_steps(player)])
        event(
            log,
            "ghost.race",
            room=session.code,
            replay=replay.id,
            ghosts=len(ghosts),
        )
        return session

    def _play(self, session: RoomSession, steps: list[Step]) -> None:
        playback = Playback(self.actions, session, steps, self.rooms.clock, self.rooms.spawn)
        session.playback = playback
        playback.arm()

    async def resumed(self, peer: Peer) -> None:
        """A racer back in a ghost race still on (a reload, another process after a
        drain): where this process plays no ghosts (the room's session here is new),
        the playback goes on from each ghost's last stored action."""
        session = self.rooms.get(peer.room)
        state = session.state if session is not None else None
        if session is None or state is None or state.ghost_of is None:
            return
        if state.phase != Phase.RACING or session.playback is not None:
            return
        steps = []
        try:
            replay = await self.read_replay(state.ghost_of)
            for player in pick_ghosts(replay, [m.id for m in state.members if m.ghost]):
                _, stored = await self.rooms.store.load_player(session.code, player.id)
                steps += [step for step in ghost_steps(player) if step.seq > len(stored)]
        except ProtocolError as exc:
            # the racer is back all the same; the ghosts stay where they are
            log.warning("ghosts of %s not resumed: %s", session.code, exc.message)
            return
        except self.rooms.storage_errors as exc:
            log.warning("ghosts of %s not resumed: %s", session.code, exc)
            return
        if session.playback is None and session.state.race == state.race:
            self._play(session, steps)
