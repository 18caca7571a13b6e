"""The HTTP endpoints (the WebSocket has its own module, ``ws``).

``Endpoints`` is built in ``app.create_app`` with the services it answers
from, each typed. ``Pages`` serves the web client's files, found through
the client package's entry point (``web_root``), never imported.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Awaitable, Callable
from importlib.metadata import entry_points
from importlib.util import find_spec

from canfield_protocol import ErrorCode, ProtocolError, encode
from redis.exceptions import RedisError
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import Scope

from canfield_server.ops import metrics
from canfield_server.ops.clock import now_ms
from canfield_server.room.hub import Hub
from canfield_server.solving.reviews import LineReviews
from canfield_server.storage.embedded_redis import EmbeddedRedis
from canfield_server.storage.store import RedisStore
from canfield_server.transport.drain import Drain
from canfield_server.transport.page_head import page_html

__all__ = [
    "web_root",
    "Pages",
    "RevalidatedFiles",
    "hidden_page",
    "metrics_endpoint",
    "Endpoints",
]


def web_root() -> str | None:
    """The web page's folder, as a package advertises it (the client, in the
    ``canfield_race.web`` entry point: ``package.folder``), found without
    importing that package's code; None if no installed package offers one."""
    for entry in entry_points(group="canfield_race.web"):
        package, _, folder = entry.value.partition(".")
        spec = find_spec(package)
        for base in (spec.submodule_search_locations or []) if spec else []:
            root = os.path.join(base, *folder.split("."))
            if os.path.isdir(root):
                return root
    return None


class RevalidatedFiles(StaticFiles):
    """The page's files with their ``ETag``, kept by browsers but checked again on
    every use (``no-cache``): an unchanged file costs a 304, a new release is
    seen at once. A page (``.html``) comes with its head filled in (``page_head``),
    its ``ETag`` the filled page's."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        # a missing file's 404.html comes as a plain FileResponse, past file_response
        if isinstance(response, FileResponse) and str(response.path).endswith(".html"):
            return self.page(str(response.path), response.status_code, scope)
        return response

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        if str(full_path).endswith(".html"):
            return self.page(str(full_path), status_code, scope)
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = "no-cache"
        return response

    def page(self, full_path: str, status_code: int, scope: Scope) -> Response:
        """A page, its head filled in; unchanged since the browser's copy: a 304."""
        page = page_html(full_path)
        tag = hashlib.blake2b(page.encode(), digest_size=16).hexdigest()
        headers = Headers({"Cache-Control": "no-cache", "ETag": f'"{tag}"'})
        if status_code == 200 and self.is_not_modified(headers, Headers(scope=scope)):
            return NotModifiedResponse(headers)
        return HTMLResponse(page, status_code, headers=dict(headers))


class Pages:
    """The web client's pages from its folder (``root``; None: no page installed)."""

    def __init__(self, root: str | None) -> None:
        self.root = root

    async def share_link(self, request: Request) -> Response:
        """``/r/<code>`` (and ``/`` without a page): the page, which reads the code."""
        root = self.root
        if root and os.path.exists(os.path.join(root, "index.html")):
            return HTMLResponse(page_html(os.path.join(root, "index.html")))
        return HTMLResponse("<!doctype html><title>Canfield Race</title><p>Canfield Race")

    async def not_found(self, request: Request, exc: Exception) -> Response:
        """Any route's 404 (an unknown replay, a path no route serves): the page
        that helps, ``404.html``, in the reader's language, with the status."""
        page = os.path.join(self.root, "404.html") if self.root else ""
        if page and os.path.exists(page):
            return HTMLResponse(page_html(page), 404, headers={"Cache-Control": "no-cache"})
        return HTMLResponse("<!doctype html><title>Canfield Race</title><p>Not found.", 404)

    def page(self, name: str) -> Callable[[Request], Awaitable[Response]]:
        """A page of the web client by its file (the daily race, my races)."""

        root = self.root

        async def serve(request: Request) -> Response:
            if root and os.path.exists(os.path.join(root, name)):
                page = page_html(os.path.join(root, name))
                return HTMLResponse(page, headers={"Cache-Control": "no-cache"})
            return HTMLResponse(
                "<!doctype html><title>Canfield Race</title><p>No web page is installed.", 404
            )

        return serve


async def metrics_endpoint(request: Request) -> Response:
    body, media_type = metrics.exposition()
    return Response(body, media_type=media_type)


async def hidden_page(request: Request) -> Response:
    """A path that exists as a file but is not served there (the 404 page answers)."""
    raise HTTPException(404)


class Endpoints:
    """The HTTP API, built by ``create_app`` with what it answers from: the hub,
    the room store (for ``/healthz``'s ping), the line reviews, the drain, and
    the embedded redis-server when ``serve`` runs one."""

    def __init__(
        self,
        hub: Hub,
        store: RedisStore,
        reviews: LineReviews,
        drain: Drain,
        embedded_redis: EmbeddedRedis | None = None,
    ) -> None:
        self.hub = hub
        self.store = store
        self.reviews = reviews
        self.drain = drain
        self.embedded_redis = embedded_redis

    async def healthz(self, request: Request) -> Response:
        if self.drain.draining:  # the proxy sends new clients elsewhere
            return JSONResponse({"ok": False, "draining": True}, status_code=503)
        # the embedded redis-server died and is being restarted: say so at once
        # rather than wait out the client's reconnect retries
        embedded = self.embedded_redis
        if embedded is not None and embedded.restarting:
            return JSONResponse({"ok": False, "redis": "restarting"}, status_code=503)
        try:
            ok = await self.store.ping()
        except (RedisError, OSError):
            ok = False
        return JSONResponse({"ok": ok}, status_code=200 if ok else 503)

    async def replay(self, request: Request) -> Response:
        """A finished race's replay: deal, players, every move (JSON)."""
        try:
            status, body = await self.hub.replay(request.path_params["replay_id"])
        except (RedisError, OSError):
            return JSONResponse({"error": "storage unavailable; try again"}, status_code=503)
        except ProtocolError as exc:
            return JSONResponse({"error": exc.message}, status_code=503)
        if isinstance(body, bytes):
            return Response(body, status_code=status, media_type="application/json")
        return JSONResponse(body, status_code=status)

    async def live(self, request: Request) -> Response:
        """``GET /api/live``: public races in progress (racers, names, elapsed time,
        leader); never a private room, never a card."""
        try:
            races = await self.hub.live_races()
        except (RedisError, OSError):
            return JSONResponse({"error": "storage unavailable; try again"}, status_code=503)
        except ProtocolError as exc:
            return JSONResponse({"error": exc.message}, status_code=503)
        return Response(
            encode({"races": races, "server_time": now_ms()}),
            media_type="application/json",
            headers={"Cache-Control": "no-store"},
        )

    async def arenas(self, request: Request) -> Response:
        """``GET /api/arenas``: the public arenas running now, then the next ones
        (the home page's announcement)."""
        try:
            listed = await self.hub.public_arenas()
        except (RedisError, OSError):
            return JSONResponse({"error": "storage unavailable; try again"}, status_code=503)
        return Response(
            encode(listed), media_type="application/json", headers={"Cache-Control": "no-store"}
        )

    async def replay_review(self, request: Request) -> Response:
        """Every racer's review of a finished race (``solving.reviews``): only for a
        replay ``/replay/<id>`` serves, so never before the race is over for everyone
        (a daily one: its day). An unknown id is a 404 and starts nothing."""
        try:
            found = await self.hub.replay(request.path_params["replay_id"])
            status, body = await self.reviews.of_replay(*found)
        except (RedisError, OSError):
            return JSONResponse({"error": "storage unavailable; try again"}, status_code=503)
        except ProtocolError as exc:
            return JSONResponse({"error": exc.message}, status_code=503)
        if isinstance(body, dict):
            return JSONResponse(body, status_code=status)
        headers = {"Cache-Control": "no-cache"}
        return Response(encode(body), media_type="application/json", headers=headers)

    async def history_download(self, request: Request) -> Response:
        """An identity's whole history as JSON; the token in ``X-Canfield-Identity``."""
        token = request.headers.get("x-canfield-identity", "")
        try:
            found = await self.hub.export_history(token)
        except ProtocolError as exc:
            status = 401 if exc.code == ErrorCode.BAD_IDENTITY else 503
            return JSONResponse({"error": exc.message, "code": exc.code}, status_code=status)
        except (RedisError, OSError):
            return JSONResponse({"error": "storage unavailable; try again"}, status_code=503)
        return Response(
            encode(found),
            media_type="application/json",
            headers={
                "Content-Disposition": 'attachment; filename="canfield-history.json"',
                "Cache-Control": "no-store",
            },
        )
