"""A racer waiting alone for a public race: what they see, and where they go.

Seated alone in a gathering public race, a racer waits on timers, not on
their own messages: told what their waiting screen says (``searching``:
how many wait alone in the pool, their race's band) on arrival and at each
look again; looking again each time the bands widen, and moving to another
race once it takes them (``joined``; their empty race leaves the pool), so
two lone racers far apart meet without waiting for a third; and after
``quick_bot_offer_s`` offered a bot race (``bot_offer``) and a ghost race
(``ghost_offer``, ``room.quick_past``), never put into one. Each step does
nothing once the racer is not alone there any more. Finding a seat is
``room.quick``'s; this module is what happens between the seat and company.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from canfield_protocol import BotOffer, Left, Phase, ProtocolError, Role, RoomState, Searching
from canfield_protocol import ErrorCode as E

from canfield_server.ops.logs import event
from canfield_server.room import frames, public, rules
from canfield_server.room.identity import Identities, Identity
from canfield_server.room.ports import Band, MatchQueue, Peer, RaceSearch, Waiting
from canfield_server.room.public import Ask, pool_of
from canfield_server.room.quick_past import PastRacers
from canfield_server.room.registry import Rooms

__all__ = ["LoneRacers", "QUICK_ATTEMPTS", "WAIT_SLACK_MS"]

log = logging.getLogger(__name__)

#: races tried in turn (each refused as full or started) before ``quick`` gives up
QUICK_ATTEMPTS = 6
#: a lone racer is counted as searching until two looks again from now, and this
#: much more (a racer whose process died stops counting by itself)
WAIT_SLACK_MS = 1000

#: a seat in a public race (``QuickRaces.find_seat``): the racer, their ask, a race found
FindSeat = Callable[[Peer, Ask, str | None], Awaitable[None]]
#: the rating a racer is matched by (``QuickRaces.rating``)
RatingOf = Callable[[Identity, int], Awaitable[int]]


def _seat_of(code: str, member_id: str) -> str:
    """A seat as the pool's count of waiting racers names it."""
    return f"{code}/{member_id}"


class LoneRacers:
    """The racers waiting alone in a gathering public race served here."""

    def __init__(
        self,
        rooms: Rooms,
        queue: MatchQueue,
        identities: Identities,
        past: PastRacers,
        *,
        band: Band,
        max_racers: int,
        rated: bool,
        find_seat: FindSeat,
        rating: RatingOf,
    ) -> None:
        self.rooms = rooms
        self.queue = queue
        self.identities = identities
        self.past = past
        self.band = band
        self.max_racers = max_racers
        #: the band is shown (this server matches by rating; else everyone is alike)
        self.rated = rated
        self.find_seat = find_seat
        self.rating = rating
        settings = rooms.settings
        self.clock = rooms.clock
        self.offer_s = settings.quick_bot_offer_s
        self.look_again_s = settings.quick_band_widen_s
        self.ttl_s = settings.room_ttl_s

    def wait(self, peer: Peer, code: str, ask: Ask) -> None:
        """Alone in ``code``: the bot offer after the wait, the waiting screen's
        words now, and a look again each time the bands widen (each does nothing
        once the racer is not alone there)."""
        self.clock.call_later(self.offer_s, self._offer_bot, peer, code, ask)
        self.rooms.spawn(self._tell_waiting(peer, code, ask))
        self.clock.call_later(self.look_again_s, self._look_again_later, peer, code, ask)

    def company_came(self, ask: Ask, code: str, racers: list[str]) -> None:
        """A second racer sat down in ``code``: whoever waited there (``racers``,
        member ids) searches no more."""
        self.rooms.spawn(self._stop_waiting(ask.pool, [_seat_of(code, m) for m in racers]))

    async def resumed(self, peer: Peer) -> None:
        """A racer back on a new connection (a reload, another process after a
        drain), alone in a gathering public race: they look again as the bands
        widen and are offered a bot race after a full wait, as on arrival."""
        code, identity = peer.room or "", self.identities.of(peer)
        session = self.rooms.get(code)
        if identity is None or session is None or not session.state.public:
            return
        if not self._alone(peer, code):
            return
        draw = session.state.settings.draw
        rating = await self.rating(identity, draw)
        name = public.racer_name(session.state, peer.member_id)
        self.wait(peer, code, Ask(pool_of(draw), draw, rating, name, identity, None))

    def searching_seat(self, peer: Peer) -> tuple[str, str] | None:
        """The pool and seat of a racer who may be counted as waiting (a player in a
        gathering public race), for ``stop_waiting`` once they leave."""
        session = self.rooms.get(peer.room)
        if session is None or not session.state.public or session.state.phase != Phase.LOBBY:
            return None
        if peer.member_id is None or peer.role != Role.PLAYER:
            return None
        return pool_of(session.state.settings.draw), _seat_of(session.code, peer.member_id)

    async def left(self, seat: tuple[str, str] | None) -> None:
        """A racer left their gathering public race (``searching_seat`` before): not
        counted as waiting any more."""
        if seat is not None:
            await self._stop_waiting(seat[0], [seat[1]])

    async def _tell_waiting(self, peer: Peer, code: str, ask: Ask) -> Ask:
        """What the lone racer's waiting screen says now (``searching``): how many
        wait alone in the pool, they included, and how far their race's band
        reaches; counts only. They count as waiting until two looks from now.
        Returns ``ask`` with the time they began waiting known."""
        member_id = peer.member_id or ""
        if not self._alone(peer, code):
            return ask
        now = self.clock.now_ms()
        until = now + round(2 * self.look_again_s * 1000) + WAIT_SLACK_MS
        try:
            seen = await self.queue.still_waiting(
                ask.pool, _seat_of(code, member_id), code, now, until
            )
        except self.rooms.storage_errors as exc:
            log.warning("public race %s: waiting not counted: %s", code, exc)
            return ask
        if ask.since_ms is None:
            ask = ask._replace(since_ms=seen.opened_ms or now)
        if not self._alone(peer, code):  # company came meanwhile
            await self._stop_waiting(ask.pool, [_seat_of(code, member_id)])
            return ask
        peer.send(frames.text(self._searching(code, ask, seen, now)))
        return ask

    def _searching(self, code: str, ask: Ask, seen: Waiting, now: int) -> Searching:
        # the band of the race they wait in (opened when they came, mostly); none
        # when this server matches without ratings (everyone is alike)
        rated = self.rated and seen.opened_ms is not None
        return Searching(
            room=code,
            draw=ask.draw,
            searching=seen.racers,
            band=self.band.width(now - (seen.opened_ms or now)) if rated else None,
            band_most=self.band.most_points if rated else None,
            queued_at=min(ask.since_ms or now, now),
            server_time=now,
        )

    async def _stop_waiting(self, pool: str, seats: list[str]) -> None:
        """``seats`` search no more (never raises: past two looks they stop counting anyway)."""
        try:
            await self.queue.stopped_waiting(pool, seats)
        except self.rooms.storage_errors as exc:
            log.warning("waiting racers not uncounted: %s", exc)

    def _alone(self, peer: Peer, code: str) -> bool:
        """The racer still waits alone in the race (its lobby) on this connection,
        which is still open."""
        session = self.rooms.get(code)
        return (
            peer.room == code
            and session is not None
            and peer in session.peers
            and session.state.phase == Phase.LOBBY
            and [m.id for m in rules.players(session.state)] == [peer.member_id]
        )

    def _look_again_later(self, peer: Peer, code: str, ask: Ask) -> None:
        if self._alone(peer, code):
            self.rooms.spawn(self._look_again(peer, code, ask))

    async def _look_again(self, peer: Peer, code: str, ask: Ask) -> None:
        """Alone still, and the bands have widened since: a race that takes the
        racer now (theirs, or the other's, has widened) is where they go."""
        queue = self.queue
        for _ in range(QUICK_ATTEMPTS):
            now = self.clock.now_ms()
            found = await queue.find_race(
                RaceSearch(ask.pool, ask.rating, now, self.band, ttl_s=self.ttl_s, mine=code)
            )
            if found is None or found == code:  # none yet: theirs gathers on (in the pool)
                break
            if await self._takes(found):
                await self._move(peer, code, found, ask)
                return
            # dealt or full: it takes nobody more (and theirs is back in the next look)
            await queue.close_race(ask.pool, found)
        ask = await self._tell_waiting(peer, code, ask)  # the band has widened
        self.clock.call_later(self.look_again_s, self._look_again_later, peer, code, ask)

    async def _takes(self, code: str) -> bool:
        """The race would seat one more racer now (gathering or counting down, not full):
        a racer leaves their own race only for one that takes them."""
        record = await self.rooms.store.load_room(code)
        if record is None:
            return False
        state, now = record.state, self.clock.now_ms()
        gathering = state.phase == Phase.LOBBY or public.public_counting(state, now)
        return state.public and gathering and len(rules.players(state)) < self.max_racers

    async def _move(self, peer: Peer, code: str, found: str, ask: Ask) -> None:
        """The racer leaves their race (still alone in it) for ``found``. This
        connection leaves quietly (``joined`` follows); any other of the seat (a
        second tab, on any process) gets ``left``, as its seat is gone."""
        session = self.rooms.get(code)
        if session is None or not self._alone(peer, code):  # gone, or company came
            return
        member_id = peer.member_id or ""

        def step_out(state: RoomState) -> RoomState:
            if state.phase != Phase.LOBBY or [m.id for m in rules.players(state)] != [member_id]:
                raise ProtocolError(E.WRONG_PHASE, "someone joined this race meanwhile")
            return rules.remove_member(state, member_id)

        session.peers.discard(peer)  # so the seat's removal sends it no ``left``
        try:  # no new racer finds their race now; one who came just before stays
            await self.rooms.mutate(code, step_out, revoke=member_id)
        except ProtocolError as exc:  # company came: they race here, and more may come
            session.peers.add(peer)
            log.info("public race %s: %s", code, exc.message)
            now = self.clock.now_ms()
            await self.queue.reopen_race(ask.pool, code, ask.rating, now, self.ttl_s)
            return
        except BaseException:
            session.peers.add(peer)
            raise
        peer.room = peer.member_id = peer.role = None
        session.hooks.unseated(session, member_id)  # as for any seat gone: counted out
        await self._stop_waiting(ask.pool, [_seat_of(code, member_id)])
        event(log, "quick.moved", room=code, to=found, pool=ask.pool, rating=ask.rating)
        try:
            await self.find_seat(peer, ask, found)
        except ProtocolError as exc:  # no race takes them now: their page starts again
            log.warning("quick race move from %s: %s", code, exc.message)
            peer.send(frames.text(Left(room=code)))

    def _offer_bot(self, peer: Peer, code: str, ask: Ask) -> None:
        """Still alone in the gathering race: the page may offer a bot race, and a
        ghost race against a real past public race near their rating."""
        session = self.rooms.get(code)
        if session is not None and self._alone(peer, code):
            offer = BotOffer(room=code, draw=session.state.settings.draw, waited_s=self.offer_s)
            peer.send(frames.text(offer))
            self.rooms.spawn(self._offer_ghost(peer, code, ask))

    async def _offer_ghost(self, peer: Peer, code: str, ask: Ask) -> None:
        try:
            offer = await self.past.ghost_offer(code, ask)
        except self.rooms.storage_errors as exc:
            log.warning("public race %s: no ghost offered: %s", code, exc)
            return
        if offer is not None and self._alone(peer, code):
            peer.send(frames.text(offer))
