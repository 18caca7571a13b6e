"""Server settings: one dataclass, filled from flags and ``CANFIELD_*`` env vars.

Every tunable lives here with its default, so ``docs/operations.md`` can
list them from one place and tests can build a server with exact limits.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path

__all__ = ["Settings"]


def _default_data_dir() -> Path:
    return Path(os.environ.get("CANFIELD_DATA_DIR", "./canfield-data"))


@dataclass
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    #: None -> start the bundled redis-server under ``data_dir``
    redis_url: str | None = None
    data_dir: Path = field(default_factory=_default_data_dir)
    #: rooms and all their keys expire after this long without activity
    room_ttl_s: int = 6 * 3600
    countdown_s: float = 3.0
    max_frame_bytes: int = 4096
    max_players_per_room: int = 16
    max_spectators_per_room: int = 200
    #: rooms one client address may hold open at once: created from it, its race
    #: not over and a person still in it (``room.rules.room_open``); a school or an
    #: office behind one address makes many. 0: no limit
    max_open_rooms_per_ip: int = 30
    #: rooms one client address may create in any minute (a burst); 0: no limit
    max_new_rooms_per_ip_per_min: int = 10
    #: token bucket per connection: sustained messages/s and burst
    rate_per_s: float = 50.0
    rate_burst: int = 100
    #: frames queued for one connection before it counts as too slow and is dropped
    max_queued_frames: int = 512
    #: frames refused by the rate limit that a connection may still send (refilling
    #: at one a second) before it counts as a flood and is closed with 1008
    abuse_refusals: int = 20
    #: leaderboard broadcasts per room per second, at most (12: a busy room's
    #: leaderboard shows a move within 100 ms, docs/performance.md issue 38)
    leaderboard_hz: float = 12.0
    #: membership announcements (joins, leaves, presence, ready) per room per
    #: second, at most; a change of the race or its host goes out at once
    room_updates_hz: float = 4.0
    #: a player whose connections all dropped may come back this long; then their
    #: seat is given up (mid-race: out of the race, ranked by their progress)
    away_grace_s: float = 60.0
    #: WebSocket handshakes one client address may make at once, and then per
    #: second; past them an upgrade is refused before it is accepted (HTTP 403),
    #: so a client churning connections costs the server next to nothing; 0: no
    #: limit. The addresses in ``handshakes_exempt`` (this host: its own bots,
    #: local tools) are not limited
    handshakes_per_ip_burst: int = 30
    handshakes_per_ip_per_s: float = 2.0
    handshakes_exempt: tuple[str, ...] = ("127.0.0.1", "::1")
    #: the same budget counts new TCP connections of peers that are not trusted
    #: proxies; one past it is held this long, unread, before its 503 (a client
    #: churning in a loop waits instead of being refused as fast as it asks)
    refusal_delay_s: float = 1.0
    #: joins one client address may make at once, and then per second
    joins_per_ip_burst: int = 30
    joins_per_ip_per_s: float = 0.5
    #: arenas (``room/arena.py``): each process looks at its arenas every ``tick_s``
    #: (heats formed, racers seated, pages told of a change at most this often)
    arena_tick_s: float = 1.0
    #: racers who finish a moment apart race together: a heat forms once the longest
    #: waiter has waited this long (at once when a full heat waits); a heat is at
    #: least a pair, so a racer waiting alone waits for the next finisher
    arena_gather_s: float = 3.0
    #: a heat's time limit; no heat starts in an arena's last ``arena_last_heat_s``
    arena_heat_limit_s: int = 300
    arena_last_heat_s: float = 60.0
    #: a heat starts once every racer put in it is seated, or this long after it formed
    arena_seat_wait_s: float = 3.0
    #: rows of the standing on an arena's page (each racer also sees their own)
    arena_standing_rows: int = 30
    #: an arena's keys live this long past its end
    arena_keep_s: int = 7 * 24 * 3600
    #: public arenas the server makes (``room/arena_schedule.py``): entries
    #: ``EVERY@HH:MM/DRAW/MINUTES`` (every EVERY minutes from HH:MM UTC, Draw DRAW,
    #: MINUTES long) separated by ``;``; ``off``: none. As shipped: an hourly Draw 3
    #: arena on the hour for 30 minutes, and a daily Draw 1 one at 19:30 UTC
    public_arenas: str = "60@00:00/3/30;1440@19:30/1/30"
    #: a public arena is made (and announced on the home page) this long before it starts
    public_arena_lead_s: float = 3600.0
    #: racers in one public race (``quick``), at most; one more opens the next race
    quick_max_racers: int = 8
    #: a racer waiting alone this long in a public race is offered a bot race (at
    #: once by default: the waiting screen offers it from the first second)
    quick_bot_offer_s: float = 0.0
    #: rating bands (points of the shown scale, ``room.ratings``): a gathering public
    #: race takes racers this close to its first racer's rating, ``widen_points``
    #: more for every ``widen_s`` it waits, at most ``most_points``
    quick_band_points: int = 100
    quick_band_widen_points: int = 100
    quick_band_widen_s: float = 5.0
    quick_band_most_points: int = 1000
    #: ``quick`` requests one identity, and one client address, may make at once,
    #: and then per second
    quick_burst: int = 10
    quick_per_s: float = 0.2
    #: public races in progress ``GET /api/live`` lists, at most
    live_max: int = 50
    #: presence heartbeat period; a process silent for 3 periods counts as gone
    presence_s: float = 5.0
    #: how often the server measures each racer's round trip (an ``rtt_ping`` to
    #: every racer's connection that asked for them, from one timer); 0: never
    rtt_ping_s: float = 4.0
    #: a Redis call finding all 256 pooled connections busy waits this long for
    #: one before it fails (a crowd leaving at once waits its turn)
    redis_pool_wait_s: float = 10.0
    #: how often each process looks for rooms whose timer is due (a time limit,
    #: a grace time, a room whose serving processes went silent), so races end
    #: on time with nobody connected; 0: never
    timer_sweep_s: float = 1.0
    #: empty -> any Origin (and none) is accepted
    allowed_origins: tuple[str, ...] = ()
    log_json: bool = False
    #: solver worker processes (winnable-only deal pool, par, hints)
    solver_workers: int = 1
    #: proven winnable deal codes kept per draw mode (0: no background refill)
    pool_target: int = 20
    #: one pool solve; a code not won by then is skipped (most wins take milliseconds)
    pool_solve_timeout_s: float = 0.25
    #: codes tried at once when a pool is empty and a race starts
    pool_attempts: int = 8
    #: how long a start waits for a proven winnable deal (an empty pool, a busy
    #: solver) before it deals any random one: a race is never held up for long
    proven_deal_wait_s: float = 2.0
    #: a par solve (from the start of a race); past it par is unknown
    par_timeout_s: float = 2.0
    hint_timeout_s: float = 1.0
    #: hints one room may have in the works at once, and how long one waits for
    #: its turn at the workers before it is "no hint now"
    hints_per_room: int = 2
    hint_wait_s: float = 3.0
    #: how long the end of a race waits for a par still being solved
    par_wait_s: float = 1.0
    #: par solves in flight per process; past it a deal's par stays unknown
    max_par_solves: int = 4
    #: one solve per code when a race waits for a proven deal
    pool_demand_solve_s: float = 1.0
    #: how often an idle refill loop looks at the pools again (other processes take codes)
    pool_poll_s: float = 2.0
    #: a finished race's review (where each racer's win slipped away): one solver
    #: question at most this long (processor time); past it the review says
    #: "not decided in the time allowed"
    review_call_s: float = 3.0
    #: how long one question waits for its room's turn at the workers before it
    #: asks again (a busy server reviews later, never at another room's expense) ...
    review_wait_s: float = 30.0
    #: ... and how many times; then the review is dropped (the next request for it
    #: starts it again)
    review_tries: int = 10
    #: a reviewed slip's lesson (``canfield.lesson``: a short winning line from
    #: before the slip, and what the slip gave up): one more job of at most this
    #: long (processor time), in the same turns; past its bound the line found
    #: so far is shown, "a shorter one may exist"
    review_line_s: float = 2.0
    #: lines one process reviews at once; past it a request is told "pending" and
    #: its review starts on a later request
    review_max_lines: int = 64
    #: a finished racer's integrity signals (``solving.integrity``): one solver
    #: question of its agreement at most this long (processor time) ...
    integrity_call_s: float = 2.0
    #: ... at most this many questions per racer ...
    integrity_calls: int = 40
    #: ... and this much solver time in all per racer
    integrity_seconds: float = 20.0
    #: how long one question waits for the race's turn at the workers; past it
    #: the agreement stands on the moves checked so far
    integrity_wait_s: float = 120.0
    #: won lines one process checks against the solver at once; past it a line's
    #: agreement is not asked for (its timing signals are still kept)
    integrity_max_lines: int = 64
    #: the flag rule (``room.integrity.flag``): the least solver agreement that
    #: flags a won line ...
    flag_agreement: float = 0.9
    #: ... over at least this many checked choices ...
    flag_min_checked: int = 15
    #: ... with its net line at most this many moves over par
    flag_net_over_par: int = 10
    #: solver workers run below the server's priority: the event loop comes first
    solver_niceness: int = 10
    #: joins naming a room that does not exist, per client address: a burst for
    #: typos, then this many a second, so codes cannot be enumerated by guessing
    room_misses_burst: int = 20
    room_misses_per_s: float = 0.2
    #: bots the host may add to one room, and bots one server process runs
    max_bots_per_room: int = 8
    max_bots: int = 64
    #: the shortest pause a bot takes before each move (bots play like people)
    bot_pace_s: float = 0.5
    #: the daily race's secret (each day's deal comes from it and the date);
    #: empty: one is generated once and kept in Redis, shared by every replica
    daily_secret: str | None = None
    #: the test clock: the UTC date (YYYY-MM-DD) the server takes for today;
    #: empty: the real one
    daily_date: str | None = None
    #: a day's daily standings, boards and replays are kept this long
    daily_retention_days: int = 30
    #: one solve of a daily candidate deal (a code not won by then is passed over)
    daily_solve_timeout_s: float = 2.0
    #: candidate codes tried for a day's deal before the daily race is unavailable
    daily_candidates: int = 64
    #: prove today's and tomorrow's daily deals in the background (checked this
    #: often), so the day's first player does not wait for the proof; 0: off
    daily_ahead_every_s: float = 3600.0
    #: an identity's finished races (and room replays) are kept this long ...
    history_retention_days: int = 90
    #: ... and at most this many races per identity
    history_max_races: int = 500
    #: a challenge link (``/c/<id>``) lives this many days from when it was made,
    #: its standing with it ...
    challenge_days: int = 30
    #: ... which keeps this many takers (each their best; past it the worst goes)
    challenge_standing: int = 50
    #: challenge links one identity may make in an hour ...
    challenges_per_hour: int = 20
    #: ... and one network (``identity_v4_bits``/``identity_v6_bits``); 0: no limit
    challenges_per_network_hour: int = 60
    #: a new identity (``identify`` with no token) lives this long unless it
    #: finishes a race (a room race, a public race, a daily); one that does gets
    #: ``history_retention_days`` from its last use
    new_identity_ttl_s: int = 86_400
    #: new identities one network may have: a token bucket of ``identity_burst``
    #: (a family's or a classroom's devices at once), refilled at
    #: ``identity_per_hour``; past it ``identify`` with no token is refused
    #: (``too-many-identities``, with when to try again). 0 burst: no limit.
    #: Addresses without one (in-process peers) and this host's own
    #: (``handshakes_exempt``: its bots and local tools) are not counted
    identity_burst: int = 40
    identity_per_hour: float = 30.0
    #: the network an address counts in for identities (``identifiers.address_prefix``):
    #: an IPv4 /24, an IPv6 /64 (one household's or one site's block)
    identity_v4_bits: int = 24
    identity_v6_bits: int = 64
    #: public races: rated races an identity needs before it shows on a ladder
    #: (a newcomer's rating is too uncertain to rank, and cannot be farmed)
    rating_min_races: int = 5
    #: ... against at least this many distinct opponents (identities), so a farm
    #: of a few feeder identities never puts anyone on the ladder
    rating_min_opponents: int = 5
    #: ... and the rating points kept per identity and draw mode (``/me``'s chart)
    rating_history_max: int = 200
    #: fair play (docs/security.md): the daily standing ranks an identity only once
    #: it was issued at least this many days (24 h each) before it starts the
    #: daily (a new identity lives a day unless it finishes a race, so in practice:
    #: one that finished a race on an earlier day); younger ones play unranked
    #: ("new-identity"); 0: every identity is ranked
    daily_ranked_after_days: int = 1
    #: fair play (docs/security.md): public races one pair of identities is rated
    #: together per UTC day (past it, neither of the pair is rated); 0: no cap
    fair_play_pair_per_day: int = 3
    #: a public racer who left (or dropped) before their first move, or made no
    #: move after this many seconds from the start, is not rated (their leaving
    #: is nobody's win); 0: only before the first move
    fair_play_left_early_s: float = 15.0
    #: slow clients (transport/guard.py, admission.py, ws_protocol.py, ws.py). A request's line and
    #: headers - a WebSocket's upgrade request included - must arrive within this
    #: many seconds of the connection (or of the next request's first byte on a
    #: kept-alive one), else 408 and closed; 0: no limit
    header_timeout_s: float = 10.0
    #: open TCP connections per peer address (WebSockets included); past it a new
    #: one is answered 503 and closed. Counted at accept, so per *peer*: the
    #: trusted proxies (which cap per client themselves) are not capped; 0: no cap
    max_conns_per_ip: int = 64
    #: the reverse proxies whose ``X-Forwarded-For`` names the client: addresses
    #: or networks, comma-separated ("172.30.80.10", "10.0.0.0/8"); every limit
    #: per address then counts the address the proxy saw, and any other peer's
    #: header is ignored. The default is this host (a proxy beside the server,
    #: and the server's own bots, which connect from there); "none": no proxy at
    #: all. Falls back to uvicorn's ``FORWARDED_ALLOW_IPS``. "*" trusts every
    #: peer: any client that reaches the server directly picks its own address
    trusted_proxies: str = "127.0.0.1"
    #: a WebSocket in no room that sends nothing (not even ``ping``) this long is
    #: closed with 1008; 0: never
    ws_idle_s: float = 120.0
    #: the same for a connection in a room; 0 (the default): never, since today's
    #: clients stay silent while they only listen (a spectator, a bot in a lobby)
    ws_idle_member_s: float = 0.0
    #: the operator console (``/admin`` and ``/admin/api/...``) answers only with
    #: ``Authorization: Bearer <this>``; empty (the default): no console at all (404).
    #: Make it long and random (``openssl rand -hex 32``); it is never logged
    admin_token: str | None = None
    #: a server-process name for logs and metrics
    instance: str = field(default_factory=lambda: f"{os.uname().nodename}-{os.getpid()}")

    @property
    def presence_stale_ms(self) -> int:
        """A process silent this long (three heartbeats) counts as gone."""
        return int(self.presence_s * 3 * 1000)

    def own_addresses(self) -> frozenset[str]:
        """Where this server's own bots connect from - the exempt addresses (this
        host) and the address it listens on - so no per-address budget counts them."""
        listening = {self.host} if self.host not in ("0.0.0.0", "::", "") else set()
        return frozenset(self.handshakes_exempt) | listening

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: object) -> Settings:
        """Defaults, then ``REDIS_URL`` / ``CANFIELD_<FIELD>`` env vars, then overrides."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for f in fields(cls):
            raw = env.get(f"CANFIELD_{f.name.upper()}")
            if f.name == "redis_url":
                raw = env.get("REDIS_URL", raw)
            if f.name == "trusted_proxies" and raw is None:
                raw = env.get("FORWARDED_ALLOW_IPS")
            if raw is None or raw == "":
                continue
            values[f.name] = _convert(f.type, raw)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]


def _convert(kind: object, raw: str) -> object:
    kind = str(kind)
    if kind.startswith("int"):
        return int(raw)
    if kind.startswith("float"):
        return float(raw)
    if kind.startswith("bool"):
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if kind.startswith("Path"):
        return Path(raw)
    if kind.startswith("tuple"):
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    return raw
