"""The operator console: ``/admin`` (the page) and its JSON API ``/admin/api/...``.

Off - every path 404 - unless ``CANFIELD_ADMIN_TOKEN`` is set. The page
itself holds no data: it asks for the token, keeps it in the tab's
``sessionStorage`` and calls the API, where every request must carry
``Authorization: Bearer <token>`` (compared in constant time; 401
otherwise). Every wrong token counts against its address's budget, and
past it every request from there is refused (429, the right token too), so
a token cannot be guessed at speed while an operator's own clicks and
polls never run out. The token is never logged:
an action's audit line names the operator by the first characters of the
token's SHA-256 and their address.

What the API shows is read from Redis (``storage.console_store``), so any
process answers for all of them.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from canfield_server.ops.clock import Clock, today
from canfield_server.ops.config import Settings
from canfield_server.ops.logs import event
from canfield_server.ops.ratelimit import PerAddress
from canfield_server.room.hub import Hub
from canfield_server.room.ports import IdentityBudget, IntegrityStore
from canfield_server.room.review import Reviews
from canfield_server.storage.console_store import Blockable, ConsoleStore
from canfield_server.storage.errors import STORAGE_ERRORS
from canfield_server.storage.figures_store import FiguresStore
from canfield_server.transport.drain import DEFAULT_DRAIN_S, MAX_DRAIN_S

__all__ = ["admin_routes"]

log = logging.getLogger(__name__)

#: wrong tokens one address may send: a burst, then per second (a guesser gets two
#: tries a second; an operator's requests with the right token cost nothing)
REQUESTS_BURST = 30
REQUESTS_PER_S = 2.0
#: the longest block and the longest notice, in seconds (a week)
MAX_SECONDS = 7 * 24 * 3600
MAX_NOTICE_CHARS = 280
#: open cases and decisions the review queue lists
REVIEW_LIST = 100
#: a result id (``room.ports.room_result``, ``daily_result``)
_RESULT = re.compile(r"[A-Za-z0-9:_-]{1,100}")
#: result ids one ``GET /admin/api/cases`` reads at most
CASES_AT_ONCE = 100

Endpoint = Callable[[Request], Awaitable[Response]]


def _refused(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status)


class BadInput(ValueError):
    """A request the console refuses (400) with this message; nothing is changed."""


class AdminConsole:
    """The console's endpoints, built by ``create_app`` with what they read and
    change: the console's and the figures' stores, the hub (rooms and members),
    and the integrity review (None: this server keeps none)."""

    def __init__(
        self,
        token: str,
        page: Endpoint,
        clock: Clock,
        *,
        console: ConsoleStore,
        figures: FiguresStore,
        hub: Hub,
        review: Reviews | None,
        integrity: IntegrityStore | None,
        daily_date: str | None = None,
        identity_budget: IdentityBudget | None = None,
    ) -> None:
        self.token = token.encode()
        self.console = console
        self.figures_store = figures
        self.hub = hub
        self.review = review
        self.integrity = integrity
        #: who the audit lines name: the token's hash, never the token
        self.token_id = hashlib.sha256(self.token).hexdigest()[:8]
        self.page_endpoint = page
        self.budget = PerAddress(REQUESTS_PER_S, REQUESTS_BURST, clock)
        #: the date the daily race is on (``CANFIELD_DAILY_DATE`` fixes it in tests)
        self.daily_date = daily_date
        #: each network's budget of new identities (``Settings``)
        self.identity_budget = identity_budget or IdentityBudget(40, 30.0)

    def _address(self, request: Request) -> str:
        return request.client.host if request.client else "-"

    def _authorized(self, request: Request) -> bool:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode(), self.token
        )

    def guarded(self, handler: Endpoint) -> Endpoint:
        """``handler`` behind the budget and the token; storage trouble is a 503."""

        async def endpoint(request: Request) -> Response:
            address = self._address(request)
            if not self.budget.ready(address):
                return _refused(429, "too many requests; slow down")
            if not self._authorized(request):
                self.budget.spend(address)
                return _refused(401, "a valid operator token is required")
            try:
                return await handler(request)
            except BadInput as exc:
                return _refused(400, str(exc))
            except STORAGE_ERRORS as exc:
                return _refused(503, f"storage unavailable: {exc}")

        return endpoint

    def audit(self, request: Request, what: str, **fields: Any) -> None:
        event(
            log,
            "admin.action",
            logging.WARNING,
            who=f"{self.token_id}@{self._address(request)}",
            what=what,
            **fields,
        )

    # ------------------------------------------------------------ reading

    async def overview(self, request: Request) -> Response:
        console = self.console
        return JSONResponse(
            {
                "processes": await console.processes(),
                "rooms": await console.rooms(),
                "blocks": await console.blocks(),
                "notice": await console.notice(),
                "redis": await console.redis_info(),
            }
        )

    async def figures(self, request: Request) -> Response:
        """Each process's moves/s, ack and leaderboard p50/p99 and solver queue,
        and the server's public and daily activity (``storage.figures_store``)."""
        store = self.figures_store
        return JSONResponse(
            {
                "processes": await store.figures(),
                "activity": await store.activity(today(self.daily_date)),
            }
        )

    async def identities(self, request: Request) -> Response:
        """New identities per network (``identifiers.address_prefix``): issued and refused
        in the last hour and day, each budget's state; the most issued first."""
        return JSONResponse(
            {
                "burst": self.identity_budget.burst,
                "per_hour": self.identity_budget.per_hour,
                "networks": await self.console.identity_issuance(self.identity_budget),
            }
        )

    # ------------------------------------------------------------ acting

    async def block(self, request: Request) -> Response:
        body = await _json(request)
        target, seconds = _blockable_of(body), _seconds_of(body)
        await self.console.block(target, seconds, f"{self.token_id}@{self._address(request)}")
        self.audit(request, "block", address=str(target), seconds=seconds)
        return JSONResponse({"blocked": str(target), "seconds": seconds})

    async def unblock(self, request: Request) -> Response:
        target = _blockable_of(await _json(request))
        removed = await self.console.unblock(target)
        self.audit(request, "unblock", address=str(target), was_blocked=removed)
        return JSONResponse({"unblocked": str(target), "was_blocked": removed})

    async def close_room(self, request: Request) -> Response:
        code = _code_of(request)
        if not await self.hub.close_room(code):
            return _refused(404, f"no room {code}")
        # nobody joins a closed room: its keys go (replays and histories stay)
        await self.console.forget_room(code)
        self.audit(request, "close room", room=code)
        return JSONResponse({"closed": code})

    async def remove_member(self, request: Request) -> Response:
        """Remove one member, as the host's kick does; they are told it was the operator."""
        code, member_id = _code_of(request), str(request.path_params["member_id"])
        if not member_id.isalnum() or len(member_id) > 16:
            raise BadInput(f"not a member id: {member_id[:20]!r}")
        removed = await self.hub.remove_member(code, member_id)
        if removed is None:
            return _refused(404, f"no room {code}")
        if not removed:
            return _refused(404, f"no member {member_id} in room {code}")
        self.audit(request, "remove member", room=code, member=member_id)
        return JSONResponse({"removed": member_id, "room": code})

    async def drain(self, request: Request) -> Response:
        """Ask one process (any, through Redis) to drain: it takes it within a second."""
        name = str(request.path_params["name"])
        body = await _json(request) if await request.body() else {}
        seconds = _seconds_of(body, most=MAX_DRAIN_S, default=DEFAULT_DRAIN_S)
        by = f"{self.token_id}@{self._address(request)}"
        if not await self.console.request_drain(name, seconds, by):
            return _refused(404, f"no live process {name[:60]!r}")
        self.audit(request, "drain", process=name, seconds=seconds)
        return JSONResponse({"draining": name, "seconds": seconds})

    async def reviews(self, request: Request) -> Response:
        """The review queue: open flagged cases with their evidence (newest first),
        and the latest decisions."""
        reviews = self.review
        if reviews is None:
            return _refused(404, "this server keeps no integrity review")
        body = {
            "open": await reviews.store.open_cases(REVIEW_LIST),
            "decided": await reviews.store.decided_cases(REVIEW_LIST),
        }
        return Response(msgspec.json.encode(body), media_type="application/json")

    async def cases(self, request: Request) -> Response:
        """Given results' integrity assessments, flagged or not (``?result=ID``, up
        to ``CASES_AT_ONCE`` times): ``{"cases": {ID: case or null}}``, null while
        a result's signals are not recorded yet (``room.assess``)."""
        integrity = self.integrity
        if integrity is None:
            return _refused(404, "this server keeps no integrity review")
        wanted = request.query_params.getlist("result")
        if not 1 <= len(wanted) <= CASES_AT_ONCE:
            raise BadInput(f"result: 1 to {CASES_AT_ONCE} result ids")
        for result in wanted:
            if not _RESULT.fullmatch(result):
                raise BadInput(f"not a result id: {result[:40]!r}")
        body = {"cases": {result: await integrity.case(result) for result in wanted}}
        return Response(msgspec.json.encode(body), media_type="application/json")

    async def decide(self, request: Request) -> Response:
        """Clear or confirm one open case (``room.review``): once; audited."""
        reviews = self.review
        result = str(request.path_params["result"])
        if not _RESULT.fullmatch(result):
            raise BadInput(f"not a result id: {result[:40]!r}")
        decision = (await _json(request)).get("decision")
        if decision not in ("clear", "confirm"):
            raise BadInput("decision: clear or confirm")
        if reviews is None:
            return _refused(404, "this server keeps no integrity review")
        by = f"{self.token_id}@{self._address(request)}"
        decided = await reviews.decide(result, decision == "confirm", by)
        if decided is None:
            return _refused(404, f"no open case {result}: unknown, or decided already")
        self.audit(
            request,
            f"review {decision}",
            result=result,
            racer=decided.public_id or decided.name,
            race=decided.room or decided.date,
        )
        return Response(msgspec.json.encode(decided), media_type="application/json")

    async def notice(self, request: Request) -> Response:
        body = await _json(request)
        text = body.get("text")
        if not isinstance(text, str) or not 0 < len(text.strip()) <= MAX_NOTICE_CHARS:
            raise BadInput(f"text: 1 to {MAX_NOTICE_CHARS} characters")
        seconds = _seconds_of(body)
        posted = await self.console.post_notice(text.strip(), seconds)
        self.audit(request, "notice", text=posted["text"], seconds=seconds)
        return JSONResponse(posted)


async def _json(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise BadInput("the body must be JSON") from None
    if not isinstance(body, dict):
        raise BadInput("the body must be a JSON object")
    return body


def _blockable_of(body: dict[str, Any]) -> Blockable:
    """``address``: one address, or a range in CIDR (host bits are dropped:
    ``10.0.0.7/24`` blocks ``10.0.0.0/24``); a /32 or /128 is the address itself."""
    raw = str(body.get("address")).strip()
    try:
        if "/" not in raw:
            return ipaddress.ip_address(raw)
        network = ipaddress.ip_network(raw, strict=False)
    except ValueError:
        raise BadInput(f"address: not an IP address or CIDR range: {raw[:60]!r}") from None
    if network.num_addresses == 1:
        return network.network_address
    return network


def _code_of(request: Request) -> str:
    code = str(request.path_params["code"]).upper()
    if not code.isalnum() or len(code) > 12:
        raise BadInput(f"not a room code: {code[:20]!r}")
    return code


def _seconds_of(body: dict[str, Any], most: int = MAX_SECONDS, default: int | None = None) -> int:
    seconds = body.get("seconds", default)
    if not isinstance(seconds, int) or isinstance(seconds, bool) or not 0 < seconds <= most:
        raise BadInput(f"seconds: a whole number from 1 to {most}")
    return seconds


def admin_routes(
    settings: Settings,
    page: Endpoint,
    clock: Clock,
    *,
    console: ConsoleStore,
    figures: FiguresStore,
    hub: Hub,
    review: Reviews | None,
    integrity: IntegrityStore | None,
) -> list[BaseRoute]:
    """The console's routes; none when no token is set (every path is then a 404)."""
    if not settings.admin_token:
        return []
    admin = AdminConsole(
        settings.admin_token,
        page,
        clock,
        console=console,
        figures=figures,
        hub=hub,
        review=review,
        integrity=integrity,
        daily_date=settings.daily_date,
        identity_budget=IdentityBudget(settings.identity_burst, settings.identity_per_hour),
    )
    guarded = admin.guarded
    return [
        Route("/admin", admin.page_endpoint, methods=["GET"]),
        Route("/admin/api/overview", guarded(admin.overview), methods=["GET"]),
        Route("/admin/api/figures", guarded(admin.figures), methods=["GET"]),
        Route("/admin/api/identities", guarded(admin.identities), methods=["GET"]),
        Route("/admin/api/block", guarded(admin.block), methods=["POST"]),
        Route("/admin/api/unblock", guarded(admin.unblock), methods=["POST"]),
        Route("/admin/api/notice", guarded(admin.notice), methods=["POST"]),
        Route("/admin/api/rooms/{code}/close", guarded(admin.close_room), methods=["POST"]),
        Route(
            "/admin/api/rooms/{code}/members/{member_id}/remove",
            guarded(admin.remove_member),
            methods=["POST"],
        ),
        Route("/admin/api/processes/{name}/drain", guarded(admin.drain), methods=["POST"]),
        Route("/admin/api/reviews", guarded(admin.reviews), methods=["GET"]),
        Route("/admin/api/cases", guarded(admin.cases), methods=["GET"]),
        Route("/admin/api/reviews/{result}/decide", guarded(admin.decide), methods=["POST"]),
    ]
