"""Each finished racer's integrity assessment: its signals computed and kept in
the review queue, flagged when the rule says so (``room.integrity.flag``).

Started once a race's results are written (a room or public race:
``Results``; a daily race: ``DailyRaces``), in a task of its own, so the
results never wait on it; the solver's part runs in the race's fair turn
(``SignalService``). Every finished racer's assessment is recorded
(``IntegrityStore.record``): the flagged ones open a case for the operator.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import NamedTuple

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

__all__ = ["Assessments", "DailyResult", "thresholds"]

log = logging.getLogger(__name__)


def thresholds(settings: Settings) -> Thresholds:
    """The flag rule's limits as configured (CANFIELD_FLAG_*)."""
    return Thresholds(
        agreement=settings.flag_agreement,
        min_checked=settings.flag_min_checked,
        net_over_par=settings.flag_net_over_par,
    )


class DailyResult(NamedTuple):
    """One finished daily result, as its assessment needs it."""

    date: str
    draw: int
    deal: str
    public_id: str
    token_hash: str
    name: str


class _Racer(NamedTuple):
    token_hash: str
    public_id: str | None
    network: str | None


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
        #: told of each result flagged (once): an arena heat's points held off its
        #: standing while under review (``room.arena_results``)
        self.on_flagged: Callable[[ReviewCase], Awaitable[None]] | None = None

    @property
    def enabled(self) -> bool:
        return self.integrity is not None and self.signals is not None

    def room_finished(self, state: RoomState, finished: Finished) -> None:
        """A room or public race's results were written: judge each racer, later."""
        if self.enabled and finished.deal:
            self.rooms.spawn(self._room(state, finished))

    def daily_finished(
        self,
        daily: DailyResult,
        network: str | None,
        read_log: Callable[[], Awaitable[list[str]]],
        read_first: Callable[[str], Awaitable[str | None]],
    ) -> None:
        """A daily race's result was written: judge it, later (its log read then).
        ``network``: the one it was started from (None: no network);
        ``read_first``: who first started that day's daily from a network."""
        if self.enabled:
            self.rooms.spawn(self._daily(daily, network, read_log, read_first))

    async def _daily(
        self,
        daily: DailyResult,
        network: str | None,
        read_log: Callable[[], Awaitable[list[str]]],
        read_first: Callable[[str], Awaitable[str | None]],
    ) -> None:
        result = daily_result(daily.date, daily.draw, daily.public_id)
        shares: list[str] = []
        try:
            entries = await read_log()
            if network is None and self.identities is not None:
                network = await self.identities.identity_network(daily.token_hash)
            first = await read_first(network) if network else None
            if first is not None and first != daily.public_id:
                shares = [first]
        except Exception:  # noqa: BLE001 - an assessment is never worth the server
            log.exception("daily result %s not read for its signals", result)
            return
        case = ReviewCase(
            result=result,
            kind="daily",
            at=0,
            draw=daily.draw,
            date=daily.date,
            identity=daily.token_hash,
            public_id=daily.public_id,
            member_id=daily.public_id,
            name=daily.name,
            replay=f"/replay/{result}",
            network=network,
            shares=shares,
            signals=_EMPTY,
        )
        await self._judge(f"daily:{daily.date}", daily.deal, entries, None, case)

    async def _room(self, state: RoomState, finished: Finished) -> None:
        racers = await self._racers(state)
        times = finished.replay_times or {}
        for row in finished.standings:
            case = self._room_case(state, finished, row, racers)
            entries = stamped(finished.replays.get(row.id, []), times.get(row.id))
            await self._judge(state.room, finished.deal, entries, finished.par, case)

    async def _racers(self, state: RoomState) -> dict[str, _Racer]:
        """Each identified racer of the room: member id -> who and from where (the
        seat's network, else the one their identity was issued to)."""
        if self.identities is None:
            return {}
        identities = self.identities
        try:
            owners = await identities.room_identities(state.room)
            seats = await identities.room_networks(state.room)

            async def racer(member: str, token_hash: str) -> tuple[str, _Racer]:
                known = await identities.identity(token_hash)
                network = seats.get(member) or await identities.identity_network(token_hash)
                return member, _Racer(token_hash, known[0] if known else None, network)

            found = await asyncio.gather(*(racer(m, t) for m, t in owners.items()))
        except Exception:  # noqa: BLE001 - the racers are judged without their identity
            log.exception("identities of %s not read for its signals", state.room)
            return {}
        return dict(found)

    def _room_case(
        self, state: RoomState, finished: Finished, row: Row, racers: dict[str, _Racer]
    ) -> ReviewCase:
        me = racers.get(row.id)
        network = me.network if me else None
        # the other identities that raced it from the same network
        shares = sorted(
            {
                other.public_id
                for member, other in racers.items()
                if member != row.id and network and other.network == network and other.public_id
            }
        )
        return ReviewCase(
            result=room_result(state.room, state.race, row.id),
            kind="public" if state.public else "room",
            at=0,
            draw=_draw(finished.deal),
            room=state.room,
            race_no=state.race,
            arena=state.arena,
            identity=me.token_hash if me else None,
            public_id=me.public_id if me else None,
            member_id=row.id,
            name=row.name,
            replay=finished.replay,
            network=network,
            shares=shares,
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
            judged = msgspec.structs.replace(case, at=at, signals=found, reasons=reasons)
            recorded = await self.integrity.record(judged)
            if reasons:
                log.info("result %s flagged for review: %s", case.result, "; ".join(reasons))
            if recorded and reasons and self.on_flagged is not None:
                await self.on_flagged(judged)
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
