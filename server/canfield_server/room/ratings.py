"""Multiplayer ratings of public races: openskill's Plackett-Luce model.

Each identity has one rating per draw mode: a mean ``mu`` and an
uncertainty ``sigma`` (a newcomer starts at openskill's defaults, 25 and
25/3: very uncertain). After a public race every identified racer is
rated against the whole field at once from the finishing order; racers
who share a rank tie. The caller ranks a racer who left, or dropped past
the grace time, last (``leavers_last``): this module takes the order as
given.

Shown as one number, the conservative ``mu - 3 sigma`` (the skill the
player is very likely above) on a friendlier scale: ``SHOWN_BASE +
SHOWN_SCALE * (mu - 3 sigma)``, so a newcomer shows 1000 and rises as the
model grows sure of them; the uncertainty beside it is ``SHOWN_SCALE *
sigma`` (one standard deviation on the same scale). The ladder orders by
the same conservative number, and lists a player only after
``Settings.rating_min_races`` rated races.

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
    "shown",
    "deviation",
    "match_number",
    "rate",
    "leavers_last",
]

#: the shown rating of ``mu - 3 sigma == 0`` (a newcomer), and points per unit of skill
SHOWN_BASE = 1000
SHOWN_SCALE = 40

_MODEL = PlackettLuce()


class Rating(msgspec.Struct, frozen=True, kw_only=True):
    """One identity's rating in one draw mode, and the races it counts."""

    mu: float
    sigma: float
    races: int = 0


NEWCOMER = Rating(mu=_MODEL.mu, sigma=_MODEL.sigma)


def shown(rating: Rating) -> int:
    """The one number a player sees (and the ladder orders by)."""
    return round(SHOWN_BASE + SHOWN_SCALE * (rating.mu - 3 * rating.sigma))


def match_number(rating: Rating) -> int:
    """The number public races match by: the mean skill on the shown scale, a
    newcomer's at ``SHOWN_BASE`` (not the cautious shown number, which puts a
    newcomer far below the average regular they likely equal)."""
    return round(SHOWN_BASE + SHOWN_SCALE * (rating.mu - NEWCOMER.mu))


def deviation(rating: Rating) -> int:
    """The uncertainty shown beside it (``±``), on the same scale."""
    return round(SHOWN_SCALE * rating.sigma)


class Placed(NamedTuple):
    """A racer in a finishing order: who, and their rank (1 first; equal ranks tie)."""

    identity: str
    rank: int


class Rated(NamedTuple):
    """A racer's rating after the race, and how much their shown number moved."""

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
        out[placed.identity] = Rated(rating, shown(rating) - shown(old))
    return out


def leavers_last(standings: Sequence[Row], gone: Collection[str]) -> list[Row]:
    """The standings with every racer in ``gone`` (member ids: left, or dropped
    past the grace time) sharing the last place, below everyone who stayed,
    whatever they had done; the others keep their order and ranks."""
    stayed = [r for r in standings if r.id not in gone]
    left = [r for r in standings if r.id in gone]
    last = max((r.rank for r in stayed), default=0) + 1
    return stayed + [msgspec.structs.replace(r, rank=last) for r in left]
