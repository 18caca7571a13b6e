"""Race anyone, now: public races that gather whoever asks (``quick``).

Each pool (a draw mode) has the races it gathers into, kept in the
``MatchQueue`` (Redis), so players on any process meet in the same race.
Close ratings first: a race is centred on its first racer's rating
(``MatchRating``: 1000 for a newcomer) and takes racers within its band,
which widens the longer it waits (``Settings.quick_band_*``); an asker
takes the closest race whose band holds them, else opens one. A race
takes racers while it gathers (its lobby) and while its countdown runs;
when a seat in it is refused (full, started) it leaves the pool and the
asker tries the next. The second racer starts the countdown; a racer
seated alone waits (``room.quick_waiting``: the waiting screen, the look
again as the bands widen, the bot and ghost offers). Public races have no
host: the server starts them, and nobody kicks, ends or changes them
(``rules.check_public_host``). Once started, a public race is live
(``GET /api/live``) until its results are written.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

from canfield_protocol import ErrorCode as E
from canfield_protocol import (
    Leave,
    LiveRace,
    Phase,
    ProtocolError,
    Quick,
    RaceAgain,
    RoomState,
    Row,
)

from canfield_server.ops.logs import event
from canfield_server.ops.ratelimit import PerAddress
from canfield_server.room import identifiers, public, rules
from canfield_server.room.identity import Identities, Identity
from canfield_server.room.leaderboard import ranked
from canfield_server.room.lobby import Lobby
from canfield_server.room.ports import Band, MatchQueue, Peer, RaceSearch, RoomSave
from canfield_server.room.public import Ask, pool_of
from canfield_server.room.quick_past import PastRacers
from canfield_server.room.quick_waiting import QUICK_ATTEMPTS, LoneRacers
from canfield_server.room.registry import Rooms
from canfield_server.room.seating import Seating

__all__ = ["MatchRating", "QuickRaces"]

log = logging.getLogger(__name__)

#: an identity's rating to match by (token hash, draw mode -> points; a newcomer 1000)
MatchRating = Callable[[str, int], Awaitable[int]]
#: everyone's rating when the server keeps none (one band: whoever comes)
UNRATED = 1000


class QuickRaces:
    """``quick`` and a public race's "race again": a seat found (or a race
    opened) for the asker, the race started once company comes, and the
    public races live now."""

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
        self.ttl_s = settings.room_ttl_s
        self.live_max = settings.live_max
        self.by_address = PerAddress(settings.quick_per_s, settings.quick_burst, self.clock)
        self.by_identity = PerAddress(settings.quick_per_s, settings.quick_burst, self.clock)
        #: finished public races' racers, kept for a lone racer's ghost offer
        self.past = PastRacers(queue, identities.store)
        #: the racers seated alone here, waiting for company
        self.waiting = LoneRacers(
            rooms,
            queue,
            identities,
            self.past,
            band=self.band,
            max_racers=self.max_racers,
            rated=match_rating is not None,
            find_seat=self.find_seat,
            rating=self.rating,
        )

    # ------------------------------------------------------------ a seat

    async def quick(self, peer: Peer, msg: Quick) -> None:
        """A seat in the next public race of ``msg.draw``; answered with ``joined``.
        From a finished public race, this is "race again": it leaves that one first."""
        identity = self.identities.require(peer)
        self._limit(peer, identity)
        await self._leave_finished(peer)
        if peer.room is not None:
            raise ProtocolError(E.ALREADY_IN_ROOM, f"this connection is in room {peer.room}")
        rating = await self.rating(identity, msg.draw)
        ask = Ask(pool_of(msg.draw), msg.draw, rating, msg.name, identity, self.clock.now_ms())
        await self.find_seat(peer, ask)

    async def find_seat(self, peer: Peer, ask: Ask, first: str | None = None) -> None:
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
        name = public.racer_name(session.state, peer.member_id)
        await self.quick(peer, Quick(name=name, draw=session.state.settings.draw))

    def _limit(self, peer: Peer, identity: Identity) -> None:
        if not self.by_identity.allow(identity.id) or (
            peer.ip and not self.by_address.allow(peer.ip)
        ):
            raise ProtocolError(E.RATE_LIMITED, "too many quick races asked; wait a little")

    async def _leave_finished(self, peer: Peer) -> None:
        session = self.rooms.get(peer.room)
        if session is not None and session.state.public and session.state.phase == Phase.FINISHED:
            await self.seating.leave(peer, Leave())

    async def rating(self, identity: Identity, draw: int) -> int:
        """The rating ``identity`` is matched by in ``draw`` (everyone alike: unrated)."""
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
            self.waiting.company_came(ask, code, [m.id for m in racers if m.id != member_id])
        elif len(racers) == 1:
            self.waiting.wait(peer, code, ask)

    async def _seats_of(self, code: str, identity: Identity) -> set[str]:
        """The seats this identity took in the race (any process, any connection)."""
        linked = await self.identities.store.room_identities(code)
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
