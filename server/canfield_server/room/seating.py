"""Seats: creating a room, joining, resuming with a token, leaving, being removed.

A seat is a member of the room (player or spectator) with its token; a
connection sits in a seat. Presence counts a member's connections over
every server process, so a member shows ``connected`` while any of them
is open.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from functools import partial

from canfield_protocol import (
    Cap,
    Countdown,
    Create,
    Join,
    Joined,
    Kick,
    Leave,
    Member,
    MemberStatus,
    Phase,
    ProtocolError,
    Resume,
    Role,
    RoomState,
)
from canfield_protocol import ErrorCode as E

from canfield_server.ops.logs import event
from canfield_server.ops.ratelimit import PerAddress
from canfield_server.room import departures, frames, identifiers, rules
from canfield_server.room.actions import BoardActions
from canfield_server.room.ports import Peer, RoomBudget, RoomRecord, RoomSave, RoomsRefused
from canfield_server.room.race import reached_of
from canfield_server.room.registry import Rooms
from canfield_server.room.removal import removed_by_operator
from canfield_server.room.session import RoomSession

__all__ = ["Seating"]

log = logging.getLogger(__name__)

#: fresh room codes tried when one is taken (8 collisions in 887 million codes)
CODE_ATTEMPTS = 8
#: the window of ``Settings.max_new_rooms_per_ip_per_min``
NEW_ROOMS_WINDOW_MS = 60_000


#: the seat's owner is noted where a connection takes a seat (``Identities.link``)
LinkSeat = Callable[[Peer], Awaitable[None]]


async def _no_link(peer: Peer) -> None:
    return None


class Seating:
    def __init__(self, rooms: Rooms, actions: BoardActions, link: LinkSeat = _no_link) -> None:
        self.rooms = rooms
        #: every path into a seat (create, join, resume, a public race's seat, a
        #: move to another public race) links it to the connection's identity
        #: here, before ``joined``: its ratings and history are its own
        self.link = link
        self.store = rooms.store
        self.settings = rooms.settings
        self.clock = rooms.clock
        #: a racer's board (loaded under its slot's lock) and giving it up
        self.race_of = actions.race_of
        self.give_up_for = actions.give_up_for
        self.limits = rules.Limits(
            self.settings.max_players_per_room, self.settings.max_spectators_per_room
        )
        self.room_misses = PerAddress(
            self.settings.room_misses_per_s, self.settings.room_misses_burst, self.clock
        )
        self.joins = PerAddress(
            self.settings.joins_per_ip_per_s, self.settings.joins_per_ip_burst, self.clock
        )
        #: where the bots this process launches connect from (its own host)
        self.bot_addresses = self.settings.own_addresses()
        self.grace_ms = int(self.settings.away_grace_s * 1000)
        self.budget = RoomBudget(
            self.settings.max_open_rooms_per_ip,
            self.settings.max_new_rooms_per_ip_per_min,
            NEW_ROOMS_WINDOW_MS,
        )

    def _not_in_room(self, peer: Peer) -> None:
        if peer.room is not None:
            raise ProtocolError(E.ALREADY_IN_ROOM, f"this connection is in room {peer.room}")

    # ------------------------------------------------------------ taking a seat

    async def create(self, peer: Peer, msg: Create) -> None:
        await self.open_room(
            peer, lambda code, host_id: rules.create_room(code, host_id, msg.name, msg.settings)
        )

    async def open_room(self, peer: Peer, build: Callable[[str, str], RoomState]) -> RoomSession:
        """A new room with this connection in its first seat: ``build(code,
        host_id)`` makes its state (a room of the host's, or a ghost race); the
        address's room budget holds for every kind."""
        self._not_in_room(peer)
        # an address is limited by the rooms it holds open and by a burst of new
        # ones, not by what it made over hours: a school or an office shares one
        limited = peer.ip if self.budget.max_open or self.budget.max_new else None
        for _ in range(CODE_ATTEMPTS):
            code, member_id, token = (
                identifiers.new_room_code(),
                identifiers.new_member_id(),
                identifiers.new_token(),
            )
            if limited:
                # (a code found taken below stays counted until it lapses: 1 in 887 million)
                self._refuse(await self.store.claim_room(limited, code, self.budget))
            state = build(code, member_id)
            ver = await self.store.save_room(
                RoomSave(
                    0,
                    state,
                    token=(identifiers.token_hash(token), member_id),
                    present=member_id,
                    creator=limited,
                )
            )
            if ver is not None:
                break
        else:  # pragma: no cover - 8 collisions in a space of 887 million
            raise ProtocolError(E.UNAVAILABLE, "could not find a free room code")
        await self.enter(peer, RoomRecord(state, ver), member_id, token, counted=True)
        return self.rooms.session_of(peer)

    def _refuse(self, refused: RoomsRefused | None) -> None:
        """A room the address may not create now: why, in words and in facts."""
        if refused is None:
            return
        if refused.cap == Cap.OPEN_ROOMS:
            text = (
                f"this address has {refused.limit} rooms open, the most it may; finish"
                " a race or leave a room to make another"
            )
        else:
            text = f"this address created {refused.limit} rooms in the last minute; wait a little"
        raise ProtocolError(
            E.RATE_LIMITED,
            text,
            params={"cap": refused.cap, "limit": refused.limit, "retry_at": refused.retry_at},
        )

    async def join(self, peer: Peer, msg: Join) -> None:
        try:
            await self._join(peer, msg)
        except ProtocolError as exc:
            if exc.code == E.UNKNOWN_ROOM and peer.ip:
                self.room_misses.spend(peer.ip)
            raise

    async def _join(self, peer: Peer, msg: Join) -> None:
        self._not_in_room(peer)
        session = self._served(msg.room)
        # a bot this process launched for the room's host, connecting from this
        # host: its budget is the room's and the server's bot limits, not the
        # per-address join budget every bot would otherwise share
        launched = (
            session is not None
            and msg.name.strip() in session.bot_names
            and peer.ip in self.bot_addresses
        )
        if not launched:
            self._check_join_budget(peer)
        code = identifiers.normalize_room_code(msg.room)
        member_id, token = identifiers.new_member_id(), identifiers.new_token()
        bot = msg.bot or launched
        # the new seat's connection is counted in the same save (see room/presence.py)
        record = await self.rooms.take_seat(
            code,
            lambda state: rules.add_member(state, member_id, msg.name, msg.role, self.limits, bot),
            member_id,
            identifiers.token_hash(token),
        )
        if launched and session is not None:
            session.bot_names.discard(msg.name.strip())
        await self.enter(peer, record, member_id, token, counted=True)

    def _served(self, text: str) -> RoomSession | None:
        """The session of the room ``text`` names, if this process serves it."""
        try:
            return self.rooms.get(identifiers.normalize_room_code(text))
        except ProtocolError:
            return None

    def _check_join_budget(self, peer: Peer) -> None:
        if peer.ip and not self.room_misses.ready(peer.ip):
            # refused before looking: no hint either way
            raise ProtocolError(
                E.RATE_LIMITED, "too many unknown room codes from this address; wait a little"
            )
        if peer.ip and not self.joins.allow(peer.ip):
            # one address cannot fill rooms with throwaway seats
            raise ProtocolError(E.RATE_LIMITED, "too many joins from this address; wait a little")

    async def resume(self, peer: Peer, msg: Resume) -> None:
        self._not_in_room(peer)
        code = identifiers.normalize_room_code(msg.room)
        member_id = await self.store.member_for_token(code, identifiers.token_hash(msg.token))
        record = await self.rooms.load(code) if member_id else None
        if member_id is None or record is None or rules.member(record.state, member_id) is None:
            raise ProtocolError(E.BAD_TOKEN, "that token does not open a seat in this room")
        await self.enter(peer, record, member_id, msg.token)

    async def enter(
        self, peer: Peer, record: RoomRecord, member_id: str, token: str, counted: bool = False
    ) -> None:
        """Seat a connection: local room, presence, ``joined`` and what it missed
        (``counted``: the seat's save counted this connection already)."""
        session = await self.rooms.open(record)
        session.peers.add(peer)  # at once: a leaving connection must not drop the room meanwhile
        try:
            await self._count_in(peer, session, record, member_id, token, counted)
        except BaseException:
            # nothing half-done: the connection is in no room, the room not kept for it
            session.peers.discard(peer)
            peer.room = peer.member_id = peer.role = None
            await self.rooms.drop_if_empty(session)
            raise

    async def _count_in(
        self,
        peer: Peer,
        session: RoomSession,
        record: RoomRecord,
        member_id: str,
        token: str,
        counted: bool,
    ) -> None:
        me = rules.member(session.state, member_id) or rules.member(record.state, member_id)
        assert me is not None
        count = 1 if counted else await self.store.presence(session.code, member_id, +1)
        try:
            await self._seated(peer, session, me, count, token)
        except BaseException:
            try:
                await self.store.presence(session.code, member_id, -1)
            except self.rooms.storage_errors:
                pass  # storage unreachable: this count may stay one too high
            raise

    async def _seated(
        self, peer: Peer, session: RoomSession, me: Member, count: int, token: str
    ) -> None:
        code, member_id = session.code, me.id
        if count >= 1 and not me.connected:
            await self.rooms.mutate(code, lambda s: rules.set_connected(s, member_id, True))
        if rules.member(session.state, member_id) is None:
            # the seat was removed (leave, kick) while this connection was taking it
            raise ProtocolError(E.BAD_TOKEN, "that seat was removed from the room")
        peer.room, peer.member_id, peer.role = code, member_id, me.role
        await self.link(peer)
        event(log, "member.joined", room=code, player=member_id, role=me.role)
        state = session.state
        race = None
        if state.phase == Phase.RACING and me.role == Role.PLAYER:
            race = await self.race_of(session, member_id)
        last_seq = race.seq if race else 0
        now = self.clock.now_ms()
        starts_at = state.starts_at or 0
        counting = now < starts_at  # the countdown of a race, not yet dealt
        # read before anything is sent: a seat is taken whole or not at all
        progress = boards = None
        if state.phase == Phase.RACING and not counting:
            progress = await self._progress(session)
            if me.role != Role.PLAYER and rules.boards_shown(state):
                await self.rooms.fill_boards(session)  # every racer's board so far
                boards = session.boards_frame()
        joined = Joined(
            room=code,
            player_id=member_id,
            token=token,
            role=me.role,
            is_host=state.host_id == member_id,
            last_seq=last_seq,
            state=frames.public_state(state, self.clock.now_ms()),
        )
        peer.send(frames.text(joined))
        if state.phase == Phase.RACING and counting:
            peer.send(frames.text(Countdown(starts_at=starts_at, server_time=now)))
        elif progress is not None:
            if race is not None:
                peer.send(frames.board_frame(race))
            peer.send(progress)
            peer.send(frames.leaderboard_frame(session.ranked(), self.clock.now_ms()))
            if boards is not None:
                peer.send(boards)
        elif state.phase == Phase.FINISHED and session.final:
            peer.send(session.final.decode())

    async def _progress(self, session: RoomSession) -> str:
        """The race so far for a connection that comes in mid-race: each racer's
        cards home over time (one round trip; no card is in it), so its race
        chart starts at the start whenever it joined."""
        snaps = await self.store.snapshots(session.code, list(session.rows))
        reached = {pid: reached_of(snap) for pid, snap in snaps.items()}
        started_at = session.state.starts_at or 0
        return frames.progress_frame(started_at, reached, self.clock.now_ms())

    # ------------------------------------------------------------ leaving

    async def detach(self, peer: Peer) -> None:
        """A connection ended: drop it locally, count it out of the room's presence."""
        session = self.rooms.get(peer.room)
        if session is None:
            return
        session.peers.discard(peer)
        event(log, "member.left", room=session.code, player=peer.member_id)
        await self.count_out(session, peer.member_id)

    async def count_out(self, session: RoomSession, member_id: str | None) -> None:
        """One connection of a member is gone from this process: presence, then the
        room. A spectator's seat is freed; a player is away, with the grace time
        to come back. Never raises: a departure is always recorded or logged."""
        try:
            if member_id and await self.store.presence(session.code, member_id, -1) <= 0:
                await self.gone(session.code, member_id)
        except self.rooms.storage_errors as exc:
            log.warning("presence update lost: %s", exc)
        except ProtocolError as exc:
            log.warning("departure of %s not recorded: %s", member_id, exc.message)
        await self.rooms.drop_if_empty(session)

    async def gone(self, code: str, member_id: str) -> None:
        """No connection of this member is left on any process. Departures that
        come together (a page of spectators closing at once) are recorded
        together: one compare-and-set for all of them, not one each."""
        session = self.rooms.get(code)
        if session is None:
            away_until = self.clock.now_ms() + self.grace_ms
            await self.rooms.mutate(
                code, lambda s: rules.set_connected(s, member_id, False, away_until)
            )
            return
        session.departing.add(member_id)
        if session.departures is None or session.departures.done():
            session.departures = asyncio.ensure_future(self._record_departures(session))
        await asyncio.shield(session.departures)

    async def _record_departures(self, session: RoomSession) -> None:
        while session.departing:
            await asyncio.sleep(0)  # let the other departures of this turn join in
            batch, session.departing = session.departing, set()
            away_until = self.clock.now_ms() + self.grace_ms
            change = partial(departures.depart, member_ids=batch, away_until=away_until)
            await self.rooms.mutate(session.code, change)
            event(log, "members.departed", room=session.code, count=len(batch))
        await self._bots_follow(session)

    async def give_up_away(self, code: str) -> None:
        """Grace ran out: the seats of members still away are given up (a racer
        is out of the race, ranked by their progress; a host hands over)."""
        session = self.rooms.get(code)
        if session is None:
            return
        try:
            for m in departures.away_too_long(session.state, self.clock.now_ms()):
                event(log, "member.away_too_long", room=code, player=m.id)
                await self._remove(
                    session, m.id, partial(_without, member_id=m.id), quit_as=MemberStatus.LEFT
                )
        finally:
            session.grace_checked()

    async def leave(self, peer: Peer, msg: Leave) -> None:
        """The member goes for good; their connections here get ``left``. Mid-race
        in a public race their row says ``left`` (not ``gave_up``): the ratings
        count a racer who left as last, as one who dropped past the grace time."""
        session = self.rooms.session_of(peer)
        member_id = peer.member_id or ""
        quit_as = MemberStatus.LEFT if session.state.public else MemberStatus.GAVE_UP
        await self._remove(
            session, member_id, lambda s: rules.remove_member(s, member_id), quit_as=quit_as
        )

    async def kick(self, peer: Peer, msg: Kick) -> None:
        """The host removes another member; their connections get ``kicked``, then close."""
        session = self.rooms.session_of(peer)
        host_id = peer.member_id or ""
        # refused before any change
        target = rules.check_kick(session.state, host_id, msg.player_id)
        await self._remove(
            session, target.id, lambda s: rules.kick(s, host_id, target.id), kicked=True
        )

    async def remove_by_operator(self, session: RoomSession, member_id: str) -> bool:
        """The server's operator removes a member, as the host's kick does (a racer
        gives up first); False when there is no such member."""
        if rules.member(session.state, member_id) is None:
            return False
        change = partial(_without, member_id=member_id)
        await self._remove(session, member_id, change, kicked=removed_by_operator(member_id))
        return True

    async def _remove(
        self,
        session: RoomSession,
        member_id: str,
        change: Callable[[RoomState], RoomState],
        kicked: bool | str = False,
        quit_as: MemberStatus = MemberStatus.GAVE_UP,
    ) -> None:
        """A racer first gives up (the race can end without them), then the seat and
        its tokens go in one compare-and-set; every process drops its connections.
        Bots follow: with no person left to race, they are removed too."""
        me = rules.member(session.state, member_id)
        if me is not None and me.role == Role.PLAYER and session.state.phase == Phase.RACING:
            await self.give_up_for(session, member_id, quit_as)
        event(log, "member.removed", room=session.code, player=member_id, kicked=bool(kicked))
        # ``kicked``: True, the host's kick (the event names the member); a string,
        # the event's own mark (``removed_by_operator``)
        marked = kicked if isinstance(kicked, str) else member_id if kicked else None
        await self.rooms.mutate(session.code, change, revoke=member_id, kicked=marked)
        await self._bots_follow(session)

    async def _bots_follow(self, session: RoomSession) -> None:
        """With no person left to race, the bots are removed too."""
        for bot in departures.bots_alone(session.state):
            await self._remove(session, bot.id, partial(_without, member_id=bot.id), kicked=True)


def _without(state: RoomState, member_id: str) -> RoomState:
    """``remove_member``, unless another process removed them first."""
    if rules.member(state, member_id) is None:
        return state
    return rules.remove_member(state, member_id)
