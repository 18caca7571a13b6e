"""The end of a race: declared once (however many processes try), then its results.

A race ends when its last racer is done (the move script says so), when
its time runs out (``time_up``) or when it is found ended without
results after a crash. The results (standings, the deal, every replay,
par) are written once, in the same compare-and-set that finishes the
room, and reach every connection through the room's session.

A public race's standings carry each racer's new rating: the ratings are
computed before the compare-and-set (again on each retry, nothing stored),
and stored only after it succeeded, by the one process that claims the
race, before anyone is told (``RatePublicRace``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, NamedTuple

import msgspec
from canfield_protocol import (
    Finished,
    MemberStatus,
    RatedRow,
    RoomState,
    Row,
    encode,
    rated_row,
)

from canfield_server.room import rules
from canfield_server.room.identity import new_replay_id
from canfield_server.room.leaderboard import ranked
from canfield_server.room.ports import RoomSave, SolverService, StoredRow
from canfield_server.room.race import PlayerRace
from canfield_server.room.registry import Rooms, compare_and_set
from canfield_server.room.stamps import split_log

__all__ = ["OnFinished", "OnPublicFinished", "PlannedRatings", "RatePublicRace", "Results"]

log = logging.getLogger(__name__)

#: tries to write a finished race's results while storage is unreachable (about 25 s)
OUTAGE_TRIES = 8
#: compare-and-set attempts of the results against other changes of the room
SAVE_ATTEMPTS = 16


def _close_open_rows(rows: dict[str, StoredRow], state: RoomState, now: int) -> None:
    """Racers still playing at the end are ``timed_out`` (the time limit hit) or
    ``stopped`` (the host ended the race), and their time is the race's length
    then (not that of their last move)."""
    if state.starts_at is None:
        return
    timed_out = state.ends_at is not None and now >= state.ends_at
    end = state.ends_at if timed_out and state.ends_at is not None else now
    status = MemberStatus.TIMED_OUT if timed_out else MemberStatus.STOPPED
    for member_id, row in rows.items():
        if row.status == MemberStatus.PLAYING:
            rows[member_id] = msgspec.structs.replace(
                row, status=status, time_ms=max(0, end - state.starts_at)
            )


def _measured_to_the_end(rows: dict[str, StoredRow], rtt_of: Callable[[str], int | None]) -> None:
    """A racer still playing has the round trip measured until the end where it
    was measured (this process); a racer done has the one their last action
    stored, the median of their race."""
    for member_id, row in rows.items():
        ms = rtt_of(member_id) if row.status == MemberStatus.PLAYING else None
        if ms is not None and ms != row.rtt_ms:
            rows[member_id] = msgspec.structs.replace(row, rtt_ms=ms)


#: told once when a race's results are written (history and replays)
OnFinished = Callable[[RoomState, Finished], Coroutine[Any, Any, None]]
#: told once when a public race's results are written: the room as it raced, and
#: its full finishing order (``QuickRaces.race_over``: live races, ratings)
OnPublicFinished = Callable[[RoomState, Sequence[Row]], Coroutine[Any, Any, None]]


class PlannedRatings(NamedTuple):
    """A public race's ratings, computed before its results are written."""

    #: the standings to send, rated racers' rows with their new rating
    standings: list[RatedRow]
    #: stores the ratings once the results are written: True for the one caller
    #: that claimed the race (a retry, or another process, stores nothing)
    keep: Callable[[], Coroutine[Any, Any, bool]]


#: rates a public race from the room as it raced and its standings (storing nothing)
RatePublicRace = Callable[[RoomState, list[Row]], Coroutine[Any, Any, PlannedRatings]]


class Results:
    def __init__(
        self,
        rooms: Rooms,
        solver: SolverService | None,
        on_finished: OnFinished | None = None,
        on_public_finished: OnPublicFinished | None = None,
        rate_public: RatePublicRace | None = None,
        on_assess: Callable[[RoomState, Finished], None] | None = None,
    ) -> None:
        self.rooms = rooms
        self.store = rooms.store
        self.clock = rooms.clock
        self.solver = solver
        self.on_finished = on_finished
        self.on_public_finished = on_public_finished
        self.rate_public = rate_public
        #: told once the results are written; starts each racer's integrity
        #: assessment in a task of its own (``room.assess``), never waited for
        self.on_assess = on_assess

    async def end(self, code: str, race_no: int) -> None:
        """End a race now (its time ran out, or the host ended it): once, whichever
        process gets there first."""
        try:
            if await self.store.finish(code, race_no):
                await self.finalize(code, race_no)
        except self.rooms.storage_errors as exc:
            log.warning("end of the race in %s not applied: %s", code, exc)

    async def finalize(self, code: str, race_no: int) -> None:
        """Write and announce the results of a finished race, once; retried while
        storage is unreachable (the race is over in Redis already, the results must
        follow)."""
        for attempt in range(OUTAGE_TRIES):
            try:
                await self._write(code, race_no)
                return
            except self.rooms.storage_errors as exc:
                log.warning("results of %s not written yet: %s", code, exc)
                await self.clock.sleep(min(0.2 * 2**attempt, 5.0))  # back off: Redis is down

    async def _public_finished(self, state: RoomState, standings: Sequence[Row]) -> None:
        """Once per public race, after its results are saved and sent; a failure
        there is logged, never retried (the results stand)."""
        assert self.on_public_finished is not None
        try:
            await self.on_public_finished(state, standings)
        except Exception:
            log.exception("the end of public race %s not recorded", state.room)

    async def _rated(self, state: RoomState, standings: list[Row]) -> PlannedRatings | None:
        """A public race's standings with ratings; unrated if rating fails for a
        reason other than storage (the results must not wait on a bug)."""
        unrated_heat = state.arena is not None and not state.rated
        if not state.public or unrated_heat or self.rate_public is None:
            return None  # rooms, and a private arena's heats, are unrated
        try:
            return await self.rate_public(state, standings)
        except self.rooms.storage_errors:
            raise  # retried with the results
        except Exception:
            log.exception("public race %s not rated", state.room)
            return None

    async def _keep_ratings(self, code: str, planned: PlannedRatings) -> None:
        try:
            await planned.keep()
        except Exception:
            log.exception("ratings of public race %s not stored", code)

    async def _write(self, code: str, race_no: int) -> None:
        async def attempt(n: int) -> bool | None:
            """True when written (or nothing to write), None when the room changed first."""
            record = await self.store.load_room(code)
            if record is None or record.state.race != race_no or record.final:
                return True
            rows = await self.store.rows(code)
            # a racer who left mid-race has a row (their give up) but no seat
            racers = list(dict.fromkeys([*rows, *(m.id for m in rules.players(record.state))]))
            deal = record.deal or ""
            session = self.rooms.get(code)
            for m in rules.players(record.state):
                if m.id not in rows:
                    rows[m.id] = PlayerRace.fresh(deal).row(m.id, m.name)
            if session is not None:
                _measured_to_the_end(rows, session.rtt_of)
            _close_open_rows(rows, record.state, self.clock.now_ms())
            standings = ranked(rows.values())
            planned = await self._rated(record.state, standings)
            logs = {
                pid: split_log(log) for pid, log in (await self.store.logs(code, racers)).items()
            }
            finished = Finished(
                standings=planned.standings
                if planned is not None
                else [rated_row(r) for r in standings],
                deal=deal,
                replays={pid: texts for pid, (texts, _) in logs.items()},
                par=await self.solver.par(deal, code) if self.solver and deal else None,
                server_time=self.clock.now_ms(),
                replay=f"/replay/{new_replay_id()}" if self.on_finished is not None else None,
                replay_times={pid: times for pid, (_, times) in logs.items() if times is not None},
            )
            final = encode(finished)
            state = rules.finish_race(record.state, finished.standings)
            ver = await self.store.save_room(RoomSave(record.ver, state, final=final))
            if ver is None:
                return None
            if planned is not None:  # stored before anyone sees the new numbers
                await self._keep_ratings(code, planned)
            if self.on_finished is not None:
                # the replay is kept before this process tells anyone its link
                await self.on_finished(record.state, finished)
            session = self.rooms.get(code)
            if session is not None:
                session.adopt(ver, state, None, final)
            if record.state.public and self.on_public_finished is not None:
                await self._public_finished(record.state, finished.standings)
            if self.on_assess is not None:
                self.on_assess(record.state, finished)
            return True

        if await compare_and_set(SAVE_ATTEMPTS, attempt) is None:
            log.warning("results of %s not written: the room kept changing", code)
