"""Race anyone, now: public races that gather whoever asks (``quick``).

Each pool (a draw mode) has the races it gathers into, kept in the
``MatchQueue`` (Redis), so players on any process meet in the same race.
Close ratings first: a race is centred on its first racer's rating
(``MatchRating``: 1000 for a newcomer) and takes racers within its band,
which widens the longer it waits (``Settings.quick_band_*``); an asker
takes the closest race whose band holds them, else opens one. A race
takes racers while it gathers (its lobby) and while its countdown runs;
when a seat in it is refused (full, started) it leaves the pool and the
asker tries the next. The second racer starts the countdown. A racer
waiting alone looks again each time the bands widen: once another race
takes them, they move there (``joined``; their empty race leaves the
pool), so two lone racers far apart meet without waiting for a third. A
racer alone for ``quick_bot_offer_s`` is offered a bot race
(``bot_offer``; at once by default), never put into one. A racer waiting
alone is told what their waiting screen says (``searching``: how many wait
in the pool, their race's band), on arrival and at each look again. Public
races have no host: the
server starts them, and nobody kicks, ends or changes them
(``rules.check_public_host``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import NamedTuple

import msgspec
from canfield_protocol import (
    BotOffer,
    Finished,
    GhostOffer,
    Leave,
    Left,
    LiveRace,
    MemberStatus,
    Phase,
    ProtocolError,
    Quick,
    RaceAgain,
    Role,
    RoomState,
    Row,
    Searching,
)
from canfield_protocol import ErrorCode as E

from canfield_server.ops.logs import event
from canfield_server.ops.ratelimit import PerAddress
from canfield_server.room import frames, identifiers, public, rules
from canfield_server.room.identity import Identities, Identity
from canfield_server.room.leaderboard import ranked
from canfield_server.room.lobby import Lobby
from canfield_server.room.ports import Band, MatchQueue, Peer, RaceSearch, RoomSave, Waiting
from canfield_server.room.registry import Rooms
from canfield_server.room.seating import Seating
from canfield_server.room.session import RoomSession

__all__ = ["MatchRating", "QuickRaces", "pool_of"]

log = logging.getLogger(__name__)

#: races tried in turn (each refused as full or started) before ``quick`` gives up
QUICK_ATTEMPTS = 6
#: a lone racer is counted as searching until two looks again from now, and this
#: much more (a racer whose process died stops counting by itself)
WAIT_SLACK_MS = 1000


#: an identity's rating to match by (token hash, draw mode -> points; a newcomer 1000)
MatchRating = Callable[[str, int], Awaitable[int]]
#: everyone's rating when the server keeps none (one band: whoever comes)
UNRATED = 1000


#: finished public races' racers kept per pool for ghost offers (the newest)
QUICK_PAST_KEEP = 500
#: the kept racers nearest a lone racer's rating looked at for a ghost offer: their
#: own past races among them are passed over (never offered one's own race)
QUICK_PAST_LOOK = 16


class _Past(msgspec.Struct, array_like=True):
    """A finished public race's racer, as the pool keeps it for a ghost offer."""

    replay: str
    racer: str
    name: str
    status: MemberStatus
    time_ms: int
    cards: int
    #: whose race it was: the start of their identity's token hash ("": not
    #: identified), so a racer is never offered their own
    owner: str = ""


_past = msgspec.json.Decoder(_Past)


def _owner(token_hash: str | None) -> str:
    """An identity as a kept racer names it: enough of its token hash to tell two apart."""
    return (token_hash or "")[:16]


class Ask(NamedTuple):
    """What a racer asked for: a seat in ``draw``'s pool, matched by ``rating``."""

    pool: str
    draw: int
    rating: int
    name: str
    identity: Identity
    #: server ms the racer began waiting (their waiting screen's clock); None: when
    #: their race opened (a racer back on a new connection)
    since_ms: int | None = None


def _seat_of(code: str, member_id: str) -> str:
    """A seat as the pool's count of waiting racers names it."""
    return f"{code}/{member_id}"


def _name_in(session: RoomSession, peer: Peer) -> str:
    """The racer's name in the race (for the next one they are matched to)."""
    me = rules.member(session.state, peer.member_id or "")
    return me.name if me is not None else "Player"


def pool_of(draw: int) -> str:
    """The pool a racer gathers in: one per draw mode (``d3``, ``d1``); the rating
    bands are within it (``MatchQueue.find_race``)."""
    return f"d{draw}"


class QuickRaces:
    def __init__(
        self,
        rooms: Rooms,
        seating: Seating,
        lobby: Lobby,
        identities: Identities,
        queue: MatchQueue,
        match_rating: MatchRating | None = None,
    ) -> None:
        self.rooms = rooms
        self.seating = seating
        self.lobby = lobby
        self.identities = identities
        self.queue = queue
        self.match_rating = match_rating
        settings = rooms.settings
        self.band = Band(
            points=settings.quick_band_points,
            widen_points=settings.quick_band_widen_points,
            widen_ms=round(settings.quick_band_widen_s * 1000),
            most_points=settings.quick_band_most_points,
        )
        self.clock = rooms.clock
        self.max_racers = min(settings.quick_max_racers, settings.max_players_per_room)
        self.offer_s = settings.quick_bot_offer_s
        self.look_again_s = settings.quick_band_widen_s
        self.ttl_s = settings.room_ttl_s
        self.live_max = settings.live_max
        self.by_address = PerAddress(settings.quick_per_s, settings.quick_burst, self.clock)
        self.by_identity = PerAddress(settings.quick_per_s, settings.quick_burst, self.clock)

    # ------------------------------------------------------------ a seat

    async def quick(self, peer: Peer, msg: Quick) -> None:
        """A seat in the next public race of ``msg.draw``; answered with ``joined``.
        From a finished public race, this is "race again": it leaves that one first."""
        identity = self.identities.require(peer)
        self._limit(peer, identity)
        await self._leave_finished(peer)
        if peer.room is not None:
            raise ProtocolError(E.ALREADY_IN_ROOM, f"this connection is in room {peer.room}")
        rating = await self._rating(identity, msg.draw)
        ask = Ask(pool_of(msg.draw), msg.draw, rating, msg.name, identity, self.clock.now_ms())
        await self._find_seat(peer, ask)

    async def _find_seat(self, peer: Peer, ask: Ask, first: str | None = None) -> None:
        """A seat in ``first`` (a race found already), else in the closest race whose
        band holds the racer, else in a new one; a race that refuses (full,
        started, gone) leaves the pool and the next is tried."""
        queue = self.queue
        for _ in range(QUICK_ATTEMPTS):
            now = self.clock.now_ms()
            found = first or await queue.find_race(
                RaceSearch(ask.pool, ask.rating, now, self.band, ttl_s=self.ttl_s)
            )
            first = None
            code = found or await self._open(ask.pool, ask.draw, ask.rating)
            try:
                await self._seat(peer, code, ask)
                return
            except ProtocolError as exc:
                if exc.code not in (E.WRONG_PHASE, E.ROOM_FULL, E.UNKNOWN_ROOM):
                    raise
                await queue.close_race(ask.pool, code)  # it takes nobody more: the next one
        raise ProtocolError(E.UNAVAILABLE, "no public race could take you now; try again")

    async def race_again(self, peer: Peer, msg: RaceAgain) -> None:
        """ "Race again" after a public race: a seat in the next one, same name and draw."""
        session = self.rooms.session_of(peer)
        await self.quick(
            peer, Quick(name=_name_in(session, peer), draw=session.state.settings.draw)
        )

    def _limit(self, peer: Peer, identity: Identity) -> None:
        if not self.by_identity.allow(identity.id) or (
            peer.ip and not self.by_address.allow(peer.ip)
        ):
            raise ProtocolError(E.RATE_LIMITED, "too many quick races asked; wait a little")

    async def _leave_finished(self, peer: Peer) -> None:
        session = self.rooms.get(peer.room)
        if session is not None and session.state.public and session.state.phase == Phase.FINISHED:
            await self.seating.leave(peer, Leave())

    async def _rating(self, identity: Identity, draw: int) -> int:
        if self.match_rating is None:
            return UNRATED
        return await self.match_rating(identity.token_hash, draw)

    async def _open(self, pool: str, draw: int, rating: int) -> str:
        """A new empty public race, offered to the pool; if another process
        opened one that takes this racer meanwhile, that one (ours, never seen,
        expires unused)."""
        queue = self.queue
        for _ in range(QUICK_ATTEMPTS):
            code = identifiers.new_room_code()
            ver = await self.rooms.store.save_room(
                RoomSave(0, public.create_public_room(code, draw))
            )
            if ver is not None:
                break
        else:  # pragma: no cover - collisions in a space of 887 million
            raise ProtocolError(E.UNAVAILABLE, "could not find a free room code")
        now = self.clock.now_ms()
        found = await queue.find_race(
            RaceSearch(pool, rating, now, self.band, offer=code, ttl_s=self.ttl_s)
        )
        if found == code:
            event(log, "quick.opened", room=code, pool=pool, rating=rating)
        return found or code

    async def _seat(self, peer: Peer, code: str, ask: Ask) -> None:
        """One seat per identity in a public race; a racer seated in the countdown races it."""
        member_id, token = identifiers.new_member_id(), identifiers.new_token()
        name = ask.name
        mine = await self._seats_of(code, ask.identity)
        now = self.clock.now_ms()

        def seat(state: RoomState) -> RoomState:
            if any(rules.member(state, seat_id) for seat_id in mine):
                raise ProtocolError(E.ALREADY_IN_ROOM, "you race in this public race already")
            return public.seat_public(state, member_id, name, now, self.max_racers)

        record = await self.rooms.take_seat(
            code,
            seat,
            member_id,
            identifiers.token_hash(token),
            new_race=True,  # the racers of the coming race, this one included
        )
        await self.seating.enter(peer, record, member_id, token, counted=True)
        state = record.state
        racers = rules.players(state)
        if state.phase == Phase.LOBBY and len(racers) >= 2:
            # not awaited: the start may wait for a proven deal (``proven_deal_wait_s``),
            # and this racer's ``joined`` goes out when the handler returns
            self.rooms.spawn(self._start(code))
            # company came: whoever waited here searches no more
            others = [_seat_of(code, m.id) for m in racers if m.id != member_id]
            self.rooms.spawn(self._stop_waiting(ask.pool, others))
        elif len(racers) == 1:
            self._wait_alone(peer, code, ask)

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
        rating = await self._rating(identity, draw)
        name = _name_in(session, peer)
        self._wait_alone(peer, code, Ask(pool_of(draw), draw, rating, name, identity, None))

    def _wait_alone(self, peer: Peer, code: str, ask: Ask) -> None:
        """Alone in ``code``: the bot offer after the wait, the waiting screen's
        words now, and a look again each time the bands widen (each does nothing
        once the racer is not alone there)."""
        self.clock.call_later(self.offer_s, self._offer_bot, peer, code, ask)
        self.rooms.spawn(self._tell_waiting(peer, code, ask))
        self.clock.call_later(self.look_again_s, self._look_again_later, peer, code, ask)

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
        rated = self.match_rating is not None and seen.opened_ms is not None
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
            await self._find_seat(peer, ask, first=found)
        except ProtocolError as exc:  # no race takes them now: their page starts again
            log.warning("quick race move from %s: %s", code, exc.message)
            peer.send(frames.text(Left(room=code)))

    async def _seats_of(self, code: str, identity: Identity) -> set[str]:
        """The seats this identity took in the race (any process, any connection)."""
        store = self.identities.store
        if store is None:
            return set()
        linked = await store.room_identities(code)
        return {seat_id for seat_id, owner in linked.items() if owner == identity.token_hash}

    async def _start(self, code: str) -> None:
        session = self.rooms.get(code)
        if session is None:
            return
        try:
            await self.lobby.start_as_server(session)
        except ProtocolError as exc:  # another racer's process started it first
            log.info("public race %s: %s", code, exc.message)
            return
        await self.queue.live_add(code, session.state.starts_at or self.clock.now_ms())

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
            near = await self.queue.past_near(ask.pool, ask.rating, QUICK_PAST_LOOK)
        except self.rooms.storage_errors as exc:
            log.warning("public race %s: no ghost offered: %s", code, exc)
            return
        mine = _owner(ask.identity.token_hash)
        others = (past for past in map(_past.decode, near) if past.owner != mine)
        past = next(others, None)
        if past is None or not self._alone(peer, code):
            return
        offer = GhostOffer(
            room=code,
            draw=ask.draw,
            replay=past.replay,
            racer=past.racer,
            name=past.name,
            status=past.status,
            time_ms=past.time_ms,
            cards=past.cards,
        )
        peer.send(frames.text(offer))

    async def remember(self, state: RoomState, finished: Finished) -> None:
        """A race's results were written: a public race's rated racers are kept
        by their rating for a lone racer's ghost offer, now that it is over."""
        if not state.public or not finished.replay:
            return
        replay, times = finished.replay.rsplit("/", 1)[-1], finished.replay_times or {}
        pool = pool_of(state.settings.draw)
        store = self.identities.store
        owners = await store.room_identities(state.room) if store is not None else {}
        for row in finished.standings:
            moves = finished.replays.get(row.id, [])
            if row.rating is None or len(times.get(row.id, ())) != len(moves) or not moves:
                continue
            owner = _owner(owners.get(row.id))
            past = _Past(
                replay, row.id, row.name, row.status, row.time_ms, row.on_foundations, owner
            )
            await self.queue.keep_past(
                pool, msgspec.json.encode(past).decode(), row.rating, QUICK_PAST_KEEP
            )

    # ------------------------------------------------------------ the end, and live races

    async def race_over(self, state: RoomState, standings: Sequence[Row]) -> None:
        """A public race's results were written (once, by one process): it is no
        longer live. THE place for ratings: the full finishing order is here."""
        await self.queue.live_drop(state.room)

    async def live(self) -> list[LiveRace]:
        """Public races in progress, newest first: never a private room, no card."""
        queue, store = self.queue, self.rooms.store
        now = self.clock.now_ms()
        out = []
        for code in await queue.live(self.live_max):
            record = await store.load_room(code)
            if record is None or not record.state.public or record.state.phase != Phase.RACING:
                await queue.live_drop(code)
                continue
            state = record.state
            started = state.starts_at or now
            if now < started:
                continue  # still counting down
            rows = ranked((await store.rows(code)).values())
            leader = rows[0].name if rows and rows[0].moves > 0 else None
            racers = rules.players(state)
            out.append(
                LiveRace(
                    room=code,
                    draw=state.settings.draw,
                    racers=len(racers),
                    names=[m.name for m in racers],
                    elapsed_ms=now - started,
                    leader=leader,
                )
            )
        return out
