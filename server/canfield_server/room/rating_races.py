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

import asyncio
from collections.abc import Collection, Mapping, Sequence
from itertools import combinations
from typing import NamedTuple

import msgspec
from canfield_protocol import MemberStatus, RatedRow, RoomState, Row, rated_row

from canfield_server.ops.clock import Clock, today
from canfield_server.ops.config import Settings
from canfield_server.room.identifiers import address_prefix
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
    "FairPlay",
    "Racer",
    "pair_key",
    "unrated",
    "RatedRace",
    "match_rating_of",
    "public_race_rater",
    "rate_public_race",
]

#: what ``RatingStore.save_ratings`` stores for one identity
Saved = tuple[str, StoredRating, RatingPoint, LadderRow | None]


#: why a racer of a public race is not rated (``RatedRow.unrated``)
BARRED = "barred"
LEFT_EARLY = "left-early"
SAME_NETWORK = "same-network"
PAIR_LIMIT = "pair-limit"
NO_OPPONENT = "no-opponent"


class FairPlay(NamedTuple):
    """Who may be rated against whom (docs/security.md, "Fair play")."""

    #: races one pair of identities is rated together per UTC day (0: no cap)
    pair_per_day: int = 0
    #: a racer who left (or dropped) before their first move, or made none after
    #: this long from the start, is not rated (0: only before the first move)
    left_early_ms: int = 0
    #: networks that are no network: this host's own (its bots, local tools)
    own_networks: frozenset[str] = frozenset()

    @classmethod
    def of(cls, settings: Settings) -> FairPlay:
        def net(ip: str) -> str | None:
            return address_prefix(ip, settings.identity_v4_bits, settings.identity_v6_bits)

        own = {n for n in map(net, settings.own_addresses()) if n}
        return cls(
            pair_per_day=settings.fair_play_pair_per_day,
            left_early_ms=round(settings.fair_play_left_early_s * 1000),
            own_networks=frozenset(own),
        )

    def left_early(self, row: Row) -> bool:
        """Left (or dropped past the grace time) with no move, or none after the
        first ``left_early_ms`` (a leaver's time is that of their last action)."""
        return row.status == MemberStatus.LEFT and (
            row.moves == 0 or row.time_ms < self.left_early_ms
        )


class Racer(NamedTuple):
    """An identified human racer of a public race, as the fair-play rules see them."""

    identity: str
    #: the networks they count in: their seat's, the one their identity was issued to
    networks: frozenset[str]
    left_early: bool


def pair_key(a: str, b: str) -> str:
    """One pair of identities, whichever order they come in."""
    return ":".join(sorted((a, b)))


def unrated(
    racers: Sequence[Racer],
    pairs_today: Mapping[str, int],
    rules: FairPlay,
    barred: Collection[str] = (),
) -> dict[str, str]:
    """The identities of one public race that are not rated, and why (the first
    rule that takes them out, in this order): ``barred`` (from ranked play);
    ``left-early`` (out of the rating altogether: their leaving is nobody's win);
    ``same-network`` (both of any two who share a network, seat or issuance);
    ``pair-limit`` (both of a pair already rated together ``pair_per_day`` times
    today); ``no-opponent`` (the one racer left, with nobody to be rated against)."""
    out: dict[str, str] = {}
    for racer in racers:
        if racer.identity in barred:
            out[racer.identity] = BARRED
        elif racer.left_early:
            out[racer.identity] = LEFT_EARLY

    def left() -> list[Racer]:
        return [r for r in racers if r.identity not in out]

    shared = [(a, b) for a, b in combinations(left(), 2) if a.networks & b.networks]
    for a, b in shared:
        out[a.identity] = out[b.identity] = SAME_NETWORK
    if rules.pair_per_day > 0:
        over = [
            (a, b)
            for a, b in combinations(left(), 2)
            if pairs_today.get(pair_key(a.identity, b.identity), 0) >= rules.pair_per_day
        ]
        for a, b in over:
            out[a.identity] = out[b.identity] = PAIR_LIMIT
    alone = left()
    if len(alone) == 1:
        out[alone[0].identity] = NO_OPPONENT
    return out


class RatedRace(NamedTuple):
    """The standings to send in ``finished`` and each rated identity's outcome."""

    standings: list[RatedRow]
    #: identity (token hash) -> its new rating and the change of its estimate
    by_identity: dict[str, Rated]
    #: what to store once the race's results are written
    saved: list[Saved]
    #: what the race changed in each rated identity's rating (kept to give back)
    changes: dict[str, RatingChange] = {}
    #: each rated identity's opponents in this race (``RatingStore.note_opponents``)
    opponents: dict[str, list[str]] = {}


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
    min_opponents: int = 0,
) -> RatedRace:
    """Rate one finished public race of draw mode ``draw``.

    ``standings``: every racer's final row, ranked (``rank``: 1 first, equal
    ranks tie), leavers already last. ``identities``: member id -> identity
    token hash (``IdentityStore.room_identities``); ``bots``: member ids of
    bots (unrated even if linked). ``min_races``: rated races before an
    identity shows on the ladder (``Settings.rating_min_races``), against at
    least ``min_opponents`` distinct identities (``Settings.rating_min_opponents``:
    a farm of one feeder identity, or a few, never reaches it). ``save``: store
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
    met = {i: sorted(o for o in member_of if o != i) for i in member_of}
    distinct = await store.opponents(draw, met) if min_opponents > 0 else {}
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
            if new.races >= min_races and distinct.get(placed.identity, 0) >= min_opponents
            else None
        )
        keep = StoredRating(
            mu=new.mu, sigma=new.sigma, races=new.races, name=names[placed.identity]
        )
        saved.append((placed.identity, keep, point, ladder_row))
    if save:
        await store.save_ratings(draw, saved)
        await store.note_opponents(draw, met)
    changes = {
        i: RatingChange(new.mu - was.mu, new.sigma - was.sigma)
        for i, (new, _) in outcome.items()
        for was in [current.get(i, NEWCOMER)]
    }
    standings_out = [_with_rating(r, identities, outcome) for r in standings]
    return RatedRace(standings_out, outcome, saved, changes, met)


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
    min_opponents: int = 0,
    integrity: IntegrityStore | None = None,
    fair_play: FairPlay | None = None,
) -> RatePublicRace:
    """The results' hook for a public race (``Hub(ratings=...)``): racers who left
    (or dropped past the grace time) are rated last, bots stay unrated, the rest
    by their places. The rows keep the standings' order (the ratings are added to
    them); the ratings are stored by whoever claims the race first, with what the
    race changed for each (``RatingStore.save_race_changes``). The fair-play rules
    (``unrated``, ``fair_play``; None: none but the bar) take racers out first:
    an identity barred from ranked play (``integrity``), one that left early,
    identities sharing a network, a pair rated together too often today; each
    such row says why (``RatedRow.unrated``)."""
    play = fair_play or FairPlay()

    async def rate_race(state: RoomState, standings: list[Row]) -> PlannedRatings:
        gone = {row.id for row in standings if row.status == MemberStatus.LEFT}
        bots = {member.id for member in state.members if member.bot}
        linked = await identities.room_identities(state.room)
        rows = {r.id: r for r in standings}
        humans = {m: i for m, i in linked.items() if m not in bots and m in rows}
        racing = sorted(set(humans.values()))
        day = today(None, clock.now_ms())
        barred: set[str] = set()
        if integrity is not None and racing:
            barred = await integrity.barred(racing)
        seat_nets = await identities.room_networks(state.room) if racing else {}
        issued = await asyncio.gather(*(identities.identity_network(i) for i in racing))
        issued_net = dict(zip(racing, issued, strict=True))
        pairs = [pair_key(a, b) for a, b in combinations(racing, 2)]
        counts = await store.pairs_rated(day, pairs) if pairs and play.pair_per_day else {}
        racers = [
            Racer(
                identity,
                frozenset(
                    n
                    for n in (seat_nets.get(member), issued_net.get(identity))
                    if n and n not in play.own_networks
                ),
                play.left_early(rows[member]),
            )
            for member, identity in humans.items()
        ]
        why = unrated(racers, counts, play, barred)
        rated_ids = {m: i for m, i in humans.items() if i not in why}
        race = await rate_public_race(
            store,
            state.settings.draw,
            leavers_last(standings, gone),
            rated_ids,
            min_races=min_races,
            now_ms=clock.now_ms(),
            bots=bots,
            save=False,
            min_opponents=min_opponents,
        )
        met = [pair_key(a, b) for a, b in combinations(sorted(race.by_identity), 2)]

        async def keep() -> bool:
            if not race.saved or not await store.claim_race(state.room, state.race):
                return False
            await store.save_ratings(state.settings.draw, race.saved)
            await store.save_race_changes(state.room, state.race, state.settings.draw, race.changes)
            await store.note_pairs(day, met)
            await store.note_opponents(state.settings.draw, race.opponents)
            return True

        out = []
        for r in standings:
            row = _with_rating(r, rated_ids, race.by_identity)
            reason = why.get(humans.get(r.id, ""))
            out.append(msgspec.structs.replace(row, unrated=reason) if reason else row)
        return PlannedRatings(out, keep)

    return rate_race


def match_rating_of(store: RatingStore) -> MatchRating:
    """Each identity's number to match public races by (``ratings.match_number``;
    a newcomer's for one never rated in that draw mode)."""

    async def rating_of(identity: str, draw: int) -> int:
        stored = (await store.ratings(draw, [identity])).get(identity)
        rating = Rating(mu=stored.mu, sigma=stored.sigma) if stored is not None else NEWCOMER
        return match_number(rating)

    return rating_of
