"""Prometheus metrics of one server process (``transport.app`` serves ``/metrics``).

Each process keeps its own registry (not the library's global one, so
several apps in one test process never collide) and is scraped on its
own port: with N replicas, Prometheus scrapes N targets and sums them.
The app calls the small functions below at the few places where things
happen, so its own code stays one line per event.
"""

from __future__ import annotations

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    generate_latest,
)

__all__ = [
    "REGISTRY",
    "CONNECTED_CLIENTS",
    "ROOMS",
    "MOVES",
    "MOVE_LATENCY",
    "BROADCASTS",
    "BROADCAST_FANOUT",
    "REDIS_ERRORS",
    "LEADERBOARD_LATENCY",
    "ROOMS_BY_PHASE",
    "SOLVER_WAITING",
    "SOLVER_RUNNING",
    "SOLVER_OWNERS",
    "REDIS_MEMORY",
    "ARENA_HEAT_SCORED",
    "ARENA_HEAT_REDIS_CALLS",
    "arena_heat_scored",
    "set_instance",
    "client_connected",
    "client_disconnected",
    "set_rooms",
    "move_done",
    "broadcast",
    "redis_error",
    "background_restart",
    "leaderboard_sent",
    "set_rooms_by_phase",
    "set_solver",
    "set_redis_memory",
    "exposition",
]

REGISTRY = CollectorRegistry(auto_describe=True)

CONNECTED_CLIENTS = Gauge(
    "canfield_connected_clients",
    "WebSocket connections open on this process.",
    registry=REGISTRY,
)
ROOMS = Gauge(
    "canfield_rooms",
    "Rooms with at least one connection on this process.",
    registry=REGISTRY,
)
MOVES = Counter(
    "canfield_moves",
    "Board actions (move, tap, undo, give up) by outcome.",
    ["outcome"],
    registry=REGISTRY,
)
MOVE_LATENCY = Histogram(
    "canfield_move_latency_seconds",
    "From a board action's arrival to its ack or error, on this process.",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    registry=REGISTRY,
)
BROADCASTS = Counter(
    "canfield_broadcast_messages",
    "Messages sent to local connections by room broadcasts.",
    registry=REGISTRY,
)
BROADCAST_FANOUT = Histogram(
    "canfield_broadcast_fanout",
    "Local connections one room event was sent to.",
    buckets=(0, 1, 2, 4, 8, 16, 32, 64, 128, 256),
    registry=REGISTRY,
)
REDIS_ERRORS = Counter(
    "canfield_redis_errors",
    "Redis calls that failed (connection lost, timeout, cluster errors).",
    ["operation"],
    registry=REGISTRY,
)
BACKGROUND_RESTARTS = Counter(
    "canfield_background_restarts",
    "Background loops (presence, bus, pools, sweeps) restarted after a failure.",
    ["task"],
    registry=REGISTRY,
)
LEADERBOARD_LATENCY = Histogram(
    "canfield_leaderboard_latency_seconds",
    "From the first change to a room's standings to the leaderboard that shows it.",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.5, 5.0),
    registry=REGISTRY,
)
ARENA_HEAT_SCORED = Histogram(
    "canfield_arena_heat_scored_seconds",
    "Scoring one finished arena heat into the standing (its seats, berserks, one script).",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
    registry=REGISTRY,
)
ARENA_HEAT_REDIS_CALLS = Counter(
    "canfield_arena_heat_redis_calls",
    "Redis calls made scoring finished arena heats.",
    registry=REGISTRY,
)
#: a room's phase is one of three, so the label stays bounded
ROOMS_BY_PHASE = Gauge(
    "canfield_rooms_by_phase",
    "Rooms with a connection on this process, by phase (lobby, racing, finished).",
    ["phase"],
    registry=REGISTRY,
)
SOLVER_WAITING = Gauge(
    "canfield_solver_waiting_jobs",
    "Solver jobs (pool refills, hints, pars) waiting for a worker on this process.",
    registry=REGISTRY,
)
SOLVER_RUNNING = Gauge(
    "canfield_solver_running_jobs",
    "Solver jobs holding a worker on this process.",
    registry=REGISTRY,
)
SOLVER_OWNERS = Gauge(
    "canfield_solver_waiting_owners",
    "Rooms, askers and the deal pool with solver jobs waiting on this process.",
    registry=REGISTRY,
)
REDIS_MEMORY = Gauge(
    "canfield_redis_used_memory_bytes",
    "Memory Redis reports in use (INFO memory), as this process last read it.",
    registry=REGISTRY,
)
INSTANCE = Info("canfield_instance", "Which server process this is.", registry=REGISTRY)

# both outcomes exist from the start, so a scrape shows 0 rather than nothing;
# bound once, as ``.labels()`` per message is a dict lookup under a lock
_ACCEPTED = MOVES.labels("accepted")
_REJECTED = MOVES.labels("rejected")


def set_instance(name: str) -> None:
    INSTANCE.info({"instance": name})


def client_connected() -> None:
    CONNECTED_CLIENTS.inc()


def client_disconnected() -> None:
    CONNECTED_CLIENTS.dec()


def set_rooms(count: int) -> None:
    ROOMS.set(count)


def move_done(accepted: bool, seconds: float) -> None:
    """One board action answered: ``accepted`` is an ack, else an error."""
    (_ACCEPTED if accepted else _REJECTED).inc()
    MOVE_LATENCY.observe(seconds)


def broadcast(recipients: int) -> None:
    """One room event delivered to ``recipients`` local connections."""
    BROADCAST_FANOUT.observe(recipients)
    BROADCASTS.inc(recipients)


def redis_error(operation: str) -> None:
    REDIS_ERRORS.labels(operation).inc()


def background_restart(task: str) -> None:
    BACKGROUND_RESTARTS.labels(task).inc()


def leaderboard_sent(seconds: float) -> None:
    """A leaderboard went out ``seconds`` after the first change it shows."""
    LEADERBOARD_LATENCY.observe(seconds)


def arena_heat_scored(seconds: float, redis_calls: int) -> None:
    """An arena heat was scored in ``seconds`` with ``redis_calls`` calls."""
    ARENA_HEAT_SCORED.observe(seconds)
    ARENA_HEAT_REDIS_CALLS.inc(redis_calls)


def set_rooms_by_phase(counts: dict[str, int]) -> None:
    for phase, count in counts.items():
        ROOMS_BY_PHASE.labels(phase).set(count)


def set_solver(waiting: int, running: int, owners: int) -> None:
    SOLVER_WAITING.set(waiting)
    SOLVER_RUNNING.set(running)
    SOLVER_OWNERS.set(owners)


def set_redis_memory(used_bytes: int) -> None:
    REDIS_MEMORY.set(used_bytes)


def exposition() -> tuple[bytes, str]:
    """The scrape: every metric in Prometheus's text format, and its media type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
