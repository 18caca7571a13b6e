"""Rating a public race when it ends, in two steps around its results.

``rate_public_race(save=False)`` takes the race's final standings (the caller has
already put racers who left, or dropped past the grace time, last:
``ratings.leavers_last``), rates every identified human racer against the
others (bots and rows without an identity are skipped: they stay unrated,
and a race with fewer than two rated racers changes nothing) and returns
the standings with ``RatedRow`` rows for the rated racers, storing
nothing: the results (``room.results``) put those rows in ``finished``
and may compute them again if their compare-and-set must retry. Only
once the results are written are the new ratings, history points and
ladder rows stored (``RatedRace.saved``), by the one caller that claims
the race (``RatingStore.claim_race``): a race is rated once.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from canfield_protocol import MemberStatus, RatedRow, RoomState, Row, rated_row

from canfield_server.ops.clock import Clock
from canfield_server.room.ports import (
    IdentityStore,
    IntegrityStore,
    LadderRow,
    RatingChange,
    RatingPoint,
    RatingStore,
    StoredRating,
)
from canfield_server.room.quick import MatchRating
from canfield_server.room.ratings import (
    NEWCOMER,
    Placed,
    Rated,
    Rating,
    deviation,
    estimate,
    leavers_last,
    match_number,
    provisional,
    rate,
    shown,
)
from canfield_server.room.results import PlannedRatings, RatePublicRace

__all__ = [
    "RatedRace",
    "match_rating_of",
    "public_race_rater",
    "rate_public_race",
]

#: what ``RatingStore.save_ratings`` stores for one identity
Saved = tuple[str, StoredRating, RatingPoint, LadderRow | None]


class RatedRace(NamedTuple):
    """The standings to send in ``finished`` and each rated identity's outcome."""

    standings: list[RatedRow]
    #: identity (token hash) -> its new rating and the change of its estimate
    by_identity: dict[str, Rated]
    #: what to store once the race's results are written
    saved: list[Saved]
    #: what the race changed in each rated identity's rating (kept to give back)
    changes: dict[str, RatingChange] = {}


async def rate_public_race(
    store: RatingStore,
    draw: int,
    standings: Sequence[Row],
    identities: Mapping[str, str],
    *,
    min_races: int,
    now_ms: int,
    bots: Collection[str] = (),
    save: bool = True,
) -> RatedRace:
    """Rate one finished public race of draw mode ``draw``.

    ``standings``: every racer's final row, ranked (``rank``: 1 first, equal
    ranks tie), leavers already last. ``identities``: member id -> identity
    token hash (``IdentityStore.room_identities``); ``bots``: member ids of
    bots (unrated even if linked). ``min_races``: rated races before an
    identity shows on the ladder (``Settings.rating_min_races``). ``save``: store
    the outcome at once (no race identity, no claim: tests, the benchmark); a
    server plans (False) and stores once its results are written
    (``public_race_rater``).
    """
    rated_rows = [r for r in standings if r.id in identities and r.id not in bots]
    member_of = {identities[r.id]: r.id for r in rated_rows}
    if len(member_of) < 2:
        return RatedRace([rated_row(r) for r in standings], {}, [])
    order = [Placed(identities[r.id], r.rank) for r in rated_rows]
    stored = await store.ratings(draw, list(member_of))
    current = {i: Rating(mu=s.mu, sigma=s.sigma, races=s.races) for i, s in stored.items()}
    outcome = rate(order, current)
    names = {identities[r.id]: r.name for r in rated_rows}
    saved: list[Saved] = []
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
            estimate=estimate(new),
        )
        ladder_row = (
            LadderRow(
                name=names[placed.identity],
                rating=number,
                deviation=spread,
                races=new.races,
                estimate=estimate(new),
            )
            if new.races >= min_races
            else None
        )
        keep = StoredRating(
            mu=new.mu, sigma=new.sigma, races=new.races, name=names[placed.identity]
        )
        saved.append((placed.identity, keep, point, ladder_row))
    if save:
        await store.save_ratings(draw, saved)
    changes = {
        i: RatingChange(new.mu - was.mu, new.sigma - was.sigma)
        for i, (new, _) in outcome.items()
        for was in [current.get(i, NEWCOMER)]
    }
    standings_out = [_with_rating(r, identities, outcome) for r in standings]
    return RatedRace(standings_out, outcome, saved, changes)


def _with_rating(row: Row, identities: Mapping[str, str], outcome: dict[str, Rated]) -> RatedRow:
    found = outcome.get(identities.get(row.id, ""))
    if found is None:
        return rated_row(row)
    spread = deviation(found.rating)
    return rated_row(
        row,
        rating=estimate(found.rating),
        rating_deviation=spread,
        rating_change=found.change,
        rating_provisional=provisional(spread),
    )


def public_race_rater(
    store: RatingStore,
    identities: IdentityStore,
    *,
    min_races: int,
    clock: Clock,
    integrity: IntegrityStore | None = None,
) -> RatePublicRace:
    """The results' hook for a public race (``Hub(ratings=...)``): racers who left
    (or dropped past the grace time) are rated last, bots stay unrated, the rest
    by their places. The rows keep the standings' order (the ratings are added to
    them); the ratings are stored by whoever claims the race first, with what the
    race changed for each (``RatingStore.save_race_changes``). An identity barred
    from ranked play (``integrity``) races unrated, as a guest does."""

    async def rate_race(state: RoomState, standings: list[Row]) -> PlannedRatings:
        gone = {row.id for row in standings if row.status == MemberStatus.LEFT}
        bots = {member.id for member in state.members if member.bot}
        linked = await identities.room_identities(state.room)
        if integrity is not None and linked:
            barred = await integrity.barred(list(set(linked.values())))
            linked = {m: i for m, i in linked.items() if i not in barred}
        race = await rate_public_race(
            store,
            state.settings.draw,
            leavers_last(standings, gone),
            linked,
            min_races=min_races,
            now_ms=clock.now_ms(),
            bots=bots,
            save=False,
        )

        async def keep() -> bool:
            if not race.saved or not await store.claim_race(state.room, state.race):
                return False
            await store.save_ratings(state.settings.draw, race.saved)
            await store.save_race_changes(state.room, state.race, state.settings.draw, race.changes)
            return True

        rows = [_with_rating(r, linked, race.by_identity) for r in standings]
        return PlannedRatings(rows, keep)

    return rate_race


def match_rating_of(store: RatingStore) -> MatchRating:
    """Each identity's number to match public races by (``ratings.match_number``;
    a newcomer's for one never rated in that draw mode)."""

    async def rating_of(identity: str, draw: int) -> int:
        stored = (await store.ratings(draw, [identity])).get(identity)
        rating = Rating(mu=stored.mu, sigma=stored.sigma) if stored is not None else NEWCOMER
        return match_number(rating)

    return rating_of
