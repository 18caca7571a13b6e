"""The host's controls and the lobby: settings, ready, start, rematch, bots."""

from __future__ import annotations

from canfield_protocol import (
    AddBot,
    EndRace,
    Phase,
    ProtocolError,
    Ready,
    Rematch,
    SettingsMsg,
    Start,
)
from canfield_protocol import ErrorCode as E

from canfield_server.ops.clock import now_ms
from canfield_server.room import rules
from canfield_server.room.ports import BotLauncher, Peer, Proven, SolverService
from canfield_server.room.registry import Rooms
from canfield_server.room.results import Results
from canfield_server.room.seating import session_of

__all__ = ["Lobby"]


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
        self.countdown_s = rooms.settings.countdown_s

    async def settings(self, peer: Peer, msg: SettingsMsg) -> None:
        session = session_of(self.rooms, peer)
        member_id = peer.member_id or ""
        await self.rooms.mutate(session.code, lambda s: rules.update_settings(s, member_id, msg))

    async def ready(self, peer: Peer, msg: Ready) -> None:
        session = session_of(self.rooms, peer)
        member_id = peer.member_id or ""
        await self.rooms.mutate(session.code, lambda s: rules.set_ready(s, member_id, msg.ready))

    async def start(self, peer: Peer, msg: Start) -> None:
        session = session_of(self.rooms, peer)
        member_id = peer.member_id or ""
        state, proven = session.state, None
        if (
            self.solver is not None
            and state.settings.winnable_only
            and state.settings.deal == "random"
            and state.host_id == member_id
            and state.phase == Phase.LOBBY
        ):
            proven = await self.solver.take(state.settings.draw)
        code = proven.code if proven else None
        try:
            await self.rooms.mutate(
                session.code,
                lambda s: rules.start_race(
                    s, member_id, now_ms(), self.countdown_s, code, force=msg.force
                ),
                new_race=True,
            )
        except ProtocolError:
            await self._put_back(state.settings.draw, proven)
            raise
        if self.solver is not None and proven is None and session.deal:
            self.solver.solve_par(session.deal)  # usually ready by the end of the race

    async def _put_back(self, draw: int, proven: Proven | None) -> None:
        if proven is not None and self.solver is not None:
            await self.solver.put_back(draw, proven)

    async def end_race(self, peer: Peer, msg: EndRace) -> None:
        """The host ends the race now: results so far, by the usual ranking."""
        session = session_of(self.rooms, peer)
        rules.check_end_race(session.state, peer.member_id or "")
        await self.results.end(session.code, session.state.race)

    async def rematch(self, peer: Peer, msg: Rematch) -> None:
        session = session_of(self.rooms, peer)
        member_id = peer.member_id or ""
        await self.rooms.mutate(session.code, lambda s: rules.rematch(s, member_id), new_race=True)

    async def add_bot(self, peer: Peer, msg: AddBot) -> None:
        session = session_of(self.rooms, peer)
        if session.state.host_id != peer.member_id:
            raise ProtocolError(E.NOT_HOST, "only the host can add bots")
        if session.state.phase != Phase.LOBBY:
            raise ProtocolError(E.WRONG_PHASE, "bots join in the lobby")
        if self.bots is None:
            raise ProtocolError(E.UNAVAILABLE, "bots are not installed on this server")
        taken = {rules.name_key(m.name) for m in session.state.members} | {
            rules.name_key(n) for n in session.bot_names
        }
        name = next(f"Bot {i}" for i in range(1, 1000) if rules.name_key(f"Bot {i}") not in taken)
        options = {"pace_s": msg.pace_s, "strength": msg.strength}
        try:
            run = self.bots(
                session.code, name, **{k: v for k, v in options.items() if v is not None}
            )
        except (TypeError, ValueError) as exc:
            raise ProtocolError(E.BAD_MESSAGE, f"add_bot: {exc}") from None
        session.bot_names.add(name)
        self.rooms.spawn(run)
