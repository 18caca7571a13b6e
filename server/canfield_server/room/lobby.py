"""The host's controls and the lobby: settings, ready, start, rematch, bots."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from itertools import count
from typing import Any

from canfield_protocol import (
    RANDOM_DEAL,
    AddBot,
    BotFailed,
    Cap,
    EndRace,
    Phase,
    ProtocolError,
    RaceAgain,
    Ready,
    Rematch,
    SettingsMsg,
    Start,
)
from canfield_protocol import ErrorCode as E

from canfield_server.ops.logs import event
from canfield_server.room import frames, rules
from canfield_server.room.ports import BotLauncher, Peer, Proven, SolverService
from canfield_server.room.registry import Rooms
from canfield_server.room.results import Results
from canfield_server.room.session import RoomSession

__all__ = ["Lobby"]

log = logging.getLogger(__name__)


class Lobby:
    def __init__(
        self,
        rooms: Rooms,
        results: Results,
        solver: SolverService | None,
        bots: BotLauncher | None,
    ) -> None:
        self.rooms = rooms
        self.results = results
        self.solver = solver
        self.bots = bots
        #: the bots this process runs (``max_bots`` at most)
        self.running: set[asyncio.Task[Any]] = set()
        self.countdown_s = rooms.settings.countdown_s
        self.proven_wait_s = rooms.settings.proven_deal_wait_s

    async def settings(self, peer: Peer, msg: SettingsMsg) -> None:
        session = self.rooms.session_of(peer)
        member_id = peer.member_id or ""
        await self.rooms.mutate(session.code, lambda s: rules.update_settings(s, member_id, msg))

    async def ready(self, peer: Peer, msg: Ready) -> None:
        session = self.rooms.session_of(peer)
        member_id = peer.member_id or ""
        await self.rooms.mutate(session.code, lambda s: rules.set_ready(s, member_id, msg.ready))

    async def start(self, peer: Peer, msg: Start) -> None:
        await self._start(self.rooms.session_of(peer), peer.member_id or "", msg.force)

    async def start_as_server(self, session: RoomSession) -> None:
        """A public race has gathered its racers: the server starts it (no host)."""
        await self._start(session, rules.NO_HOST, force=True)

    async def start_for(self, session: RoomSession, host_id: str) -> None:
        """A room the server made for its host starts at once (a ghost race)."""
        await self._start(session, host_id, force=True)

    async def _start(self, session: RoomSession, member_id: str, force: bool) -> None:
        state, proven = session.state, None
        if (
            self.solver is not None
            and state.settings.winnable_only
            and state.settings.deal == RANDOM_DEAL
            and state.host_id == member_id
            and state.phase == Phase.LOBBY
        ):
            try:
                async with asyncio.timeout(self.proven_wait_s):
                    proven = await self.solver.take(state.settings.draw, session.code)
            except (TimeoutError, ProtocolError) as exc:  # none in time: race on any deal
                if isinstance(exc, ProtocolError) and exc.code != E.UNAVAILABLE:
                    raise
                log.warning("room %s starts on an unproven deal: %s", session.code, exc or "slow")
        code = proven.code if proven else None
        try:
            await self.rooms.mutate(
                session.code,
                lambda s: rules.start_race(
                    s, member_id, self.rooms.clock.now_ms(), self.countdown_s, code, force=force
                ),
                new_race=True,
            )
        except ProtocolError:
            await self._put_back(state.settings.draw, proven)
            raise
        if self.solver is not None and proven is None and session.deal:
            self.solver.solve_par(session.deal, session.code)  # usually ready by the end

    async def _put_back(self, draw: int, proven: Proven | None) -> None:
        if proven is not None and self.solver is not None:
            await self.solver.put_back(draw, proven)

    async def end_race(self, peer: Peer, msg: EndRace) -> None:
        """The host ends the race now: results so far, by the usual ranking."""
        session = self.rooms.session_of(peer)
        rules.check_end_race(session.state, peer.member_id or "")
        await self.results.end(session.code, session.state.race)

    async def race_again(self, peer: Peer, msg: RaceAgain) -> None:
        """A racer asks for the next race; the last of them to ask starts it (the
        usual countdown, a new deal), with no lobby and no ready step."""
        session = self.rooms.session_of(peer)
        member_id = peer.member_id or ""
        state = await self.rooms.mutate(session.code, lambda s: rules.race_again(s, member_id))
        if not rules.everyone_again(state):
            return
        try:
            state = await self.rooms.mutate(
                session.code, lambda s: rules.rematch(s, s.host_id), new_race=True
            )
            await self._start(session, state.host_id, force=True)
        except ProtocolError as exc:  # another process (or the host) went first
            log.info("race again in %s: %s", session.code, exc)

    async def rematch(self, peer: Peer, msg: Rematch) -> None:
        session = self.rooms.session_of(peer)
        member_id = peer.member_id or ""
        await self.rooms.mutate(session.code, lambda s: rules.rematch(s, member_id), new_race=True)

    async def add_bot(self, peer: Peer, msg: AddBot) -> None:
        """The host adds a bot: bounded per room and per server, paced like a person."""
        session = self.rooms.session_of(peer)
        state = session.state
        rules.check_public_host(state, peer.member_id or "", "add bots")
        if state.host_id != peer.member_id:
            raise ProtocolError(E.NOT_HOST, "only the host can add bots")
        if state.phase != Phase.LOBBY:
            raise ProtocolError(E.WRONG_PHASE, "bots join in the lobby")
        if self.bots is None:
            raise ProtocolError(E.UNAVAILABLE, "bots are not installed on this server")
        settings = self.rooms.settings
        in_room = sum(m.bot for m in state.members) + len(session.bot_names)
        if in_room >= settings.max_bots_per_room:
            raise ProtocolError(
                E.ROOM_FULL,
                f"this room has {settings.max_bots_per_room} bots, the most it takes",
                params={"cap": Cap.BOTS, "limit": settings.max_bots_per_room},
            )
        seated = len(rules.players(state)) + sum(m.waiting for m in state.members)
        if seated + len(session.bot_names) >= settings.max_players_per_room:
            raise ProtocolError(
                E.ROOM_FULL,
                f"the room has {settings.max_players_per_room} players, the most it takes",
                params={"cap": Cap.PLAYERS, "limit": settings.max_players_per_room},
            )
        if len(self.running) >= settings.max_bots:
            raise ProtocolError(E.UNAVAILABLE, "this server runs all the bots it can; try later")
        pace_s = settings.bot_pace_s if msg.pace_s is None else msg.pace_s
        if not settings.bot_pace_s <= pace_s <= 60:
            raise ProtocolError(
                E.BAD_MESSAGE, f"add_bot: pace_s must be {settings.bot_pace_s} to 60 seconds"
            )
        taken = {rules.name_key(m.name) for m in state.members} | {
            rules.name_key(n) for n in session.bot_names
        }
        name = next(n for i in count(1) if rules.name_key(n := f"Bot {i}") not in taken)
        options: dict[str, Any] = {"pace_s": pace_s}
        if msg.strength is not None:
            options["strength"] = msg.strength
        try:
            run = self.bots(session.code, name, **options)
        except (TypeError, ValueError) as exc:
            # the bot's own words, cut short: they may quote what the host sent
            raise ProtocolError(E.BAD_MESSAGE, f"add_bot: {str(exc)[:120]}") from None
        session.bot_names.add(name)
        self.rooms.spawn(self._run_bot(session, name, run))

    async def _run_bot(
        self, session: RoomSession, name: str, run: Coroutine[Any, Any, object]
    ) -> None:
        """One bot's life; its end, however it comes, is one log line."""
        task = asyncio.current_task()
        assert task is not None
        self.running.add(task)
        try:
            await run
        except Exception as exc:  # noqa: BLE001 - a bot's failure is its own
            event(
                log,
                "bot.ended",
                logging.WARNING,
                exc_info=exc,
                room=session.code,
                bot=name,
                error=str(exc),
            )
            if name in session.bot_names:  # it never took its seat: the host hears why
                code = str(getattr(exc, "code", "") or E.UNAVAILABLE)  # a refusal's code
                told = BotFailed(
                    name=name, code=code, message=f"{name} could not join the room ({code})"
                )
                for peer in session.peers:
                    if peer.member_id == session.state.host_id:
                        peer.send(frames.text(told))
        finally:
            self.running.discard(task)
            session.bot_names.discard(name)
