"""The ratings' HTTP endpoints: ``GET /api/ladder?draw=3`` (public) and
``GET /api/rating`` (one identity's ratings and history; its token in the
``X-Canfield-Identity`` header, as ``/history``)."""

from __future__ import annotations

import msgspec
from canfield_protocol import ErrorCode, ProtocolError
from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from canfield_server.room.hub import Hub
from canfield_server.room.ports import LadderRow, RatingPoint, RatingStore
from canfield_server.room.ratings import (
    Rating,
    deviation,
    estimate,
    estimate_from,
    provisional,
    shown,
)
from canfield_server.room.review import Reviews

__all__ = ["LADDER_SIZE", "MY_POINTS", "Ladder"]

#: the rows a ladder lists, and the rating points ``/api/rating`` sends per draw mode
LADDER_SIZE = 100
MY_POINTS = 50

_UNAVAILABLE = {"error": "storage unavailable; try again"}


def _draw(request: Request) -> int | None:
    raw = request.query_params.get("draw", "3")
    return int(raw) if raw in ("1", "3") else None


def _ladder_row(row: LadderRow) -> dict[str, object]:
    """A ladder row as the page shows it: the estimate (with its "?" while
    provisional) and the cautious number the ladder is ordered by."""
    number = row.estimate if row.estimate is not None else estimate_from(row.rating, row.deviation)
    return {
        "name": row.name,
        "rating": number,
        "deviation": row.deviation,
        "rating_provisional": provisional(row.deviation),
        "cautious": row.rating,
        "races": row.races,
    }


def _point(point: RatingPoint) -> dict[str, object]:
    """A history point as the chart shows it: the estimate after the race."""
    number = point.estimate
    if number is None:
        number = estimate_from(point.rating, point.deviation)
    return {
        "at": point.at,
        "rating": number,
        "deviation": point.deviation,
        "rating_provisional": provisional(point.deviation),
        "cautious": point.rating,
        "change": point.change,
        "rank": point.rank,
        "players": point.players,
    }


def _json(body: object) -> Response:
    return Response(
        msgspec.json.encode(body),
        media_type="application/json",
        headers={"Cache-Control": "no-cache"},
    )


class Ladder:
    """The ratings' endpoints, built by ``create_app``: the hub (for identities),
    the rating store, and the integrity review (None: this server keeps none)
    that keeps rows under review or barred off the ladder."""

    def __init__(
        self, hub: Hub, ratings: RatingStore, reviews: Reviews | None, min_races: int
    ) -> None:
        self.hub = hub
        self.ratings = ratings
        self.reviews = reviews
        self.min_races = min_races

    async def ladder(self, request: Request) -> Response:
        """The top ``LADDER_SIZE`` of a draw mode by the cautious rating, only
        identities with ``rating_min_races`` rated races, none under review or
        barred from ranked play (``room.review``); each row shows its estimate."""
        draw = _draw(request)
        if draw is None:
            return JSONResponse({"error": "draw must be 1 or 3"}, status_code=400)
        try:
            if self.reviews is not None:
                rows = await self.reviews.ladder(draw, LADDER_SIZE)
            else:
                rows = await self.ratings.ladder(draw, LADDER_SIZE)
        except (RedisError, OSError):
            return JSONResponse(_UNAVAILABLE, status_code=503)
        # a row written under a lower minimum (the setting since raised) stays out
        shown_rows = [_ladder_row(r) for r in rows if r.races >= self.min_races]
        return _json({"draw": draw, "min_races": self.min_races, "rows": shown_rows})

    async def my_rating(self, request: Request) -> Response:
        """An identity's rating of each draw mode it raced in public, with its last
        ``MY_POINTS`` points (newest first)."""
        token = request.headers.get("x-canfield-identity", "")
        ratings = self.ratings
        try:
            identity = await self.hub.identity_of(token)
            out = []
            for draw in (3, 1):
                found = (await ratings.ratings(draw, [identity.token_hash])).get(
                    identity.token_hash
                )
                if found is None:
                    continue
                rating = Rating(mu=found.mu, sigma=found.sigma, races=found.races)
                points = await ratings.rating_history(identity.token_hash, draw, MY_POINTS)
                spread = deviation(rating)
                out.append(
                    {
                        "draw": draw,
                        "rating": estimate(rating),
                        "deviation": spread,
                        "rating_provisional": provisional(spread),
                        "cautious": shown(rating),
                        "races": found.races,
                        "provisional": found.races < self.min_races,
                        "history": [_point(point) for point in points],
                    }
                )
        except ProtocolError as exc:
            status = 401 if exc.code == ErrorCode.BAD_IDENTITY else 503
            return JSONResponse({"error": exc.message, "code": exc.code}, status_code=status)
        except (RedisError, OSError):
            return JSONResponse(_UNAVAILABLE, status_code=503)
        return _json({"min_races": self.min_races, "ratings": out})
