"""The integrity review as others see it, and the operator's decisions.

A result the flag rule flags (``IntegrityStore.record``, by the signals'
computation) is *open*: from the next read on it is shown "under review"
(``RatedRow.review``) in its race's replay, it is kept apart from the daily
standing's ranked rows (``DailyStanding.under_review``), and its racer's
identity leaves the ladder while any of its cases is open. Everything here
is read-side: a flag recorded by any process (or straight into Redis) shows
at once, and a cleared case stands again at once.

The operator decides (``Reviews.decide``, the console):

- **clear**: the result stands again (back on the ladder and in the daily
  ranked list, as it was);
- **confirm**: the result is removed (left out of the daily standing; its
  replay and history say ``confirmed``), its identity is barred from ranked
  play (never rated again: it races as a guest does; never on a ladder or a
  daily ranked list: its daily rows show apart, unranked; it can still play),
  and in a public race every other rated racer gets back what that race
  changed in their rating: their mean and uncertainty less the race's deltas
  (``RatingStore.race_changes``), one rated race fewer, and a history point
  with the change of their shown rating (rank 0: points given back). Later
  races keep the changes they made (as lichess gives points back: the
  delta, not a replay of every later race).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence

import msgspec
from canfield_protocol import RatedRow, RoomReplay, Row

from canfield_server.ops.clock import Clock
from canfield_server.room.leaderboard import ranked, wire_row
from canfield_server.room.ports import (
    REVIEW_CONFIRMED,
    REVIEW_OPEN,
    IntegrityStore,
    LadderRow,
    RatingPoint,
    RatingStore,
    ReviewCase,
    StoredRating,
    StoredRow,
)
from canfield_server.room.ratings import Rating, deviation, estimate, shown

__all__ = ["Reviews", "DailySplit", "LADDER_SLACK"]

#: ladder rows read beyond those listed, to fill the places of identities under
#: review or barred
LADDER_SLACK = 50
#: shown to others: a result whose review is open, or that was confirmed (removed)
_SHOWN = (REVIEW_OPEN, REVIEW_CONFIRMED)


class DailySplit(msgspec.Struct, kw_only=True):
    """A daily standing as shown: the ranked rows, those under review and those of
    barred racers (both unranked, rank 0), and the asker's own row."""

    rows: list[Row]
    under_review: list[Row]
    unranked: list[Row]
    me: Row | None


class Reviews:
    def __init__(
        self,
        store: IntegrityStore,
        ratings: RatingStore | None,
        *,
        min_races: int,
        clock: Clock,
    ) -> None:
        self.store = store
        self.ratings = ratings
        self.min_races = min_races
        self.clock = clock
        #: told of each decision: a cleared arena heat's points come back
        #: (``room.arena_results``)
        self.on_decided: Callable[[ReviewCase], Awaitable[None]] | None = None

    # ------------------------------------------------------------ what others see

    async def marked(self, replay_id: str, rows: Sequence[RatedRow]) -> dict[str, str]:
        """Member id -> review shown, of a room race's rows (its replay's id)."""
        flags = await self.store.race_flags(replay_id)
        return {r.id: flags[r.id] for r in rows if flags.get(r.id) in _SHOWN}

    async def mark_replay(self, body: RoomReplay) -> RoomReplay:
        marks = await self.marked(body.id, body.players)
        if not marks:
            return body
        players = [msgspec.structs.replace(p, review=marks.get(p.id)) for p in body.players]
        return msgspec.structs.replace(body, players=players)

    async def ladder(self, draw: int, limit: int) -> list[LadderRow]:
        """The first ``limit`` ladder rows of identities neither under review nor barred."""
        found = await self.ratings.ladder_of(draw, limit + LADDER_SLACK) if self.ratings else []
        ids = [i for i, _ in found]
        held = await self.store.under_review(ids) | await self.store.barred(ids)
        return [row for i, row in found if i not in held][: max(0, limit)]

    async def daily(
        self,
        date: str,
        draw: int,
        top: list[StoredRow],
        mine: tuple[int, StoredRow] | None,
        rank_of: dict[str, int],
        held: Collection[str] = (),
    ) -> DailySplit:
        """A day's standing split: ``top`` (in rank order) and ``mine`` as read,
        ``rank_of``: the standing's rank of each flagged racer (``flags``);
        ``held``: players the fair-play rules show unranked (``DailyStore.held``:
        stored after every ranked one, so ahead of nobody)."""
        flags = await self.flags(date, draw)
        ids = [r.id for r in top] + ([mine[1].id] if mine else [])
        barred = await self.store.barred_players(ids)
        aside = {p for p, s in flags.items() if s in _SHOWN} | barred | set(held)
        rows = ranked((r for r in top if r.id not in aside), ties=False)
        under = [wire_row(r, 0) for r in top if flags.get(r.id) == REVIEW_OPEN]
        # a confirmed result is removed; the barred racer's other days show unranked,
        # as do the attempts the fair-play rules hold out (``held``)
        unranked = [
            wire_row(r, 0)
            for r in top
            if (r.id in barred and flags.get(r.id) not in (REVIEW_OPEN, REVIEW_CONFIRMED))
            or (r.id in held and r.id not in flags)
        ]
        me = None
        if mine is not None:
            rank, row = mine
            if row.id in aside:
                me = wire_row(row, 0) if flags.get(row.id) != REVIEW_CONFIRMED else None
            else:
                # those set aside ahead of the asker: every flagged one (ranks known),
                # and barred ones among the rows read
                ahead = {p for p in flags if p in aside and 0 < rank_of.get(p, 0) < rank}
                ahead |= {r.id for n, r in enumerate(top, 1) if r.id in barred and n < rank}
                me = wire_row(row, rank - len(ahead))
        return DailySplit(rows=rows, under_review=under, unranked=unranked, me=me)

    async def flags(self, date: str, draw: int) -> dict[str, str]:
        """A day's flagged daily results: public id -> status."""
        return await self.store.race_flags(f"daily:{date}:{draw}")

    # ------------------------------------------------------------ the operator

    async def decide(self, result: str, confirm: bool, by: str) -> ReviewCase | None:
        """Clear or confirm an open case (once; None: no open case ``result``). A
        confirmed public race gives its other rated racers their points back."""
        decided = await self.store.decide(result, confirm, by, self.clock.now_ms())
        if decided is not None and confirm and decided.kind == "public":
            await self._give_back(decided)
        if decided is not None and self.on_decided is not None:
            await self.on_decided(decided)
        return decided

    async def _give_back(self, case: ReviewCase) -> None:
        if self.ratings is None or case.room is None or case.race_no is None:
            return
        draw, changes = await self.ratings.race_changes(case.room, case.race_no)
        others = [i for i in changes if i != case.identity]
        if not others:
            return
        stored = await self.ratings.ratings(draw, others)
        barred = await self.store.barred(others)
        saved = []
        for identity, was in stored.items():
            change = changes[identity]
            before = Rating(mu=was.mu, sigma=was.sigma, races=was.races)
            after = Rating(
                mu=was.mu - change.mu,
                sigma=max(0.01, was.sigma - change.sigma),
                races=max(0, was.races - 1),
            )
            number, spread = shown(after), deviation(after)
            point = RatingPoint(
                at=self.clock.now_ms(),
                rating=number,
                deviation=spread,
                change=estimate(after) - estimate(before),
                rank=0,
                players=0,
                estimate=estimate(after),
            )
            listed = after.races >= self.min_races and identity not in barred
            row = LadderRow(
                name=was.name,
                rating=number,
                deviation=spread,
                races=after.races,
                estimate=estimate(after),
            )
            keep = StoredRating(mu=after.mu, sigma=after.sigma, races=after.races, name=was.name)
            saved.append((identity, keep, point, row if listed else None))
        await self.ratings.save_ratings(draw, saved)
