"""A replay's shareable page and its preview picture.

``GET /replays/<id>``: the web client's replay page (``replay.html``, found
in its folder, never imported) with the link preview filled into its head
before any script runs: the title, a description naming the result, the
players and the race, Open Graph and Twitter card tags, and the picture's
absolute URL. ``GET /replays/<id>.png``: that picture (``preview``), painted
once and kept (``picture_cache``); ``GET /replays/<id>.svg``: the same as SVG.

Both read the replay as ``GET /replay/<id>`` serves it (``Hub.replay``), so
they show nothing that link does not: an unknown or expired id is a 404, a
daily race's replay before its day is over gives the page without a
preview (403, as the JSON says) and no picture. Every inserted text is
escaped. The words speak the language asked for (``?lang=``) or the
browser's (``Accept-Language``), English or Croatian.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from html import escape
from typing import Any
from urllib.parse import quote

from canfield_protocol import ProtocolError
from redis.exceptions import RedisError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response

from canfield_server.room.hub import Hub
from canfield_server.transport.page_head import page_html
from canfield_server.transport.picture_cache import PictureCache
from canfield_server.transport.preview import HEIGHT, WIDTH, render_png, render_svg
from canfield_server.transport.replay_words import PRODUCT, Summary, language, summarize

__all__ = ["ReplayShare", "PAGE_PATH", "head_tags", "png_response"]

#: where a replay's page lives (``/replay/<id>`` stays its JSON)
PAGE_PATH = "/replays/"
#: the picture of a finished race never changes while it is kept
IMAGE_CACHE = "public, max-age=86400"
#: too many pictures waiting to be painted: come back in this many seconds
BUSY_RETRY_S = 5
LOCALES = {"en": "en_US", "hr": "hr_HR"}
_TITLE = re.compile(r"<title>.*?</title>", re.DOTALL)


class ReplayShare:
    """The replay page with its preview, and the preview picture; ``root`` is the
    web client's folder (None: no page installed); the replays are the hub's."""

    def __init__(self, root: str | None, hub: Hub, pictures: PictureCache) -> None:
        self.root = root
        self.hub = hub
        self.pictures = pictures

    async def page(self, request: Request) -> Response:
        replay_id = request.path_params["replay_id"]
        status, race = await self._replay(replay_id)
        if status == 404:
            raise HTTPException(404)
        if status not in (200, 403):
            return PlainTextResponse("storage unavailable; try again", status_code=status)
        page = os.path.join(self.root, "replay.html") if self.root else ""
        if not page or not os.path.exists(page):
            raise HTTPException(404, "No web page is installed.")
        html = page_html(page)
        lang = self._lang(request)
        head = (
            preview_head(summarize(race, lang), self._base(request), replay_id)
            if race is not None
            else f"<title>{PRODUCT}</title>"
        )
        filled = _TITLE.sub(lambda _: head, html, count=1)
        return HTMLResponse(
            filled, status, headers={"Cache-Control": "no-cache", "Vary": "Accept-Language"}
        )

    async def image(self, request: Request) -> Response:
        status, race = await self._replay(request.path_params["replay_id"])
        if race is None:
            raise HTTPException(status if status in (403, 404) else 503)
        svg = render_svg(race, summarize(race, self._lang(request)))
        return Response(
            svg,
            media_type="image/svg+xml",
            headers={"Cache-Control": IMAGE_CACHE, "Vary": "Accept-Language"},
        )

    async def png(self, request: Request) -> Response:
        replay_id = request.path_params["replay_id"]
        status, race = await self._replay(replay_id)
        if race is None:
            raise HTTPException(status if status in (403, 404) else 503)
        summary = summarize(race, self._lang(request))
        return await png_response(
            self.pictures, ("replay", replay_id, summary.lang), lambda: render_png(race, summary)
        )

    async def _replay(self, replay_id: str) -> tuple[int, dict[str, Any] | None]:
        """(status, the replay's body or None), as ``GET /replay/<id>`` answers."""
        try:
            status, body = await self.hub.replay(replay_id)
        except (RedisError, OSError, ProtocolError):
            return 503, None
        if status != 200:
            return status, None
        return status, json.loads(body) if isinstance(body, bytes) else dict(body)

    @staticmethod
    def _lang(request: Request) -> str:
        return language(request.query_params.get("lang"), request.headers.get("accept-language"))

    @staticmethod
    def _base(request: Request) -> str:
        return str(request.base_url).rstrip("/")


async def png_response(
    pictures: PictureCache,
    key: tuple[str, ...],
    paint: Callable[[], bytes],
    cache: str = IMAGE_CACHE,
) -> Response:
    """A PNG from ``pictures`` (painted once per key), or 503 while too many wait."""
    body = await pictures.get(key, paint)
    if body is None:
        return PlainTextResponse(
            "busy painting previews; try again",
            503,
            headers={"Retry-After": str(BUSY_RETRY_S), "Cache-Control": "no-store"},
        )
    return Response(
        body, media_type="image/png", headers={"Cache-Control": cache, "Vary": "Accept-Language"}
    )


def preview_head(summary: Summary, base: str, replay_id: str) -> str:
    """The page's title and its link preview tags, every value escaped."""
    url = f"{base}{PAGE_PATH}{quote(replay_id)}"
    title = f"{summary.title} - {PRODUCT}"
    alt = summary.word("final_of", name=summary.featured)
    return head_tags(title, summary.description, url, summary.lang, alt)


def head_tags(title: str, description: str, url: str, lang: str, alt: str) -> str:
    """A shared page's title, description and link preview tags: its picture is
    ``<url>.png`` (``.svg`` beside it), every value escaped."""
    query = f"?lang={lang}" if lang != "en" else ""
    image = f"{url}.png{query}"
    tags = {
        ("name", "description"): description,
        ("property", "og:type"): "website",
        ("property", "og:site_name"): PRODUCT,
        ("property", "og:locale"): LOCALES[lang],
        ("property", "og:title"): title,
        ("property", "og:description"): description,
        ("property", "og:url"): url,
        ("property", "og:image"): image,
        ("property", "og:image:type"): "image/png",
        ("property", "og:image:width"): str(WIDTH),
        ("property", "og:image:height"): str(HEIGHT),
        ("property", "og:image:alt"): alt,
        ("name", "twitter:card"): "summary_large_image",
        ("name", "twitter:title"): title,
        ("name", "twitter:description"): description,
        ("name", "twitter:image"): image,
    }
    lines = [f"<title>{escape(title)}</title>"]
    lines += [
        f'<meta {kind}="{key}" content="{escape(value)}">' for (kind, key), value in tags.items()
    ]
    lines.append(f'<link rel="canonical" href="{escape(url)}">')
    lines.append(f'<link rel="alternate" type="image/svg+xml" href="{escape(url)}.svg{query}">')
    return "\n".join(lines)
