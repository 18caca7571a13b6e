"""What the operator console reads and writes in Redis, for every process at once.

The console must show the whole server, not the memory of the process that
answers it: rooms come from their hashes (``cf:{CODE}:room``, found with
SCAN) and presence tables, processes from the table each one beats into
(``cf:procs``), blocked addresses from keys that expire by themselves
(``cf:block:ADDRESS``), and the notice every page shows from ``cf:notice``.

==============================  ======  ==========================================
key                             type    holds
==============================  ======  ==========================================
``cf:procs``                    hash    process name -> ``{"conns", "rooms", "beat",
                                        "draining_until"}`` (epoch ms, or null)
``cf:drain:NAME``               string  the operator asks process NAME to drain (JSON:
                                        ``{"seconds", "by", "at"}``); the process takes
                                        it (and deletes it) on its next look, within a
                                        second; it expires unanswered after
                                        ``DRAIN_REQUEST_TTL_S``
``cf:block:ADDRESS``            string  why (JSON: ``{"by", "at"}``), expiring when the
                                        block ends
``cf:notice``                   string  ``{"id", "text", "at"}``: the notice pages show,
                                        expiring with it
``cf:block-ranges``             zset    blocked networks (CIDR) by when their block
                                        ends (epoch ms), and ``cf:block-ranges:why``
                                        (hash) who blocked them: ``block_ranges``
==============================  ======  ==========================================

New identities per network are read from their budgets (``player_keys.identity_budget``,
listed in ``player_keys.IDENTITY_NETWORKS``; ``storage.history`` writes them).

A block names one address (its own key) or a range: a network wider than
one address (``10.0.0.0/24``, ``2001:db8::/48``); a ``/32`` or ``/128`` is
the single address.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any

import msgspec
from canfield_protocol import Role, RoomState

from canfield_server.ops.clock import Clock
from canfield_server.room.ports import IdentityBudget
from canfield_server.storage import keys, player_keys
from canfield_server.storage.beat_table import live_entries
from canfield_server.storage.block_ranges import BlockRanges, Network
from canfield_server.storage.history import SLOT_MS, SLOTS_KEPT
from canfield_server.storage.presence_table import live_counts, live_origins

__all__ = ["ConsoleStore", "PROCS", "NOTICE", "Blockable", "block_key", "drain_key"]

PROCS = "cf:procs"
NOTICE = "cf:notice"
_BLOCK_PREFIX = "cf:block:"
_DRAIN_PREFIX = "cf:drain:"
#: a drain request no process took (its process is gone) lapses after this
DRAIN_REQUEST_TTL_S = 600
#: rooms one listing reads at most (a console page, not an export)
MAX_ROOMS = 500
#: networks the identity listing reads at most (the most recently active)
MAX_NETWORKS = 500
#: "the last hour" of identities issued: this many ten-minute slots (the current one
#: and the five before it)
HOUR_SLOTS = 3_600_000 // SLOT_MS

_state_decoder = msgspec.json.Decoder(RoomState)

#: what the operator blocks: one address, or a range of them
Blockable = ipaddress.IPv4Address | ipaddress.IPv6Address | Network


def block_key(address: str) -> str:
    return f"{_BLOCK_PREFIX}{address}"


def drain_key(process: str) -> str:
    return f"{_DRAIN_PREFIX}{process}"


def _text(value: bytes | str | None) -> str:
    return value.decode() if isinstance(value, bytes) else (value or "")


def _seconds_until(missing: float, rate_per_ms: float) -> int | None:
    """Seconds until a bucket refilling at ``rate_per_ms`` has ``missing`` more
    (0: it has them now; None: never)."""
    if missing <= 0:
        return 0
    if rate_per_ms <= 0:
        return None
    return -(-int(missing / rate_per_ms) // 1000)


class ConsoleStore:
    def __init__(self, redis: Any, stale_ms: int, clock: Clock) -> None:
        self.redis = redis
        self.clock = clock
        #: a process (or a room's connections held by it) silent this long is gone
        self.stale_ms = stale_ms
        self.ranges = BlockRanges(redis, clock)

    # ------------------------------------------------------------ processes

    async def beat_process(
        self, name: str, conns: int, rooms: int, draining_until: int | None = None
    ) -> None:
        entry = json.dumps(
            {
                "conns": conns,
                "rooms": rooms,
                "beat": self.clock.now_ms(),
                "draining_until": draining_until,
            }
        )
        await self.redis.hset(PROCS, name, entry)

    async def request_drain(self, name: str, seconds: int, by: str) -> bool:
        """Ask process ``name`` to drain; False when no live process has that name."""
        if name not in {p["name"] for p in await self.processes()}:
            return False
        request = json.dumps({"seconds": seconds, "by": by, "at": self.clock.now_ms()})
        await self.redis.set(drain_key(name), request, ex=DRAIN_REQUEST_TTL_S)
        return True

    async def take_drain_request(self, name: str) -> dict[str, Any] | None:
        """The drain asked of process ``name``, if any, taken off the queue at once."""
        raw = await self.redis.getdel(drain_key(name))
        return json.loads(raw) if raw else None

    async def forget_process(self, name: str) -> None:
        await self.redis.hdel(PROCS, name)

    async def processes(self) -> list[dict[str, Any]]:
        """Processes with a fresh beat (stale ones are removed on the way)."""
        return await live_entries(self.redis, PROCS, self.clock.now_ms() - self.stale_ms)

    # ------------------------------------------------------------ rooms

    async def room_codes(self) -> list[str]:
        codes: list[str] = []
        async for key in self.redis.scan_iter(match="cf:{*}:room", count=500):
            codes.append(_text(key)[4:-6])  # cf:{CODE}:room
            if len(codes) >= MAX_ROOMS:
                break
        return codes

    async def rooms(self) -> list[dict[str, Any]]:
        """Every room: phase, racers, spectators, connections, age, creator's address."""
        codes = await self.room_codes()
        async with self.redis.pipeline(transaction=False) as pipe:
            for code in codes:
                pipe.hmget(keys.room(code), "state", "phase", "ip", "created")
                pipe.hgetall(keys.presence(code))
            replies = await pipe.execute()
        now, oldest = self.clock.now_ms(), self.clock.now_ms() - self.stale_ms
        listed = []
        for code, (state_raw, phase, ip, created), table in zip(
            codes, replies[::2], replies[1::2], strict=True
        ):
            if state_raw is None:
                continue  # expired between the scan and the read
            listed.append(self._summary(code, state_raw, phase, ip, created, table, now, oldest))
        return sorted(listed, key=lambda r: (r["phase"], -(r["age_s"] or 0)))

    @staticmethod
    def _summary(
        code: str,
        state_raw: bytes,
        phase: bytes | None,
        ip: bytes | None,
        created: bytes | None,
        table: dict[bytes, bytes],
        now: int,
        oldest: int,
    ) -> dict[str, Any]:
        state = _state_decoder.decode(state_raw)
        counts = live_counts(table, oldest)
        players = [m for m in state.members if m.role == Role.PLAYER]
        return {
            "code": code,
            "phase": _text(phase) or str(state.phase),
            "race": state.race,
            "players": [m.name for m in players],
            # who the operator may remove (``/admin/api/rooms/CODE/members/ID/remove``)
            "members": [
                {"id": m.id, "name": m.name, "role": str(m.role), "bot": m.bot}
                for m in state.members
            ],
            "spectators": sum(1 for m in state.members if m.role != Role.PLAYER),
            "connections": sum(counts.values()),
            "processes": len(live_origins(table, oldest)),
            "age_s": (now - int(created)) // 1000 if created else None,
            "owner": _text(ip) or None,
        }

    async def forget_room(self, code: str) -> None:
        """A closed room's keys go at once (its players' boards lapse with their TTL)."""
        await self.redis.delete(*keys.room_keys(code), keys.servers(code))
        await self.redis.zrem(keys.DUE, code)

    # ------------------------------------------------------------ blocks

    async def block(self, target: Blockable, seconds: int, by: str) -> None:
        if isinstance(target, Network):
            await self.ranges.add(target, seconds, by)
            return
        why = json.dumps({"by": by, "at": self.clock.now_ms()})
        await self.redis.set(block_key(str(target)), why, ex=seconds)

    async def unblock(self, target: Blockable) -> bool:
        if isinstance(target, Network):
            return await self.ranges.remove(target)
        return bool(await self.redis.delete(block_key(str(target))))

    async def is_blocked(self, address: str) -> bool:
        """The handshake's question: this address's own key, then the ranges
        (each process reads those at most once a second)."""
        if await self.redis.exists(block_key(address)):
            return True
        return await self.ranges.covers(address)

    async def blocks(self) -> list[dict[str, Any]]:
        names = [k async for k in self.redis.scan_iter(match=f"{_BLOCK_PREFIX}*", count=500)]
        async with self.redis.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.get(name)
                pipe.ttl(name)
            replies = await pipe.execute()
        listed = []
        for name, why, ttl in zip(names, replies[::2], replies[1::2], strict=True):
            if why is None or ttl < 0:
                continue
            listed.append(
                {"address": _text(name)[len(_BLOCK_PREFIX) :], "left_s": ttl, **json.loads(why)}
            )
        listed += await self.ranges.listed()
        return sorted(listed, key=lambda b: b["address"])

    # ------------------------------------------------------------ identities

    async def identity_issuance(self, budget: IdentityBudget) -> list[dict[str, Any]]:
        """Each network that asked for new identities in the last day: issued and
        refused in the last hour (ten-minute steps) and day, and its bucket now
        (identities left, when the next is back and when it is full), the most
        issued first."""
        now = self.clock.now_ms()
        found = await self.redis.zrevrangebyscore(
            player_keys.IDENTITY_NETWORKS,
            "+inf",
            now - SLOTS_KEPT * SLOT_MS,
            start=0,
            num=MAX_NETWORKS,
        )
        networks = [_text(n) for n in found]
        async with self.redis.pipeline(transaction=False) as pipe:
            for network in networks:
                pipe.hgetall(player_keys.identity_budget(network))
            tables = await pipe.execute()
        slot = now // SLOT_MS
        rate = budget.per_hour / 3_600_000
        listed = []
        for network, table in zip(networks, tables, strict=True):
            if not table:
                continue  # lapsed between the two reads
            fields = {_text(k): _text(v) for k, v in table.items()}
            counts = {"i": [0, 0], "r": [0, 0]}
            for name, value in fields.items():
                kind, _, at_slot = name.partition(":")
                if kind in counts and at_slot.isdigit():
                    age = slot - int(at_slot)
                    if age < SLOTS_KEPT:
                        counts[kind][1] += int(value)
                        if age < HOUR_SLOTS:
                            counts[kind][0] += int(value)
            tokens, at = float(fields.get("tokens", budget.burst)), int(fields.get("at", now))
            if now > at:
                tokens = min(budget.burst, tokens + (now - at) * rate)
            listed.append(
                {
                    "network": network,
                    "issued_hour": counts["i"][0],
                    "issued_day": counts["i"][1],
                    "refused_hour": counts["r"][0],
                    "refused_day": counts["r"][1],
                    "left": int(tokens),
                    "burst": budget.burst,
                    "per_hour": budget.per_hour,
                    # seconds until the next identity is back, and until the bucket is full
                    "next_in_s": _seconds_until(1 - tokens, rate),
                    "full_in_s": _seconds_until(budget.burst - tokens, rate),
                }
            )
        return sorted(listed, key=lambda r: (-r["issued_day"], -r["issued_hour"], r["network"]))

    # ------------------------------------------------------------ the notice

    async def post_notice(self, text: str, seconds: int) -> dict[str, Any]:
        notice = {"id": f"{self.clock.now_ms():x}", "text": text, "at": self.clock.now_ms()}
        await self.redis.set(NOTICE, json.dumps(notice), ex=seconds)
        return notice

    async def notice(self) -> dict[str, Any] | None:
        raw = await self.redis.get(NOTICE)
        return json.loads(raw) if raw else None

    # ------------------------------------------------------------ Redis itself

    async def redis_info(self) -> dict[str, Any]:
        memory = await self.redis.info("memory")
        persistence = await self.redis.info("persistence")
        return {
            "used_memory": memory.get("used_memory"),
            "used_memory_peak": memory.get("used_memory_peak"),
            "maxmemory": memory.get("maxmemory"),
            "aof_enabled": bool(persistence.get("aof_enabled")),
            "aof_rewrite_in_progress": bool(persistence.get("aof_rewrite_in_progress")),
            "aof_last_write_status": persistence.get("aof_last_write_status"),
            "aof_last_bgrewrite_status": persistence.get("aof_last_bgrewrite_status"),
            "rdb_last_save_time": persistence.get("rdb_last_save_time"),
        }
