"""The ratings' HTTP endpoints: ``GET /api/ladder?draw=3`` (public) and
``GET /api/rating`` (one identity's ratings and history; its token in the
``X-Canfield-Identity`` header, as ``/history``)."""

from __future__ import annotations

import msgspec
from canfield_protocol import ErrorCode, ProtocolError
from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from canfield_server.room.ratings import Rating, deviation, shown

__all__ = ["LADDER_SIZE", "MY_POINTS", "ladder", "my_rating"]

#: the rows a ladder lists, and the rating points ``/api/rating`` sends per draw mode
LADDER_SIZE = 100
MY_POINTS = 50

_UNAVAILABLE = {"error": "storage unavailable; try again"}


def _draw(request: Request) -> int | None:
    raw = request.query_params.get("draw", "3")
    return int(raw) if raw in ("1", "3") else None


def _json(body: object) -> Response:
    return Response(
        msgspec.json.encode(body),
        media_type="application/json",
        headers={"Cache-Control": "no-cache"},
    )


async def ladder(request: Request) -> Response:
    """The top ``LADDER_SIZE`` of a draw mode by shown (conservative) rating,
    only identities with ``rating_min_races`` rated races, none under review or
    barred from ranked play (``room.review``)."""
    draw = _draw(request)
    if draw is None:
        return JSONResponse({"error": "draw must be 1 or 3"}, status_code=400)
    hub = request.app.state.hub
    settings = hub.settings
    try:
        if hub.reviews is not None:
            rows = await hub.reviews.ladder(draw, LADDER_SIZE)
        else:
            rows = await request.app.state.ratings.ladder(draw, LADDER_SIZE)
    except (RedisError, OSError):
        return JSONResponse(_UNAVAILABLE, status_code=503)
    # a row written under a lower minimum (the setting since raised) stays out
    shown_rows = [r for r in rows if r.races >= settings.rating_min_races]
    return _json({"draw": draw, "min_races": settings.rating_min_races, "rows": shown_rows})


async def my_rating(request: Request) -> Response:
    """An identity's rating of each draw mode it raced in public, with its last
    ``MY_POINTS`` points (newest first)."""
    token = request.headers.get("x-canfield-identity", "")
    hub, ratings = request.app.state.hub, request.app.state.ratings
    try:
        identity, _, _ = await hub.identities.lookup(token)
        out = []
        for draw in (3, 1):
            found = (await ratings.ratings(draw, [identity.token_hash])).get(identity.token_hash)
            if found is None:
                continue
            rating = Rating(mu=found.mu, sigma=found.sigma, races=found.races)
            points = await ratings.rating_history(identity.token_hash, draw, MY_POINTS)
            out.append(
                {
                    "draw": draw,
                    "rating": shown(rating),
                    "deviation": deviation(rating),
                    "races": found.races,
                    "provisional": found.races < hub.settings.rating_min_races,
                    "history": points,
                }
            )
    except ProtocolError as exc:
        status = 401 if exc.code == ErrorCode.BAD_IDENTITY else 503
        return JSONResponse({"error": exc.message, "code": exc.code}, status_code=status)
    except (RedisError, OSError):
        return JSONResponse(_UNAVAILABLE, status_code=503)
    return _json({"min_races": hub.settings.rating_min_races, "ratings": out})
