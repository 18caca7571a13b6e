"""Rating a public race when it ends: the hook the quick race calls.

``rate_public_race`` takes the race's final standings (the caller has
already put racers who left, or dropped past the grace time, last:
``ratings.leavers_last``), rates every identified human racer against the
others (bots and rows without an identity are skipped: they stay unrated,
and a race with fewer than two rated racers changes nothing), stores the
new ratings, history points and ladder rows through the ``RatingStore``,
and returns the standings with ``RatedRow`` rows for the rated racers.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

import msgspec
from canfield_protocol import MemberStatus, RatedRow, RoomState, Row

from canfield_server.ops.clock import Clock
from canfield_server.room.ports import (
    IdentityStore,
    LadderRow,
    RatingPoint,
    RatingStore,
    StoredRating,
)
from canfield_server.room.ratings import Placed, Rated, Rating, deviation, leavers_last, rate, shown
from canfield_server.room.results import OnPublicFinished

__all__ = ["RatedRace", "public_race_rater", "rate_public_race"]


class RatedRace(NamedTuple):
    """The standings to send in ``finished`` and each rated identity's outcome."""

    standings: list[Row]
    #: identity (token hash) -> its new rating and the change of its shown number
    by_identity: dict[str, Rated]


async def rate_public_race(
    store: RatingStore,
    draw: int,
    standings: Sequence[Row],
    identities: Mapping[str, str],
    *,
    min_races: int,
    now_ms: int,
    bots: Collection[str] = (),
) -> RatedRace:
    """Rate one finished public race of draw mode ``draw``.

    ``standings``: every racer's final row, ranked (``rank``: 1 first, equal
    ranks tie), leavers already last. ``identities``: member id -> identity
    token hash (``IdentityStore.room_identities``); ``bots``: member ids of
    bots (unrated even if linked). ``min_races``: rated races before an
    identity shows on the ladder (``Settings.rating_min_races``).
    """
    rated_rows = [r for r in standings if r.id in identities and r.id not in bots]
    member_of = {identities[r.id]: r.id for r in rated_rows}
    if len(member_of) < 2:
        return RatedRace(list(standings), {})
    order = [Placed(identities[r.id], r.rank) for r in rated_rows]
    stored = await store.ratings(draw, list(member_of))
    current = {i: Rating(mu=s.mu, sigma=s.sigma, races=s.races) for i, s in stored.items()}
    outcome = rate(order, current)
    names = {identities[r.id]: r.name for r in rated_rows}
    saved = []
    for placed in order:
        new, change = outcome[placed.identity]
        number, spread = shown(new), deviation(new)
        point = RatingPoint(
            at=now_ms,
            rating=number,
            deviation=spread,
            change=change,
            rank=placed.rank,
            players=len(standings),
        )
        ladder_row = (
            LadderRow(name=names[placed.identity], rating=number, deviation=spread, races=new.races)
            if new.races >= min_races
            else None
        )
        keep = StoredRating(
            mu=new.mu, sigma=new.sigma, races=new.races, name=names[placed.identity]
        )
        saved.append((placed.identity, keep, point, ladder_row))
    await store.save_ratings(draw, saved)
    return RatedRace([_with_rating(r, identities, outcome) for r in standings], outcome)


def _with_rating(row: Row, identities: Mapping[str, str], outcome: dict[str, Rated]) -> Row:
    found = outcome.get(identities.get(row.id, ""))
    if found is None:
        return row
    return RatedRow(
        **msgspec.structs.asdict(row),
        rating=shown(found.rating),
        rating_deviation=deviation(found.rating),
        rating_change=found.change,
    )


def public_race_rater(
    store: RatingStore,
    identities: IdentityStore,
    *,
    min_races: int,
    clock: Clock,
) -> OnPublicFinished:
    """The hub's hook at the end of a public race (``Hub(ratings=...)``): racers
    who left (or dropped past the grace time) go last, bots stay unrated, and the
    rest are rated by their places."""

    async def rate_race(state: RoomState, standings: list[Row]) -> None:
        gone = {row.id for row in standings if row.status == MemberStatus.LEFT}
        bots = {member.id for member in state.members if member.bot}
        await rate_public_race(
            store,
            state.settings.draw,
            leavers_last(standings, gone),
            await identities.room_identities(state.room),
            min_races=min_races,
            now_ms=clock.now_ms(),
            bots=bots,
        )

    return rate_race
