"""The Starlette application: the wiring, and a lifespan that starts and closes it.

``create_app(settings)`` builds every part of a server process and hands
each what it uses at construction: the Redis stores, the solver's deal
pool, the bots the client package offers (found through an entry point,
never imported by name), the hub and its room bus, the process's beat,
and the HTTP handlers (``endpoints``, ``ladder``, ``share``, ``admin``:
objects holding their typed services) behind the routes. The lifespan
only starts the background parts and closes everything in turn.
``extra_routes`` adds routes without touching this file's internals.
``/ws`` is served in front of Starlette (``WebSocketFirst``): the hot path.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from importlib.metadata import entry_points

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from canfield_server.ops import metrics
from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.ops.config import Settings
from canfield_server.ops.ratelimit import PerAddress, RateLimiter, TokenBucket
from canfield_server.room.hub import Hub
from canfield_server.room.ports import BotLauncher
from canfield_server.room.rating_races import FairPlay, match_rating_of, public_race_rater
from canfield_server.room.review import Reviews
from canfield_server.solving.daily_deal import DailyDealer
from canfield_server.solving.deal_pool import DealPool
from canfield_server.solving.integrity import LineSignals
from canfield_server.solving.reviews import LineReviews
from canfield_server.storage.arena_store import RedisArenaStore
from canfield_server.storage.challenge_store import RedisChallengeStore
from canfield_server.storage.cluster import redis_client
from canfield_server.storage.console_store import ConsoleStore
from canfield_server.storage.daily_store import RedisDailyStore
from canfield_server.storage.embedded_redis import EmbeddedRedis
from canfield_server.storage.errors import STORAGE_ERRORS
from canfield_server.storage.figures_store import FiguresStore
from canfield_server.storage.history import RedisIdentityStore
from canfield_server.storage.integrity_store import RedisIntegrityStore
from canfield_server.storage.matchmaking import RedisMatchQueue
from canfield_server.storage.pubsub import RedisBus
from canfield_server.storage.rating_store import RedisRatingStore
from canfield_server.storage.store import RedisStore
from canfield_server.transport.admin import admin_routes
from canfield_server.transport.beat import Beat
from canfield_server.transport.challenge_page import ChallengePage
from canfield_server.transport.drain import Drain
from canfield_server.transport.endpoints import (
    Endpoints,
    Pages,
    RevalidatedFiles,
    hidden_page,
    metrics_endpoint,
    web_root,
)
from canfield_server.transport.figures_beat import FiguresBeat
from canfield_server.transport.instance import InstanceHeader, instance_header
from canfield_server.transport.ladder import Ladder
from canfield_server.transport.picture_cache import PictureCache
from canfield_server.transport.process_beat import ProcessBeat
from canfield_server.transport.qr import room_qr
from canfield_server.transport.share import ReplayShare
from canfield_server.transport.ws import WebSocketEndpoint

__all__ = ["WebSocketFirst", "RaceApp", "create_app", "web_root"]

log = logging.getLogger(__name__)


def bot_launcher(ws_url: str) -> BotLauncher | None:
    """The bots a package offers (the client, in the ``canfield_race.bots`` entry
    point: a factory taking the server's WebSocket URL); None if none is installed."""
    for entry in entry_points(group="canfield_race.bots"):
        factory: Callable[[str], BotLauncher] = entry.load()
        return factory(ws_url)
    return None


#: how long one part may take to close at shutdown before the next goes on
CLOSE_PART_S = 5.0


async def close_in_turn(*parts: tuple[str, Callable[[], Awaitable[object]]]) -> None:
    """Close each part, each within ``CLOSE_PART_S``: one that hangs or fails is
    logged by name and the rest still close, so a stop always ends."""
    for name, close in parts:
        try:
            async with asyncio.timeout(CLOSE_PART_S):
                await close()
        except TimeoutError:
            log.error("shutdown: %s did not close within %g s; going on", name, CLOSE_PART_S)
        except Exception:  # noqa: BLE001 - the others must still close
            log.exception("shutdown: closing %s failed; going on", name)


class WebSocketFirst:
    """Hands ``/ws`` straight to its endpoint, everything else to the Starlette app.

    Starlette's middleware wraps the ASGI ``send`` of a WebSocket for its
    whole life, so every frame sent (acks, leaderboards) would pass through
    extra coroutine layers; the endpoint needs none of them (it adds the
    instance header to its handshake itself and catches its own errors).
    """

    def __init__(self, app: ASGIApp, path: str, endpoint: ASGIApp) -> None:
        self.app = app
        self.path = path
        self.endpoint = endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and scope["path"] == self.path:
            await self.endpoint(scope, receive, send)
        else:
            await self.app(scope, receive, send)


class RaceApp(WebSocketFirst):
    """The server's ASGI app, with the parts ``serve`` acts on at a signal: the
    hub (told to shut down) and the drain (started on SIGUSR1)."""

    def __init__(self, app: Starlette, ws: WebSocketEndpoint, hub: Hub, drain: Drain) -> None:
        super().__init__(app, "/ws", ws)
        self.hub = hub
        self.drain = drain


def create_app(
    settings: Settings,
    *,
    extra_routes: Sequence[BaseRoute] = (),
    rate_limiter: Callable[[], RateLimiter] | None = None,
    clock: Clock = SYSTEM,
    embedded_redis: EmbeddedRedis | None = None,
) -> RaceApp:
    """Every part of a server process, built and wired here, each given what it
    uses; the lifespan only starts them and closes them in turn. ``embedded_redis``:
    the redis-server ``serve`` runs (``/healthz`` says when it is restarting)."""
    limiter_factory = rate_limiter or (
        lambda: TokenBucket(settings.rate_per_s, settings.rate_burst, clock)
    )
    origin = os.urandom(6).hex().encode()
    bot_host = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "") else settings.host
    url = settings.redis_url or "redis://127.0.0.1:6379/0"
    redis = redis_client(
        url,
        socket_timeout=5,
        socket_connect_timeout=5,
        max_connections=256,
        health_check_interval=30,
        pool_wait_s=settings.redis_pool_wait_s,
    )
    store = RedisStore(
        redis, url, settings.room_ttl_s, origin, presence_stale_ms=settings.presence_stale_ms
    )
    pool = DealPool(redis, settings)
    daily = RedisDailyStore(redis, url, settings.daily_retention_days)
    identities = RedisIdentityStore(
        redis,
        retention_days=settings.history_retention_days,
        max_races=settings.history_max_races,
        room_ttl_s=settings.room_ttl_s,
        url=url,
        new_ttl_s=settings.new_identity_ttl_s,
    )
    ratings = RedisRatingStore(
        redis,
        retention_days=settings.history_retention_days,
        max_points=settings.rating_history_max,
    )
    integrity = RedisIntegrityStore(redis, retention_days=settings.history_retention_days)
    challenges = RedisChallengeStore(redis)
    #: the review as others see it and the operator's decisions: the hub, the
    #: ladder and the console each get it here
    review = Reviews(integrity, ratings, min_races=settings.rating_min_races, clock=clock)
    dealer = DailyDealer(redis, pool, settings, clock=clock)
    reviews = LineReviews(redis, pool, settings, clock=clock)
    line_signals = LineSignals(pool, settings)
    bus = RedisBus(redis)
    queue = RedisMatchQueue(redis, url)
    hub = Hub(
        store,
        settings,
        clock=clock,
        bus=bus,
        solver=pool,
        bots=bot_launcher(f"ws://{bot_host}:{settings.port}/ws"),
        storage_errors=STORAGE_ERRORS,
        identities=identities,
        challenges=challenges,
        daily=daily,
        daily_deals=dealer,
        queue=queue,
        ratings=public_race_rater(
            ratings,
            identities,
            min_races=settings.rating_min_races,
            min_opponents=settings.rating_min_opponents,
            clock=clock,
            integrity=integrity,
            fair_play=FairPlay.of(settings),
        ),
        match_rating=match_rating_of(ratings),
        integrity=integrity,
        reviews=review,
        signals=line_signals,
        arenas=RedisArenaStore(redis),
    )
    console = ConsoleStore(redis, settings.presence_stale_ms, clock)
    figures = FiguresStore(redis, settings.presence_stale_ms, clock)
    ws = WebSocketEndpoint(
        hub,
        max_frame_bytes=settings.max_frame_bytes,
        allowed_origins=settings.allowed_origins,
        limiter_factory=limiter_factory,
        max_queued_frames=settings.max_queued_frames,
        abuse_refusals=settings.abuse_refusals,
        accept_headers=(instance_header(settings.instance),),
        handshakes=PerAddress(
            settings.handshakes_per_ip_per_s, settings.handshakes_per_ip_burst, clock
        )
        if settings.handshakes_per_ip_per_s > 0
        else None,
        handshakes_exempt=settings.own_addresses(),
        clock=clock,
        blocks=console,
    )
    drain = Drain(ws, clock)
    beat = Beat(
        [
            ProcessBeat(settings.instance, console, ws, hub.sessions, drain, settings.presence_s),
            FiguresBeat(
                settings.instance,
                figures,
                hub.sessions,
                pool.scheduler,
                redis,
                settings.presence_s,
                clock,
            ),
            # one probe of every racer's round trip per period (none at 0)
            *([hub.round_trips] if settings.rtt_ping_s > 0 else []),
            # the timetable's public arenas made, once across processes (none: off)
            *([hub.arenas.public] if hub.arenas and hub.arenas.public.slots else []),
            # the arenas no page here follows driven to their end (their results kept)
            *([hub.arenas.driver] if hub.arenas else []),
        ],
        clock,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        metrics.set_instance(settings.instance)
        bus.start(hub.on_event, hub.resync)
        hub.start()
        if settings.pool_target > 0:
            await pool.start_workers()  # before listening: a Ctrl-C is never lost (deal_pool)
            pool.start()
        dealer.start()
        beat.start()
        try:
            yield
        finally:
            await close_in_turn(
                ("the process beat", beat.stop),
                ("the rooms", hub.shutdown),
                ("the daily deals", dealer.close),
                ("the reviews", reviews.close),
                ("the presence heartbeat", hub.stop),
                ("the solver", pool.close),
                ("the room bus", bus.stop),
                ("the daily store", daily.close),
                ("the match queue", queue.close),
                ("the identity store", identities.close),
                ("the rating store", ratings.close),
                ("the integrity store", integrity.close),
                ("the challenge store", challenges.close),
                ("the room store", store.close),
                ("the Redis pool", redis.aclose),
            )

    root = web_root()
    pages = Pages(root)
    pictures = PictureCache()
    share = ReplayShare(root, hub, pictures)
    challenge_page = ChallengePage(root, hub.challenges, pictures)
    api = Endpoints(hub, store, reviews, drain, embedded_redis)
    ladder = Ladder(hub, ratings, review, settings.rating_min_races)
    admin = admin_routes(
        settings,
        pages.page("admin.html"),
        clock,
        console=console,
        figures=figures,
        hub=hub,
        review=review,
        integrity=integrity,
    )

    routes: list[BaseRoute] = [
        Route("/healthz", api.healthz),
        Route("/api/live", api.live, methods=["GET"]),
        Route("/api/arenas", api.arenas, methods=["GET"]),
        Route("/r/{code}", pages.share_link),
        Route("/r/{code}/qr.svg", room_qr, methods=["GET"]),
        Route("/replay/{replay_id}", api.replay, methods=["GET"]),
        Route("/replay/{replay_id}/review", api.replay_review, methods=["GET"]),
        Route("/replays/{replay_id}.svg", share.image, methods=["GET"]),
        Route("/replays/{replay_id}.png", share.png, methods=["GET"]),
        Route("/replays/{replay_id}", share.page, methods=["GET"]),
        Route("/c/{challenge_id}.png", challenge_page.png, methods=["GET"]),
        Route("/c/{challenge_id}.svg", challenge_page.svg, methods=["GET"]),
        Route("/c/{challenge_id}", challenge_page.page, methods=["GET"]),
        Route("/api/challenge/{challenge_id}", challenge_page.data, methods=["GET"]),
        Route("/history", api.history_download, methods=["GET"]),
        Route("/daily", pages.page("daily.html")),
        Route("/a", pages.page("arena.html")),
        Route("/a/{code}", pages.page("arena.html")),
        Route("/me", pages.page("me.html")),
        # the console's page is served at /admin only, and only when it is on
        Route("/admin.html", hidden_page),
        *admin,
        Route("/ladder", pages.page("ladder.html")),
        Route("/api/ladder", ladder.ladder, methods=["GET"]),
        Route("/api/rating", ladder.my_rating, methods=["GET"]),
        *extra_routes,
        Route("/metrics", metrics_endpoint, methods=["GET"]),
    ]
    if root:
        routes.append(Mount("/", RevalidatedFiles(directory=root, html=True), name="web"))
    else:
        routes.append(Route("/", pages.share_link))
    middleware = [
        Middleware(InstanceHeader, instance=settings.instance),
        # the page's scripts and styles travel compressed (not /ws: it is served
        # in front of the middleware)
        Middleware(GZipMiddleware, minimum_size=512),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=middleware,
        exception_handlers={404: pages.not_found},
    )
    return RaceApp(app, ws, hub, drain)
