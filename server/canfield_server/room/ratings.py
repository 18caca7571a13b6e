"""Multiplayer ratings of public races: openskill's Plackett-Luce model.

Each identity has one rating per draw mode: a mean ``mu`` and an
uncertainty ``sigma`` (a newcomer starts at openskill's defaults, 25 and
25/3: very uncertain). After a public race every identified racer is
rated against the whole field at once from the finishing order; racers
who share a rank tie. The caller ranks a racer who left, or dropped past
the grace time, last (``leavers_last``): this module takes the order as
given.

A player sees the **estimate**: the mean skill on a friendlier scale,
``SHOWN_BASE + SHOWN_SCALE * (mu - NEWCOMER.mu)`` (``estimate``: a newcomer
shows 1000), marked provisional ("1000?", as lichess shows "1500?") while
its uncertainty ``SHOWN_SCALE * sigma`` (``deviation``, one standard
deviation on the same scale, shown as ``±``) is above
``PROVISIONAL_DEVIATION``. The change a race made is the change of that
estimate: two racers who tie move nobody up, however sure the model grew
of them. Public races are matched by the same number (``match_number``).

The ladder orders by the **cautious** number instead, ``shown``:
``SHOWN_BASE + SHOWN_SCALE * (mu - 3 sigma)``, the skill the player is very
likely above, which rises as the uncertainty shrinks whatever the results:
a racer climbs the ladder only once many races have made their estimate
sure. It lists a player only after ``Settings.rating_min_races`` rated
races. Ratings stored before the estimate was kept give it back from the
cautious number and the deviation (``estimate_from``).

Pure: no storage, no clock (``rate_public_race`` in ``room.rating_races``
reads and writes through the ``RatingStore`` port).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

import msgspec
from canfield_protocol import Row
from openskill.models import PlackettLuce

__all__ = [
    "SHOWN_BASE",
    "SHOWN_SCALE",
    "Rating",
    "Placed",
    "Rated",
    "NEWCOMER",
    "PROVISIONAL_DEVIATION",
    "shown",
    "estimate",
    "estimate_from",
    "provisional",
    "deviation",
    "match_number",
    "rate",
    "leavers_last",
]

#: the shown rating of ``mu - 3 sigma == 0`` (a newcomer), and points per unit of skill
SHOWN_BASE = 1000
SHOWN_SCALE = 40
#: a rating is provisional ("1000?") while its deviation is above this many points
#: (a newcomer's is 333; about ten races against one other racer, fewer in bigger
#: fields, bring it under)
PROVISIONAL_DEVIATION = 250

_MODEL = PlackettLuce()


class Rating(msgspec.Struct, frozen=True, kw_only=True):
    """One identity's rating in one draw mode, and the races it counts."""

    mu: float
    sigma: float
    races: int = 0


NEWCOMER = Rating(mu=_MODEL.mu, sigma=_MODEL.sigma)


def shown(rating: Rating) -> int:
    """The cautious number the ladder orders by (``mu - 3 sigma`` on the shown scale)."""
    return round(SHOWN_BASE + SHOWN_SCALE * (rating.mu - 3 * rating.sigma))


def estimate(rating: Rating) -> int:
    """The rating a player sees: the mean skill on the shown scale, a newcomer's
    at ``SHOWN_BASE``."""
    return round(SHOWN_BASE + SHOWN_SCALE * (rating.mu - NEWCOMER.mu))


def estimate_from(cautious: int, spread: int) -> int:
    """The estimate of a rating stored as its cautious number and its deviation
    only (before the estimate was kept): within a point or two of ``estimate``."""
    return cautious + 3 * spread - round(SHOWN_SCALE * 3 * NEWCOMER.sigma)


def provisional(spread: int) -> bool:
    """A rating whose deviation is this wide is shown with a "?": the races have
    not made it sure yet."""
    return spread > PROVISIONAL_DEVIATION


def match_number(rating: Rating) -> int:
    """The number public races match by: the estimate (not the cautious number,
    which puts a newcomer far below the average regular they likely equal)."""
    return estimate(rating)


def deviation(rating: Rating) -> int:
    """The uncertainty shown beside it (``±``), on the same scale."""
    return round(SHOWN_SCALE * rating.sigma)


class Placed(NamedTuple):
    """A racer in a finishing order: who, and their rank (1 first; equal ranks tie)."""

    identity: str
    rank: int


class Rated(NamedTuple):
    """A racer's rating after the race, and how much their estimate moved."""

    rating: Rating
    change: int


def rate(order: Sequence[Placed], current: dict[str, Rating]) -> dict[str, Rated]:
    """Rate one race: every racer of ``order`` against the whole field.

    ``current`` holds the ratings known so far (a racer missing from it is a
    newcomer). Fewer than two racers rate nothing (no contest). An identity
    listed twice is a caller's mistake (one seat per identity): ``ValueError``.
    """
    ids = [p.identity for p in order]
    if len(set(ids)) != len(ids):
        raise ValueError("an identity may hold one place in a race")
    if len(order) < 2:
        return {}
    before = [current.get(p.identity, NEWCOMER) for p in order]
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = _MODEL.rate(teams, ranks=[float(p.rank) for p in order])
    out = {}
    for placed, old, (new,) in zip(order, before, after, strict=True):
        rating = Rating(mu=new.mu, sigma=new.sigma, races=old.races + 1)
        out[placed.identity] = Rated(rating, estimate(rating) - estimate(old))
    return out


def leavers_last(standings: Sequence[Row], gone: Collection[str]) -> list[Row]:
    """The standings with every racer in ``gone`` (member ids: left, or dropped
    past the grace time) sharing the last place, below everyone who stayed,
    whatever they had done; the others keep their order and ranks."""
    stayed = [r for r in standings if r.id not in gone]
    left = [r for r in standings if r.id in gone]
    last = max((r.rank for r in stayed), default=0) + 1
    return stayed + [msgspec.structs.replace(r, rank=last) for r in left]
