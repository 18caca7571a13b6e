"""A challenge link's page, its JSON and its preview picture.

``GET /c/<id>``: the web client's challenge page (``challenge.html``) with
its link preview in the head ("Beat Ana's 3:12 on this deal"), filled in
before any script runs; ``GET /api/challenge/<id>``: what the page shows
(``room.challenges.Challenges.view``: the racer's result, the draw mode and
the standing; never the deal); ``GET /c/<id>.png`` and ``.svg``: its
picture, which shows five cards face down and the standing, no card of the
deal. An unknown, expired or malformed id is a 404 (the 404 page says a
challenge link lasts ``challenge_days``). Words in English or Croatian
(``?lang=``, else ``Accept-Language``).
"""

from __future__ import annotations

import hashlib
import os
import re
from urllib.parse import quote

from canfield_protocol import ChallengeView, ProtocolError, encode
from redis.exceptions import RedisError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from canfield_server.room.challenges import PAGE, Challenges
from canfield_server.transport.page_head import page_html
from canfield_server.transport.picture_cache import PictureCache
from canfield_server.transport.preview import challenge_png, challenge_svg
from canfield_server.transport.replay_words import (
    PRODUCT,
    challenge_description,
    challenge_title,
    language,
)
from canfield_server.transport.share import head_tags, png_response

__all__ = ["ChallengePage"]

_TITLE = re.compile(r"<title>.*?</title>", re.DOTALL)
#: a standing changes as people race it: the picture is fetched again after a minute
PICTURE_CACHE = "public, max-age=60"


class ChallengePage:
    """The challenge page, its JSON and picture; ``root`` is the web client's folder."""

    def __init__(self, root: str | None, challenges: Challenges, pictures: PictureCache) -> None:
        self.root = root
        self.challenges = challenges
        self.pictures = pictures

    async def _view(self, challenge_id: str) -> ChallengeView:
        try:
            found = await self.challenges.view(challenge_id)
        except (RedisError, OSError, ProtocolError) as exc:
            raise HTTPException(503, "storage unavailable; try again") from exc
        if found is None:
            raise HTTPException(404)
        return found

    async def page(self, request: Request) -> Response:
        challenge_id = request.path_params["challenge_id"]
        view = await self._view(challenge_id)
        page = os.path.join(self.root, "challenge.html") if self.root else ""
        if not page or not os.path.exists(page):
            raise HTTPException(404, "No web page is installed.")
        lang = _lang(request)
        url = f"{str(request.base_url).rstrip('/')}{PAGE}{quote(challenge_id)}"
        title = challenge_title(view, lang)
        head = head_tags(
            f"{title} - {PRODUCT}", challenge_description(view, lang), url, lang, title
        )
        filled = _TITLE.sub(lambda _: head, page_html(page), count=1)
        return HTMLResponse(
            filled, headers={"Cache-Control": "no-cache", "Vary": "Accept-Language"}
        )

    async def data(self, request: Request) -> Response:
        challenge_id = request.path_params["challenge_id"]
        try:
            view = await self._view(challenge_id)
        except HTTPException as exc:
            error = "no such challenge (unknown, or expired)" if exc.status_code == 404 else ""
            return JSONResponse({"error": error or exc.detail}, exc.status_code)
        return Response(encode(view), media_type="application/json",
                        headers={"Cache-Control": "no-cache"})  # fmt: skip

    async def png(self, request: Request) -> Response:
        view = await self._view(request.path_params["challenge_id"])
        lang = _lang(request)
        # the standing is in the picture: a new result paints a new one
        version = hashlib.blake2b(encode(view), digest_size=8).hexdigest()
        key = ("challenge", view.id, lang, version)
        return await png_response(
            self.pictures, key, lambda: challenge_png(view, lang), PICTURE_CACHE
        )

    async def svg(self, request: Request) -> Response:
        view = await self._view(request.path_params["challenge_id"])
        return Response(
            challenge_svg(view, _lang(request)),
            media_type="image/svg+xml",
            headers={"Cache-Control": PICTURE_CACHE, "Vary": "Accept-Language"},
        )


def _lang(request: Request) -> str:
    return language(request.query_params.get("lang"), request.headers.get("accept-language"))
