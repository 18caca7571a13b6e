"""Each finished racer's integrity assessment: its signals computed and kept in
the review queue, flagged when the rule says so (``room.integrity.flag``).

Started once a race's results are written (a room or public race:
``Results``; a daily race: ``DailyRaces``), in a task of its own, so the
results never wait on it; the solver's part runs in the race's fair turn
(``SignalService``). Every finished racer's assessment is recorded
(``IntegrityStore.record``): the flagged ones open a case for the operator.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import msgspec
from canfield import DealCode
from canfield_protocol import Finished, RoomState, Row

from canfield_server.ops.clock import Clock
from canfield_server.ops.config import Settings
from canfield_server.room.integrity import Signals, Thresholds, flag
from canfield_server.room.ports import (
    IdentityStore,
    IntegrityStore,
    ReviewCase,
    SignalService,
    daily_result,
    room_result,
)
from canfield_server.room.registry import Rooms
from canfield_server.room.stamps import stamped

__all__ = ["Assessments", "thresholds"]

log = logging.getLogger(__name__)


def thresholds(settings: Settings) -> Thresholds:
    """The flag rule's limits as configured (CANFIELD_FLAG_*)."""
    return Thresholds(
        agreement=settings.flag_agreement,
        min_checked=settings.flag_min_checked,
        net_over_par=settings.flag_net_over_par,
    )


def _draw(deal: str) -> int:
    try:
        return DealCode.parse(deal).draw
    except ValueError:
        return 3


class Assessments:
    """Finished racers judged off the move path and recorded for review."""

    def __init__(
        self,
        rooms: Rooms,
        integrity: IntegrityStore | None,
        identities: IdentityStore | None,
        signals: SignalService | None,
        settings: Settings,
        clock: Clock,
    ) -> None:
        self.rooms = rooms
        self.integrity = integrity
        self.identities = identities
        self.signals = signals
        self.limits = thresholds(settings)
        self.clock = clock

    @property
    def enabled(self) -> bool:
        return self.integrity is not None and self.signals is not None

    def room_finished(self, state: RoomState, finished: Finished) -> None:
        """A room or public race's results were written: judge each racer, later."""
        if self.enabled and finished.deal:
            self.rooms.spawn(self._room(state, finished))

    def daily_finished(
        self,
        date: str,
        draw: int,
        deal: str,
        public_id: str,
        token_hash: str,
        name: str,
        read_log: Callable[[], Awaitable[list[str]]],
    ) -> None:
        """A daily race's result was written: judge it, later (its log read then)."""
        if self.enabled:
            self.rooms.spawn(self._daily(date, draw, deal, public_id, token_hash, name, read_log))

    async def _daily(
        self,
        date: str,
        draw: int,
        deal: str,
        public_id: str,
        token_hash: str,
        name: str,
        read_log: Callable[[], Awaitable[list[str]]],
    ) -> None:
        result = daily_result(date, draw, public_id)
        try:
            entries = await read_log()
            network = (
                await self.identities.identity_network(token_hash) if self.identities else None
            )
        except Exception:  # noqa: BLE001 - an assessment is never worth the server
            log.exception("daily result %s not read for its signals", result)
            return
        case = ReviewCase(
            result=result,
            kind="daily",
            at=0,
            draw=draw,
            date=date,
            identity=token_hash,
            public_id=public_id,
            member_id=public_id,
            name=name,
            replay=f"/replay/{result}",
            network=network,
            signals=_EMPTY,
        )
        await self._judge(f"daily:{date}", deal, entries, None, case)

    async def _room(self, state: RoomState, finished: Finished) -> None:
        try:
            owners = await self.identities.room_identities(state.room) if self.identities else {}
        except Exception:  # noqa: BLE001 - the racers are judged without their identity
            log.exception("identities of %s not read for its signals", state.room)
            owners = {}
        times = finished.replay_times or {}
        for row in finished.standings:
            case = await self._room_case(state, finished, row, owners.get(row.id))
            entries = stamped(finished.replays.get(row.id, []), times.get(row.id))
            await self._judge(state.room, finished.deal, entries, finished.par, case)

    async def _room_case(
        self, state: RoomState, finished: Finished, row: Row, token_hash: str | None
    ) -> ReviewCase:
        public_id = network = None
        if token_hash is not None and self.identities is not None:
            try:
                known = await self.identities.identity(token_hash)
                public_id = known[0] if known else None
                network = await self.identities.identity_network(token_hash)
            except Exception:  # noqa: BLE001 - judged all the same
                log.exception("identity of a racer of %s not read", state.room)
        return ReviewCase(
            result=room_result(state.room, state.race, row.id),
            kind="public" if state.public else "room",
            at=0,
            draw=_draw(finished.deal),
            room=state.room,
            race_no=state.race,
            identity=token_hash,
            public_id=public_id,
            member_id=row.id,
            name=row.name,
            replay=finished.replay,
            network=network,
            signals=_EMPTY,
        )

    async def _judge(
        self, owner: str, deal: str, log_entries: list[str], par: int | None, case: ReviewCase
    ) -> None:
        """Compute one racer's signals, flag them, record the case (once)."""
        assert self.signals is not None and self.integrity is not None
        try:
            found = await self.signals.assess(owner, deal, log_entries, par)
            if found is None:
                return
            reasons = flag(found, self.limits)
            at = self.clock.now_ms()
            await self.integrity.record(
                msgspec.structs.replace(case, at=at, signals=found, reasons=reasons)
            )
            if reasons:
                log.info("result %s flagged for review: %s", case.result, "; ".join(reasons))
        except Exception:  # noqa: BLE001 - an assessment is never worth the server
            log.exception("signals of result %s not recorded", case.result)


#: a case's signals before they are computed
_EMPTY = Signals(
    actions=0,
    moves_per_s=0.0,
    think_ms=[],
    think_median_ms=0,
    think_spread=0.0,
    decision_think_ms=None,
    forced_think_ms=None,
    over_par=None,
    solver_agreement=None,
)
