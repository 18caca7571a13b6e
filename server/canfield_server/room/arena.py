"""Arenas: an evening of heats with a standing that carries over.

An arena (``ArenaRecord``) has a name, a draw mode, a start and a length
(15 to 120 minutes). A private arena is made by anyone identified and
joined by its link (``/a/<code>``); its creator is its host, who may change
its length and draw mode before it starts, end it early and remove a racer,
nothing else. From its start, everyone waiting is put into heats
(``room.arena_heats``); points by place, the streak and berserk are
``room.arena_rules``'; the standing is the ``ArenaStore``'s (Redis, shared
by every process).

Pages follow an arena (``arena_join``: racing; ``arena_watch``: the standing
only) and get an ``arena`` message when they come and then at most once a
tick while anything in it changed: one read of the arena's version per
tick, never a message per racer per move. A process with pages of an arena
hears its signals (``room.arena_signals``): a heat formed, racers waiting.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from canfield_protocol import (
    ARENA_CODE,
    ArenaBerserk,
    ArenaBerserkOn,
    ArenaCreate,
    ArenaEnd,
    ArenaHistory,
    ArenaHistoryQuery,
    ArenaJoin,
    ArenaLeave,
    ArenaLeft,
    ArenaListed,
    ArenaRemove,
    ArenaResult,
    ArenaSettingsMsg,
    ArenaWatch,
    Phase,
    ProtocolError,
    PublicArenaList,
    Role,
    Undo,
)
from canfield_protocol import ErrorCode as E

from canfield_server.ops.logs import event
from canfield_server.room import frames
from canfield_server.room.arena_drive import DRIVEN_MS, ArenaDriver
from canfield_server.room.arena_heats import HeatRunner, Racer
from canfield_server.room.arena_page import ArenaPage
from canfield_server.room.arena_schedule import PublicArenas, parse_timetable
from canfield_server.room.arena_signals import ArenaBus, Formed
from canfield_server.room.identifiers import CODE_ALPHABET
from canfield_server.room.identity import Identities
from canfield_server.room.names import clean_name
from canfield_server.room.ports import (
    ArenaRecord,
    ArenaStore,
    Peer,
    SolverService,
)
from canfield_server.room.registry import Rooms
from canfield_server.room.seating import Seating

__all__ = ["ARENA_MESSAGES", "Arenas", "new_arena_code", "no_arenas"]

log = logging.getLogger(__name__)

ARENA_CODE_LENGTH = 8
_result = msgspec.json.Decoder(ArenaResult)
#: host changes tried against other changes of the record
SAVE_ATTEMPTS = 5

#: ends a heat's race now (``Results.end`` with its race number)
EndHeat = Callable[[str, int], Awaitable[None]]


#: the arena's client messages (``Arenas.handlers``)
ARENA_MESSAGES = (
    ArenaCreate,
    ArenaJoin,
    ArenaWatch,
    ArenaSettingsMsg,
    ArenaEnd,
    ArenaRemove,
    ArenaBerserk,
    ArenaLeave,
    ArenaHistoryQuery,
)


#: a client message's handler
Handler = Callable[[Peer, Any], Awaitable[None]]


async def no_arenas(peer: Peer, msg: Any) -> None:
    """An arena's message to a server that runs none."""
    raise ProtocolError(E.UNAVAILABLE, "this server runs no arenas")


def new_arena_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(ARENA_CODE_LENGTH))


class Arenas:
    def __init__(
        self,
        rooms: Rooms,
        seating: Seating,
        identities: Identities,
        store: ArenaStore,
        solver: SolverService | None,
        end_heat: EndHeat,
    ) -> None:
        self.rooms = rooms
        self.identities = identities
        self.store = store
        self.end_heat = end_heat
        self.clock = rooms.clock
        settings = rooms.settings
        self.tick_s = settings.arena_tick_s
        self.keep_s = settings.arena_keep_s
        #: the signals to and from the other processes following an arena
        self.signals = ArenaBus(rooms.bus, self._formed)
        self.heats = HeatRunner(rooms, seating, store, solver, secrets.token_hex(8), self.signals)
        self.signals.on_waited = self.heats.former.soon
        #: the ``arena`` message each page is sent
        self.page = ArenaPage(store, self.heats, self.clock, settings.arena_standing_rows)
        #: the timetable's public arenas (a part of the process's beat)
        self.public = PublicArenas(
            store,
            self.clock,
            parse_timetable(settings.public_arenas),
            settings.public_arena_lead_s,
            self.keep_s,
            every_s=self.tick_s,
        )
        #: the arenas no page here follows, driven to their end (a part of the beat)
        self.driver = ArenaDriver(
            store, self.heats, self.clock, lambda: set(self.followers), every_s=self.tick_s
        )
        #: arena code -> the connections here that follow it (a racer's, or None: watching)
        self.followers: dict[str, dict[Peer, Racer | None]] = {}
        #: arena code -> what its pages were last sent (version, status)
        self.sent: dict[str, tuple[int, str]] = {}
        #: arena code -> its record as the last tick read it
        self.records: dict[str, ArenaRecord] = {}
        #: (heat, member) of the racers here who went berserk: no undo
        self.no_undo: set[tuple[str, str]] = set()
        self.ticking = False

    # ------------------------------------------------------------ messages

    def handlers(self) -> dict[type, Handler]:
        """Each arena message's handler (``Hub.handle`` dispatches by type)."""
        ours: list[Handler] = [self.create, self.join, self.watch, self.settings, self.end]
        ours += [self.remove, self.berserk, self.leave, self.history]
        return dict(zip(ARENA_MESSAGES, ours, strict=True))

    async def create(self, peer: Peer, msg: ArenaCreate) -> None:
        """A private arena; its creator hosts it and races in it."""
        identity = self.identities.require(peer)
        name = clean_name(msg.name)
        starts_at = self.clock.now_ms() + msg.starts_in_s * 1000
        for _ in range(4):
            record = ArenaRecord(
                code=new_arena_code(),
                name=name,
                draw=msg.draw,
                minutes=msg.minutes,
                starts_at=starts_at,
                host=identity.id,
            )
            ttl = msg.starts_in_s + msg.minutes * 60 + self.keep_s
            if await self.store.create(record, ttl):
                break
        else:  # pragma: no cover - 31**8 codes
            raise ProtocolError(E.UNAVAILABLE, "could not find a free arena code")
        # driven to its end by every process's beat, even once every page is closed
        await self.store.track(record.code, starts_at, self.clock.now_ms() - DRIVEN_MS)
        event(log, "arena.created", arena=record.code, minutes=record.minutes, draw=record.draw)
        await self.join(peer, msg=ArenaJoin(arena=record.code, name=msg.player_name))

    async def join(self, peer: Peer, msg: ArenaJoin) -> None:
        """Race in the arena: in its standing, waiting for a heat from its start."""
        identity = self.identities.require(peer)
        if peer.room is not None:
            raise ProtocolError(E.ALREADY_IN_ROOM, f"this connection is in room {peer.room}")
        record, _ = await self._load(msg.arena)
        if record.over:
            raise ProtocolError(E.WRONG_PHASE, "this arena is over")
        name = clean_name(msg.name)
        if not await self.store.enter(record.code, identity.id, name, identity.token_hash):
            raise ProtocolError(E.NOT_ALLOWED, "the host removed you from this arena")
        racer = Racer(record.code, identity.id, name)
        released = await self.heats.released(identity.id)
        held = None if released else await self.store.racer_heat(identity.id)
        if held is not None and not held.startswith(f"{record.code}/"):
            raise ProtocolError(
                E.ALREADY_IN_ROOM, "you are racing a heat of another arena: finish it first"
            )
        racing = held is not None or any(
            r is not None and r.racer == identity.id and r.heat
            for r in self.followers.get(record.code, {}).values()
        )
        self._follow(peer, record.code, racer)
        now = self.clock.now_ms()
        if not racing and self.heats.forming(record, max(now, record.starts_at)):
            await self.store.wait(record.code, identity.id, max(now, record.starts_at))
            await self.heats.waited(record.code)
        await self.page.send(record, {peer: racer}, self._removed)

    async def history(self, peer: Peer, msg: ArenaHistoryQuery) -> None:
        """This identity's places in the arenas it raced, newest first (``/me``)."""
        identity = self.identities.require(peer)
        kept = await self.store.results(identity.token_hash, msg.limit)
        arenas = [_result.decode(found) for found in kept]
        peer.send(frames.text(ArenaHistory(arenas=arenas)))

    async def watch(self, peer: Peer, msg: ArenaWatch) -> None:
        record, _ = await self._load(msg.arena)
        self._follow(peer, record.code, None)
        await self.page.send(record, {peer: None}, self._removed)

    async def settings(self, peer: Peer, msg: ArenaSettingsMsg) -> None:
        """The host sets the length or the draw mode, before the start."""

        def change(record: ArenaRecord) -> ArenaRecord:
            if self.clock.now_ms() >= record.starts_at:
                raise ProtocolError(E.WRONG_PHASE, "the arena has started: its settings stay")
            return msgspec.structs.replace(
                record,
                minutes=record.minutes if msg.minutes is None else msg.minutes,
                draw=record.draw if msg.draw is None else msg.draw,
            )

        await self._host_change(peer, change)

    async def end(self, peer: Peer, msg: ArenaEnd) -> None:
        """The host ends the arena now: no new heat; the heats running end now."""

        def change(record: ArenaRecord) -> ArenaRecord:
            if record.over or record.ended_at is not None:
                raise ProtocolError(E.WRONG_PHASE, "this arena has ended")
            return msgspec.structs.replace(record, ended_at=self.clock.now_ms())

        record = await self._host_change(peer, change)
        for heat in await self.store.running(record.code):
            await self.end_heat(heat.room, 1)
        event(log, "arena.ended", arena=record.code)

    async def remove(self, peer: Peer, msg: ArenaRemove) -> None:
        """The host removes a racer: off the standing, never in a heat again."""
        record = await self._host_record(peer)
        identity = self.identities.require(peer)
        if msg.racer == identity.id:
            raise ProtocolError(E.NOT_ALLOWED, "the host cannot remove themselves: leave instead")
        if not await self.store.entries(record.code, [msg.racer]):
            raise ProtocolError(E.UNKNOWN_PLAYER, "no such racer in this arena")
        await self.store.remove(record.code, msg.racer)
        event(log, "arena.removed", arena=record.code, racer=msg.racer)

    async def berserk(self, peer: Peer, msg: ArenaBerserk) -> None:
        """Before a heat's "Go": no undo in it, one point more on a podium."""
        session = self.rooms.session_of(peer)
        state = session.state
        if state.arena is None:
            raise ProtocolError(E.NOT_ALLOWED, "berserk is for an arena's heats")
        if peer.role != Role.PLAYER or peer.member_id is None:
            raise ProtocolError(E.NOT_PLAYER, "only a racer of the heat goes berserk")
        gathering = state.phase == Phase.LOBBY
        counting = state.phase == Phase.RACING and self.clock.now_ms() < (state.starts_at or 0)
        if not (gathering or counting):
            raise ProtocolError(E.WRONG_PHASE, "berserk is chosen before the heat's start")
        await self.store.berserk(state.arena, session.code, peer.member_id)
        self.no_undo.add((session.code, peer.member_id))
        peer.send(frames.text(ArenaBerserkOn(room=session.code)))

    async def check_action(self, peer: Peer, msg: object) -> None:
        """A berserk racer has no undo in their heat (chosen here, or on the
        connection of another process: then the store says so)."""
        if not isinstance(msg, Undo) or peer.room is None or peer.member_id is None:
            return
        berserk = (peer.room, peer.member_id) in self.no_undo
        session = self.rooms.get(peer.room)
        if not berserk and session is not None and session.state.arena is not None:
            heat = (peer.room, peer.member_id)
            berserk = heat[1] in await self.store.berserks(session.state.arena, heat[0])
        if berserk:
            raise ProtocolError(E.NOT_ALLOWED, "berserk: no undo in this heat")

    async def leave(self, peer: Peer, msg: ArenaLeave) -> None:
        code = self._unfollow(peer)
        if code is None:
            raise ProtocolError(E.NOT_ALLOWED, "this connection follows no arena")
        peer.send(frames.text(ArenaLeft(arena=code)))

    async def detach(self, peer: Peer) -> None:
        """A connection ended: it follows nothing; its racer waits no more."""
        self._unfollow(peer)

    # ------------------------------------------------------------ the end of a heat

    async def heat_over(self, code: str, heat: str, standings: list) -> dict[str, int] | None:
        self.no_undo = {(h, m) for h, m in self.no_undo if h != heat}
        return await self.heats.heat_over(code, heat, standings)

    # ------------------------------------------------------------ following

    def _follow(self, peer: Peer, code: str, racer: Racer | None) -> None:
        self._unfollow(peer, quiet=True)
        if code not in self.followers:
            self.rooms.spawn(self.signals.listen(code))
        self.followers.setdefault(code, {})[peer] = racer
        if not self.ticking:
            self.ticking = True
            self.clock.call_later(self.tick_s, self._tick)

    def _removed(self, peer: Peer) -> None:
        """A page whose racer the host removed follows the arena no more."""
        self._unfollow(peer, quiet=True)

    def _unfollow(self, peer: Peer, quiet: bool = False) -> str | None:
        for code, peers in list(self.followers.items()):
            if peer in peers:
                racer = peers.pop(peer)
                if racer is not None:
                    racer.gone = True
                if not peers:
                    del self.followers[code]
                    self.sent.pop(code, None)
                    self.records.pop(code, None)
                    self.rooms.spawn(self.signals.stop_listening(code))
                others = [
                    r
                    for r in peers.values()
                    if r is not None and racer is not None and r.racer == racer.racer
                ]
                if racer is not None and not others and not quiet:
                    self.rooms.spawn(self.store.unwait(code, racer.racer))
                return code
        return None

    def _tick(self) -> None:
        if not self.followers:
            self.ticking = False
            return
        self.rooms.spawn(self._tick_all())

    async def _tick_all(self) -> None:
        try:
            for code in list(self.followers):
                try:
                    await self._tick_one(code)
                except self.rooms.storage_errors as exc:
                    log.warning("arena %s: tick skipped: %s", code, exc)
                except Exception:
                    log.exception("arena %s: tick failed", code)
        finally:
            self.clock.call_later(self.tick_s, self._tick)

    async def _tick_one(self, code: str) -> None:
        found = await self.store.load(code)
        peers = self.followers.get(code, {})
        if found is None:
            for peer in list(peers):
                self._unfollow(peer, quiet=True)
                peer.send(frames.text(ArenaLeft(arena=code, by="gone")))
            return
        record, _ = found
        self.records[code] = record
        racers = {p: r for p, r in peers.items() if r is not None}
        await self.heats.tick(record, racers)
        version = await self.store.version(code)
        key = (version, self.page.status(record))
        if self.sent.get(code) != key:
            await self.page.send(record, dict(self.followers.get(code, {})), self._removed)
            self.sent[code] = key

    # ------------------------------------------------------------ without a tick

    def on_event(self, channel: str, payload: bytes) -> None:
        """A signal on an arena's channel of the room bus (``a:CODE``)."""
        self.signals.on_event(channel, payload)

    def acted(self, peer: Peer) -> None:
        """After a board action in a heat: the racer waits again now if it ended
        their race (``HeatRunner.acted``)."""
        session = self.rooms.get(peer.room or "")
        code = session.state.arena if session is not None else None
        racer = self.followers.get(code or "", {}).get(peer)
        if code in self.records and racer is not None:
            self.heats.acted(peer, racer, self.records[code])

    def _formed(self, code: str, formed: Formed) -> None:
        """A heat formed: its racers here sit down now (one page each)."""
        wanted = set(formed.racers)
        for peer, racer in self.followers.get(code, {}).items():
            if racer is not None and racer.racer in wanted:
                wanted.discard(racer.racer)
                self.heats.seat_now(peer, racer, formed.heat)

    # ------------------------------------------------------------ public arenas

    async def public_list(self) -> PublicArenaList:
        """``GET /api/arenas``: the public arenas running now, then the next ones."""
        listed = []
        for record in await self.public.listed():
            _, racers = await self.store.standing(record.code, 1)
            info = self.page.info(record)
            listed.append(ArenaListed(**msgspec.structs.asdict(info), racers=racers))
        return PublicArenaList(arenas=listed, server_time=self.clock.now_ms())

    # ------------------------------------------------------------ the host

    async def _load(self, code: str) -> tuple[ArenaRecord, int]:
        if not re.fullmatch(ARENA_CODE, code):
            raise ProtocolError(E.BAD_MESSAGE, "not an arena code: 8 letters and digits")
        found = await self.store.load(code.upper())
        if found is None:
            raise ProtocolError(E.UNKNOWN_ROOM, "no such arena (or it is long over)")
        return found

    async def _host_record(self, peer: Peer) -> ArenaRecord:
        identity = self.identities.require(peer)
        code = next((c for c, peers in self.followers.items() if peer in peers), None)
        if code is None:
            raise ProtocolError(E.NOT_ALLOWED, "this connection follows no arena")
        record, _ = await self._load(code)
        if record.public or record.host != identity.id:
            raise ProtocolError(E.NOT_HOST, "only the arena's host can do that")
        return record

    async def _host_change(
        self, peer: Peer, change: Callable[[ArenaRecord], ArenaRecord]
    ) -> ArenaRecord:
        record = await self._host_record(peer)
        for _ in range(SAVE_ATTEMPTS):
            record, ver = await self._load(record.code)
            new = change(record)
            if await self.store.save(new, ver) is not None:
                return new
        raise ProtocolError(E.UNAVAILABLE, "the arena is too busy; try again")
