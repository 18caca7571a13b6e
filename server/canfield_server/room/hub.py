"""The process's rooms: protocol messages in, Redis and room events out.

One ``Hub`` per server process. It wires the room's parts together and
hands each decoded client message to the part that owns it:

- ``Rooms`` (registry): the sessions served here, compare-and-set changes,
  room events from other processes;
- ``Seating``: create, join, resume, leave, kick, disconnects;
- ``Lobby``: settings, ready, start, rematch, bots;
- ``BoardActions``: move, tap, undo, give up, hint;
- ``Results``: the end of a race and its standings;
- ``Replays``: a finished race's replay by its id (pages, ghosts, challenges);
- ``LinkMessages``: ``hello``, ``ping``, ``rtt_pong`` (the link's, no room's).

Errors go back to the connection that asked, as one ``error`` frame;
nothing half-done stays behind.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from canfield_protocol import (
    AddBot,
    ClientMessage,
    Create,
    Daily,
    DailyStandingQuery,
    DeleteHistory,
    EndRace,
    Finished,
    GhostRace,
    GiveUp,
    Hello,
    Hint,
    HistoryMsg,
    HistoryQuery,
    Identify,
    Join,
    Kick,
    Leave,
    LiveRace,
    MakeChallenge,
    MoveMsg,
    Ping,
    ProtocolError,
    PublicArenaList,
    Quick,
    RaceAgain,
    Ready,
    Reconnect,
    Rematch,
    Resume,
    Role,
    RoomState,
    Row,
    RttPong,
    SettingsMsg,
    Start,
    TakeChallenge,
    Tap,
    Undo,
)
from canfield_protocol import ErrorCode as E

from canfield_server.ops import metrics
from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.ops.config import Settings
from canfield_server.ops.logs import event
from canfield_server.room import frames
from canfield_server.room.actions import BoardActions
from canfield_server.room.arena import ARENA_MESSAGES, Arenas, no_arenas
from canfield_server.room.arena_signals import CHANNEL_PREFIX as ARENA_CHANNEL
from canfield_server.room.assess import Assessments
from canfield_server.room.challenges import Challenges
from canfield_server.room.closing import close_room, remove_member
from canfield_server.room.daily import DailyRaces
from canfield_server.room.ghosts import GhostRaces
from canfield_server.room.identity import Identities, Identity
from canfield_server.room.link import LinkMessages
from canfield_server.room.lobby import Lobby
from canfield_server.room.ports import (
    ArenaStore,
    BotLauncher,
    ChallengeStore,
    DailyDeals,
    DailyStore,
    IdentityStore,
    IntegrityStore,
    MatchQueue,
    Peer,
    RoomBus,
    RoomStore,
    SignalService,
    SolverService,
    StorageErrors,
)
from canfield_server.room.presence import Presence
from canfield_server.room.quick import MatchRating, QuickRaces
from canfield_server.room.registry import Rooms
from canfield_server.room.replays import Replays
from canfield_server.room.results import RatePublicRace, Results
from canfield_server.room.review import Reviews
from canfield_server.room.round_trips import RoundTrips
from canfield_server.room.seating import Seating
from canfield_server.room.session import RoomSession

__all__ = ["Hub"]

log = logging.getLogger(__name__)

Handler = Callable[[Peer, Any], Awaitable[None]]


class Hub:
    """A server process's rooms: every client message comes in through ``handle``.

    Its parts are built here, each given what it calls at construction; the
    hub is the owner the rooms hand a room's timers and endings back to
    (``RoomOwner``), passing each on to the part that does it.
    """

    def __init__(
        self,
        store: RoomStore,
        settings: Settings | None = None,
        *,
        clock: Clock = SYSTEM,
        bus: RoomBus | None = None,
        solver: SolverService | None = None,
        bots: BotLauncher | None = None,
        storage_errors: StorageErrors = (OSError,),
        identities: IdentityStore,
        challenges: ChallengeStore,
        daily: DailyStore,
        daily_deals: DailyDeals,
        queue: MatchQueue,
        integrity: IntegrityStore,
        reviews: Reviews,
        ratings: RatePublicRace | None = None,
        match_rating: MatchRating | None = None,
        signals: SignalService | None = None,
        arenas: ArenaStore | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.store = store
        #: each finished result's integrity assessment and the review queue
        self.integrity = integrity
        #: the review as others see it, and the operator's decisions (``room.review``):
        #: built by whoever builds the hub, who hands it to the console and ladder too
        self.reviews = reviews
        self.clock = clock
        self.rooms = Rooms(store, self.settings, storage_errors, clock=clock, owner=self, bus=bus)
        self.identities = Identities(identities, self.settings, clock)
        #: each finished racer's integrity signals, computed and recorded off the move path
        self.assessments = Assessments(
            self.rooms, integrity, identities, signals, self.settings, clock
        )
        self.results = Results(
            self.rooms,
            solver,
            on_finished=self._room_finished,
            on_public_finished=self._public_race_over,
            # rates each public race into its ``finished`` standings (None: unrated)
            rate_public=ratings,
            on_assess=self.assessments.room_finished,
        )
        self.actions = BoardActions(self.rooms, solver)
        self.seating = Seating(self.rooms, self.actions, link=self.identities.link)
        self.lobby = Lobby(self.rooms, self.results, solver, bots)
        self.quick = QuickRaces(
            self.rooms, self.seating, self.lobby, self.identities, queue, match_rating
        )
        self.daily = DailyRaces(
            daily,
            daily_deals,
            self.identities,
            self.settings,
            clock,
            reviews=self.reviews,
            assessments=self.assessments,
        )
        #: every replay by its id, a room race's or a daily's (``/replay/<id>``, ghosts)
        self.replays = Replays(identities, self.daily, reviews)
        #: ghost races: a replay raced again (``ghost_race``, and challenge links)
        self.ghosts = GhostRaces(
            self.rooms, self.seating, self.lobby, self.actions, self.replays.to_race
        )
        #: challenge links: a racer's run in a finished race, raced by others as a ghost
        self.challenges = Challenges(
            challenges, self.identities, self.replays.find, self.ghosts.start, self.settings, clock
        )
        #: arenas (None: this server runs none; their messages are refused)
        self.arenas = (
            Arenas(self.rooms, self.seating, self.identities, arenas, solver, self.results.end)
            if arenas is not None
            else None
        )
        if self.arenas is not None:  # fair play: a flagged heat's points held off the standing
            self.assessments.on_flagged = self.arenas.heats.results.flagged
            self.reviews.on_decided = self.arenas.heats.results.decided
        #: the heartbeat and the timer sweep (``start``: by the app, not by tests of rooms)
        self.presence = Presence(self.rooms, self.seating, self.results)
        #: each racer's round trip, probed on the process's beat (``tick``: by the app)
        self.round_trips = RoundTrips(clock, self.settings.rtt_ping_s, self._round_trip)
        link = LinkMessages(clock, self.round_trips)  # hello, ping, rtt_pong: no room's
        self._handlers: dict[type, Handler] = {
            Hello: link.hello,
            Ping: link.ping,
            RttPong: link.rtt_pong,
            Create: self.seating.create,
            Join: self.seating.join,
            Resume: self._resume,
            Leave: self._leave,
            Kick: self.seating.kick,
            EndRace: self.lobby.end_race,
            SettingsMsg: self.lobby.settings,
            Ready: self.lobby.ready,
            Start: self.lobby.start,
            Rematch: self.lobby.rematch,
            RaceAgain: self._race_again,
            Quick: self.quick.quick,
            GhostRace: self.ghosts.race,
            AddBot: self.lobby.add_bot,
            MoveMsg: self._act,
            Tap: self._act,
            Undo: self._act,
            GiveUp: self._act,
            Hint: self._hint,
            Identify: self.identities.identify,
            HistoryQuery: self.identities.history,
            DeleteHistory: self.identities.delete_history,
            MakeChallenge: self.challenges.make,
            TakeChallenge: self.challenges.take,
            Daily: self.daily.start,
            DailyStandingQuery: self.daily.standing,
        }
        arena: dict[type, Handler] = dict.fromkeys(ARENA_MESSAGES, no_arenas)
        self._handlers.update(self.arenas.handlers() if self.arenas else arena)

    @property
    def sessions(self) -> dict[str, RoomSession]:
        """The rooms served here, by code (one mapping for the process's life)."""
        return self.rooms.sessions

    def start(self) -> None:
        """The background parts: the presence heartbeat and the timer sweep."""
        self.presence.start()

    async def stop(self) -> None:
        """The background parts stop (after ``shutdown``, once nothing needs them)."""
        await self.presence.stop()

    # ------------------------------------------------------------ the room bus

    def on_event(self, code: str, payload: bytes) -> None:
        if code.startswith(ARENA_CHANNEL):
            if self.arenas is not None:
                self.arenas.on_event(code, payload)
            return
        self.rooms.on_event(code, payload)

    async def resync(self) -> None:
        await self.rooms.resync()

    async def set_connected(self, code: str, member_id: str, connected: bool) -> None:
        await self.rooms.set_connected(code, member_id, connected)

    # ------------------------------------------------------------ RoomOwner

    def time_up(self, code: str, race_no: int) -> None:
        self.end_now(code, race_no)

    def end_now(self, code: str, race_no: int) -> None:
        self.rooms.spawn(self.results.end(code, race_no))

    def unseated(self, session: RoomSession, member_id: str) -> None:
        self.rooms.spawn(self.seating.count_out(session, member_id))

    def grace_over(self, code: str) -> None:
        self.rooms.spawn(self.presence.grace_over(code))

    async def finalize(self, code: str, race_no: int) -> None:
        await self.results.finalize(code, race_no)

    async def member_gone(self, code: str, member_id: str) -> None:
        await self.seating.gone(code, member_id)

    def seat_moved(self, session: RoomSession, member_id: str) -> None:
        self.rooms.spawn(self.actions.seat_moved_elsewhere(session, member_id))

    async def _room_finished(self, state: RoomState, finished: Finished) -> None:
        """A room race's results were written (once): its replay and history, a
        challenge race's result into its challenge's standing, and a public race's
        rated racers kept for the quick race's ghost offers."""
        await self.identities.room_finished(state, finished)
        try:
            await self.quick.past.remember(state, finished)
        except self.rooms.storage_errors as exc:
            log.warning("public race %s not kept for ghost offers: %s", state.room, exc)
        try:
            await self.challenges.finished(state, finished)
        except Exception as exc:  # noqa: BLE001 - a standing is never worth a race's end
            event(log, "challenge.not_recorded", logging.WARNING, room=state.room, error=str(exc))

    async def _public_race_over(self, state: RoomState, standings: Sequence[Row]) -> None:
        """THE hook at the end of a public race (once, on one process), with its
        full finishing order (rated already, in ``Results``): no longer live."""
        await self.quick.race_over(state, standings)
        if state.arena is not None and self.arenas is not None:
            await self.arenas.heat_over(state.arena, state.room, list(standings))

    # ------------------------------------------------------------ messages

    async def _resume(self, peer: Peer, msg: Resume) -> None:
        await self.seating.resume(peer, msg)
        await self.ghosts.resumed(peer)
        await self.quick.waiting.resumed(peer)

    async def _leave(self, peer: Peer, msg: Leave) -> None:
        """Leaving; a racer who waited for a public race (Cancel) is no longer
        counted on the others' waiting screens."""
        waited = self.quick.waiting.searching_seat(peer)
        await self.seating.leave(peer, msg)
        await self.quick.waiting.left(waited)

    async def _race_again(self, peer: Peer, msg: RaceAgain) -> None:
        """After a public race, the next public race; after a ghost race, a new one
        against the same ghosts; in a room, the room's next race."""
        state = self.rooms.session_of(peer).state
        if state.public:
            await self.quick.race_again(peer, msg)
        elif state.ghost_of is not None:
            await self.ghosts.again(peer)
        else:
            await self.lobby.race_again(peer, msg)

    async def _hint(self, peer: Peer, msg: Hint) -> None:
        """A hint takes its turn at the solver as the asker's address, and counts
        against it and the asker's identity: one asker in eight rooms holds one
        share, not eight, and fresh identities from one address add none."""
        identity = self.identities.of(peer)
        shares = [f"ip:{peer.ip}"] if peer.ip else []
        if identity is not None:
            shares.append(f"id:{identity.id}")
        await self.actions.hint(peer, msg, shares)

    async def _act(self, peer: Peer, msg: MoveMsg | Tap | Undo | GiveUp) -> None:
        """A board action: the daily race this connection plays, else its room's."""
        if self.daily.owns(peer):
            await self.daily.act(peer, msg)
        else:
            if self.arenas is not None:
                await self.arenas.check_action(peer, msg)
            await self.actions.act(peer, msg)
            if self.arenas is not None:
                self.arenas.acted(peer)

    async def replay(self, replay_id: str) -> tuple[int, bytes | dict[str, str]]:
        """``/replay/<id>``: (HTTP status, the replay's JSON, or an error body)."""
        return await self.replays.find(replay_id)

    async def live_races(self) -> list[LiveRace]:
        """``/api/live``: the public races in progress (``room.quick``)."""
        return await self.quick.live()

    async def public_arenas(self) -> PublicArenaList:
        """``/api/arenas``: the public arenas running now and next (``room.arena_schedule``)."""
        if self.arenas is None:
            return PublicArenaList(arenas=[], server_time=self.clock.now_ms())
        return await self.arenas.public_list()

    async def export_history(self, token: str) -> HistoryMsg:
        """``/history``: the whole history of an identity's token, else ``bad-identity``."""
        return await self.identities.export(token)

    async def identity_of(self, token: str) -> Identity:
        """The identity a token the server issued stands for, else ``bad-identity``."""
        identity, _, _ = await self.identities.lookup(token)
        return identity

    async def handle(self, peer: Peer, msg: ClientMessage) -> None:
        """Answer one decoded client message; errors go back to this peer only."""
        seq = getattr(msg, "seq", None)
        started = time.perf_counter()
        accepted = False
        try:
            await self._handlers[type(msg)](peer, msg)
            accepted = True
        except ProtocolError as exc:
            peer.send(frames.error_frame(exc, seq))
        except self.rooms.storage_errors as exc:
            metrics.redis_error(type(msg).__name__)
            event(
                log,
                "storage.unavailable",
                logging.WARNING,
                room=peer.room,
                player=peer.member_id,
                message=type(msg).__name__,
                error=str(exc),
            )
            unavailable = ProtocolError(E.UNAVAILABLE, "storage unavailable; nothing applied")
            peer.send(frames.error_frame(unavailable, seq))
        if seq is not None:  # a board action: move, tap, undo, give up
            metrics.move_done(accepted, time.perf_counter() - started)

    async def detach(self, peer: Peer) -> None:
        """A connection ended. Never raises: whatever fails is logged, and the
        presence heartbeat corrects what could not be recorded."""
        self.daily.detach(peer)
        if self.arenas is not None:
            await self.arenas.detach(peer)
        self.identities.detach(peer)
        self.round_trips.detach(peer)
        try:
            await self.seating.detach(peer)
        except Exception:
            log.exception("departure from %s not recorded", peer.room)

    async def close_room(self, code: str) -> bool:
        """The operator closes a room (``room.closing``); False: no such room."""
        return await close_room(self.rooms, self.results, code)

    async def remove_member(self, code: str, member_id: str) -> bool | None:
        """The operator removes a member (``room.closing``): True when removed,
        False: no such member, None: no such room."""
        return await remove_member(self.seating, code, member_id)

    async def shutdown(self, message: str = "server restarting") -> None:
        text = frames.text(Reconnect(message=message))
        for session in list(self.rooms.sessions.values()):
            for peer in list(session.peers):
                peer.send(text)
                peer.close(1012, message)
        for task in list(self.rooms.tasks):
            task.cancel()

    def _round_trip(self, peer: Peer, ms: int) -> None:
        """A racer's round trip, measured: to their room's session here."""
        session = self.rooms.sessions.get(peer.room or "")
        if session is not None and peer.member_id and peer.role == Role.PLAYER:
            session.round_trip(peer.member_id, ms)
