"""The daily race's standing and replays: what anyone may read of a day's race.

``DailyRaces`` (``daily.py``, built on this class) plays it; this reads it
back: the standing of a day and draw mode (ranked by ``standing_score``, the
unranked and those under review set apart), and a player's replay once the
day is over. The deal code and the replays are shown only then.
"""

from __future__ import annotations

import msgspec
from canfield_protocol import (
    DailyReplay,
    DailyStanding,
    DailyStandingQuery,
    MemberStatus,
    ProtocolError,
    ReplayPlayer,
    Row,
)
from canfield_protocol import ErrorCode as E

from canfield_server.ops.clock import Clock, is_date, today
from canfield_server.ops.config import Settings
from canfield_server.room import frames
from canfield_server.room.identity import Identities
from canfield_server.room.leaderboard import ranked, wire_row
from canfield_server.room.ports import (
    REVIEW_CONFIRMED,
    REVIEW_OPEN,
    DailyDeals,
    DailyStore,
    Peer,
    StoredRow,
)
from canfield_server.room.race import replay
from canfield_server.room.review import Reviews
from canfield_server.room.stamps import split_log

__all__ = ["DailyStandings", "standing_score", "replay_id", "HELD_OFFSET"]


#: times in the score are capped here (115 days: far past any day's race)
_MS_CAP = 10**10 - 1
#: added to the score of an attempt shown unranked: below every ranked one (the
#: sum stays an exact integer below 2**53)
HELD_OFFSET = float(10**12)


def standing_score(row: StoredRow) -> float:
    """``rank_key`` as one sorted-set score (ties: the member, as ``rank_key``'s id):
    a win by its time, below every game not won; those by cards on foundations,
    then by when that count was reached. Exact integers below 2**53."""
    at = min(max(row.at, 0), _MS_CAP)
    if row.status == MemberStatus.WON:
        return float(at)
    return float((53 - row.on_foundations) * 10**10 + at)


def replay_id(date: str, draw: int, player: str) -> str:
    return f"d-{date}-{draw}-{player}"


class DailyStandings:
    """A day's standing and its replays, read from the daily store (the base of
    ``DailyRaces``, which the hub routes both reads to)."""

    def __init__(
        self,
        store: DailyStore,
        deals: DailyDeals,
        identities: Identities,
        settings: Settings,
        clock: Clock,
        *,
        reviews: Reviews | None = None,
    ) -> None:
        self.store = store
        self.deals = deals
        self.identities = identities
        self.settings = settings
        self.clock = clock
        #: results under review and barred racers, set apart (``room.review``)
        self.reviews = reviews

    def today(self) -> str:
        return today(self.settings.daily_date, self.clock.now_ms())

    def _parts(self) -> tuple[DailyStore, DailyDeals]:
        return self.store, self.deals

    async def standing(self, peer: Peer, msg: DailyStandingQuery) -> None:
        store, deals = self._parts()
        day = self.today()
        date = msg.date or day
        if not is_date(date):
            raise ProtocolError(E.BAD_DATE, "not a date: write it YYYY-MM-DD, e.g. 2026-01-31")
        if date > day:
            raise ProtocolError(E.BAD_DATE, f"{date} has not come yet (today is {day})")
        identity = self.identities.of(peer)
        me: Row | None
        under_review: list[Row] | None = None
        unranked: list[Row] | None = None
        held: dict[str, str] = {}
        if self.reviews is None:
            players, top, mine = await store.standing(
                date, msg.draw, identity.id if identity else None, msg.limit
            )
            held = await store.held(date, msg.draw, _ids(top, mine))
            # in rank order, the unranked after every ranked one: ranks 1..n
            rows = ranked((r for r in top if r.id not in held), ties=False)
            unranked = [wire_row(r, 0) for r in top if r.id in held]
            me = wire_row(mine[1], 0 if mine[1].id in held else mine[0]) if mine else None
        else:
            flags = await self.reviews.flags(date, msg.draw)
            # read as many more as may be set aside (barred racers beyond: fewer rows)
            players, top, mine = await store.standing(
                date, msg.draw, identity.id if identity else None, msg.limit + len(flags)
            )
            rank_of = {}
            for pid in flags:
                found = (await store.standing(date, msg.draw, pid, 0))[2]
                rank_of[pid] = found[0] if found else 0
            held = await store.held(date, msg.draw, _ids(top, mine))
            split = await self.reviews.daily(date, msg.draw, top, mine, rank_of, held)
            rows, me = split.rows[: msg.limit], split.me
            under_review, unranked = split.under_review, split.unranked
        over = date < day
        reply = DailyStanding(
            date=date,
            draw=msg.draw,
            over=over,
            deal=await deals.known(date, msg.draw) if over else None,
            players=players,
            rows=rows,
            me=me,
            replays={
                r.id: f"/replay/{replay_id(date, msg.draw, r.id)}"
                for r in [*rows, *(under_review or ()), *(unranked or ())]
            }
            if over
            else None,
            server_time=self.clock.now_ms(),
            under_review=under_review,
            unranked=unranked,
            unranked_why=held or None,
        )
        peer.send(frames.text(reply))

    async def replay(
        self, date: str, draw: int, player: str
    ) -> tuple[int, DailyReplay | dict[str, str]]:
        """A daily replay for ``/replay/<id>``: (HTTP status, body). Shown only once
        the day is over."""
        store, deals = self._parts()
        if date >= self.today():
            return 403, {"error": f"the daily race of {date} is on: replays show once it is over"}
        attempt = await store.attempt(date, draw, player)
        deal = await deals.known(date, draw)
        if attempt is None or deal is None:
            return 404, {"error": "no such replay (unknown, or past its retention)"}
        players, _, mine = await store.standing(date, draw, player, 0)
        moves, times = split_log(attempt.log)
        review = (await self.reviews.flags(date, draw)).get(player) if self.reviews else None
        racers = (
            [
                ReplayPlayer(
                    **msgspec.structs.asdict(wire_row(mine[1], mine[0])),
                    moves_list=moves,
                    review=review if review in (REVIEW_OPEN, REVIEW_CONFIRMED) else None,
                    times_ms=times,
                )
            ]
            if mine
            else []
        )
        return 200, DailyReplay(
            id=replay_id(date, draw, player),
            date=date,
            deal=deal,
            draw=draw,
            players=racers,
            daily_players=players,
            final_board=replay(deal, moves).view(),
        )


def _ids(top: list[StoredRow], mine: tuple[int, StoredRow] | None) -> list[str]:
    return [r.id for r in top] + ([mine[1].id] if mine else [])
