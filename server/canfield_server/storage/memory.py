"""In-memory adapters of the room logic's ports, for tests that run in milliseconds.

One ``MemoryBackend`` stands for one Redis: the adapters of several hubs
(several server processes' worth) share it, and its pub/sub delivers
room events between them. Every operation does what its Redis adapter's
script or pipeline does, in one step with no ``await`` in between (as a
script is atomic); ``tests/server/test_ports_contract.py`` runs the same
cases against both, so they cannot drift apart.

What they leave out: keys do not expire (the per-address room counts
lapse by their times, as the Redis scripts prune them; an identity lapses
by its time on the store's clock, as its key would), and storage never
fails.
"""

from __future__ import annotations

import asyncio
import bisect
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec
from canfield_protocol import Cap, Phase, RoomState

from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.room import rules
from canfield_server.room.events import VER_SLOT, FinishedEvent, RoomEvent, pack, pack_row
from canfield_server.room.ports import (
    REVIEW_CLEARED,
    REVIEW_CONFIRMED,
    REVIEW_OPEN,
    Band,
    DailyAttempt,
    DailyDeals,
    DailyMove,
    DailyStore,
    IdentitiesRefused,
    IdentityBudget,
    IdentityStore,
    IntegrityStore,
    LadderRow,
    MoveRecord,
    RatingChange,
    RatingPoint,
    RatingStore,
    ReviewCase,
    RoomBudget,
    RoomBus,
    RoomRecord,
    RoomsRefused,
    RoomStore,
    StoredRating,
    StoredRow,
    race_of,
)
from canfield_server.storage.history import SLOT_MS, SLOTS_KEPT
from canfield_server.storage.presence_table import live_count, live_counts, live_origins, origin_of

__all__ = [
    "MemoryBackend",
    "MemoryRoomStore",
    "MemoryBus",
    "MemoryMatchQueue",
    "MemoryIdentityStore",
    "MemoryDailyStore",
    "MemoryDailyDeals",
    "MemoryRatingStore",
    "MemoryIntegrityStore",
]

_state_decoder = msgspec.json.Decoder(RoomState)
_row_decoder = msgspec.json.Decoder(StoredRow)
_encoder = msgspec.json.Encoder()


@dataclass
class _Room:
    state: bytes
    ver: int
    phase: str
    race: int
    deal: str | None = None
    final: bytes = b""
    done: int = 0
    nplayers: int = 0
    #: the address that created the room, and ``rules.room_open`` at the last save
    ip: str = ""
    open: bool = False


@dataclass
class _Board:
    seq: int = 0
    snap: bytes | None = None
    log: list[str] = field(default_factory=list)


@dataclass
class _Daily:
    start: int
    name: str
    seq: int = 0
    snap: bytes | None = None
    done: bool = False
    log: list[str] = field(default_factory=list)


class MemoryBackend:
    """What one Redis holds for the room logic, and its pub/sub."""

    def __init__(self) -> None:
        self.rooms: dict[str, _Room] = {}
        self.tokens: dict[str, dict[str, str]] = {}
        self.presence: dict[str, dict[bytes, int]] = {}
        self.rows: dict[str, dict[str, bytes]] = {}
        self.boards: dict[tuple[str, str], _Board] = {}
        self.servers: dict[str, dict[bytes, int]] = {}
        self.due: dict[str, int] = {}
        #: address -> room code -> ms it stops counting as open at the latest
        self.open_rooms: dict[str, dict[str, int]] = {}
        #: address -> room code -> ms it was created (the burst window)
        self.new_rooms: dict[str, dict[str, int]] = {}
        self.identities: dict[str, dict[str, Any]] = {}
        #: network -> its identity budget (``tokens``, ``at``, ``i:SLOT``, ``r:SLOT``),
        #: and network -> ms it last asked
        self.identity_budgets: dict[str, dict[str, float]] = {}
        self.identity_networks: dict[str, int] = {}
        self.histories: dict[str, list[bytes]] = {}
        self.room_identities: dict[str, dict[str, str]] = {}
        self.room_networks: dict[str, dict[str, str]] = {}
        #: UTC day -> "identity:identity" -> public races rated together that day
        self.rating_pairs: dict[str, dict[str, int]] = {}
        #: (identity, draw) -> the identities it was rated against
        self.rating_opponents: dict[tuple[str, int], set[str]] = {}
        self.replays: dict[str, bytes] = {}
        #: (date, draw) -> player -> attempt; and the standing's (score, player) rows
        self.daily: dict[tuple[str, int], dict[str, _Daily]] = {}
        self.daily_rows: dict[tuple[str, int], dict[str, bytes]] = {}
        self.daily_rank: dict[tuple[str, int], dict[str, float]] = {}
        #: (date, draw) -> network -> its first player; player -> why unranked ('' ranked)
        self.daily_networks: dict[tuple[str, int], dict[str, str]] = {}
        self.daily_held: dict[tuple[str, int], dict[str, str]] = {}
        #: (identity, draw) -> rating, and its history (newest first)
        self.ratings: dict[tuple[str, int], StoredRating] = {}
        self.rating_points: dict[tuple[str, int], list[RatingPoint]] = {}
        #: draw -> identity -> its ladder row
        self.ladders: dict[int, dict[str, LadderRow]] = {}
        #: (room, race number) of the public races whose ratings were stored
        self.rated_races: set[tuple[str, int]] = set()
        #: result -> its integrity assessment; the open queue (result -> ms
        #: recorded), the decided (result -> ms decided); barred identities
        self.cases: dict[str, ReviewCase] = {}
        self.review_queue: dict[str, int] = {}
        self.review_decided: dict[str, int] = {}
        self.barred: set[str] = set()
        self.barred_players: set[str] = set()
        #: (room, race number) -> (draw, identity -> what that rated race changed)
        self.race_changes: dict[tuple[str, int], tuple[int, dict[str, RatingChange]]] = {}
        self.subscribers: dict[str, set[MemoryBus]] = {}
        #: pool -> the public races it gathers into -> (rating, ms opened);
        #: public race -> ms it started
        self.quick: dict[str, dict[str, tuple[int, int]]] = {}
        self.live: dict[str, int] = {}

    def publish(self, code: str, payload: bytes) -> None:
        """Deliver on the next turn of the event loop, as a Redis subscriber hears it."""
        loop = asyncio.get_running_loop()
        for bus in list(self.subscribers.get(code, ())):
            loop.call_soon(bus.deliver, code, payload)


class MemoryRoomStore:
    """``RoomStore`` over a ``MemoryBackend`` (``storage.store.RedisStore``'s twin)."""

    def __init__(
        self,
        backend: MemoryBackend,
        ttl_s: int,
        origin: bytes,
        clock: Clock = SYSTEM,
        presence_stale_ms: int = 15_000,
    ) -> None:
        self.backend = backend
        self.ttl_s = ttl_s
        self.origin = origin
        self.clock = clock
        self.presence_stale_ms = presence_stale_ms

    async def close(self) -> None:
        pass

    async def ping(self) -> bool:
        return True

    # ------------------------------------------------------------ rooms

    async def load_room(self, code: str) -> RoomRecord | None:
        room = self.backend.rooms.get(code)
        if room is None:
            return None
        state = _state_decoder.decode(room.state)
        if room.phase != state.phase:
            state = msgspec.structs.replace(state, phase=Phase(room.phase))
        return RoomRecord(state, room.ver, room.deal, room.final or None)

    async def save_room(
        self,
        expected_ver: int,
        state: RoomState,
        *,
        deal: str | None = None,
        token: tuple[str, str] | None = None,
        new_race: list[str] | None = None,
        final: bytes | None = None,
        revoke: str | None = None,
        kicked: str | None = None,
        present: str | None = None,
        creator: str | None = None,
    ) -> int | None:
        b, code = self.backend, state.room
        room = b.rooms.get(code)
        if (room.ver if room else 0) != expected_ver:
            return None
        if new_race is not None:
            for pid in new_race:
                b.boards.pop((code, pid), None)
            b.rows.pop(code, None)
        tokens = b.tokens.setdefault(code, {})
        if token is not None:
            tokens[token[0]] = token[1]
        if revoke:
            for token_hash in [t for t, m in tokens.items() if m == revoke]:
                del tokens[token_hash]
        if present:
            table = b.presence.setdefault(code, {})
            member_field = f"{present}|{self.origin.decode()}".encode()
            table[member_field] = table.get(member_field, 0) + 1
            table[b"@" + self.origin] = self.clock.now_ms()
        ver = (room.ver if room else 0) + 1
        if room is None:
            room = b.rooms[code] = _Room(b"", 0, "", 0)
        room.state, room.ver, room.phase, room.race = (
            _encoder.encode(state),
            ver,
            str(state.phase),
            state.race,
        )
        if deal is not None:
            room.deal = deal
        if new_race is not None:
            room.done, room.nplayers, room.final = 0, len(new_race), b""
        is_open = rules.room_open(state)
        if creator:
            room.ip, room.open = creator, is_open
        elif room.ip and room.open != is_open:
            room.open = is_open
            self._hold(room.ip, code, is_open)
        event: FinishedEvent | RoomEvent
        if final is not None:
            room.final = final
            event = FinishedEvent(ver=-1, state=state, final=msgspec.Raw(final))
        else:
            event = RoomEvent(ver=-1, state=state, deal=deal, kicked=kicked)
        b.publish(code, pack(self.origin, event).replace(VER_SLOT, str(ver).encode(), 1))
        return ver

    async def claim_room(self, ip: str, code: str, budget: RoomBudget) -> RoomsRefused | None:
        now = self.clock.now_ms()
        held = _pruned(self.backend.open_rooms, ip, now)
        made = _pruned(self.backend.new_rooms, ip, now - budget.window_ms)
        if budget.max_open and len(held) >= budget.max_open:
            return RoomsRefused(Cap.OPEN_ROOMS, budget.max_open, min(held.values()))
        if budget.max_new and len(made) >= budget.max_new:
            first = min(made.values())
            return RoomsRefused(Cap.NEW_ROOMS, budget.max_new, first + budget.window_ms)
        held[code] = now + self.ttl_s * 1000
        made[code] = now
        return None

    def _hold(self, ip: str, code: str, is_open: bool) -> None:
        held = self.backend.open_rooms.setdefault(ip, {})
        if is_open:
            held[code] = self.clock.now_ms() + self.ttl_s * 1000
        else:
            held.pop(code, None)

    async def member_for_token(self, code: str, token_hash: str) -> str | None:
        return self.backend.tokens.get(code, {}).get(token_hash)

    # ------------------------------------------------------------ presence

    async def presence(self, code: str, member_id: str, delta: int) -> int:
        now = self.clock.now_ms()
        table = self.backend.presence.setdefault(code, {})
        mine = f"{member_id}|{self.origin.decode()}".encode()
        count = table.get(mine, 0) + delta
        if count <= 0:
            table.pop(mine, None)
        else:
            table[mine] = count
        table[b"@" + self.origin] = now
        return live_count(_as_bytes(table), member_id.encode(), now - self.presence_stale_ms)

    async def serve_room(self, code: str, serving: bool = True) -> None:
        servers = self.backend.servers.setdefault(code, {})
        if serving:
            servers[self.origin] = self.clock.now_ms()
        else:
            servers.pop(self.origin, None)

    async def beat(self, due: dict[str, int]) -> dict[str, set[str]]:
        now = self.clock.now_ms()
        oldest = now - self.presence_stale_ms
        live: dict[str, set[str]] = {}
        for code, due_ms in due.items():
            table = self.backend.presence.setdefault(code, {})
            table[b"@" + self.origin] = now
            servers = self.backend.servers.setdefault(code, {})
            servers[self.origin] = now
            for origin in [o for o, at in servers.items() if at < oldest]:
                del servers[origin]
            read = _as_bytes(table)
            origins = live_origins(read, oldest)
            for f in list(table):
                if origin_of(f) not in origins or (f[:1] != b"@" and table[f] <= 0):
                    del table[f]
            counts = live_counts(read, oldest)
            live[code] = {member for member, count in counts.items() if count > 0}
            if due_ms > self.backend.due.get(code, due_ms - 1):
                self.backend.due[code] = due_ms
        return live

    # ------------------------------------------------------------ timers

    async def schedule(self, code: str, due_ms: int | None, earlier: bool = False) -> None:
        if due_ms is None:
            self.backend.due.pop(code, None)
        elif not earlier or due_ms < self.backend.due.get(code, due_ms + 1):
            self.backend.due[code] = due_ms

    async def due_rooms(self, now: int, limit: int) -> list[str]:
        found = sorted((at, code) for code, at in self.backend.due.items() if at <= now)
        return [code for _, code in found[:limit]]

    async def claim_due(self, code: str, now: int, lease_ms: int) -> bool:
        due = self.backend.due.get(code)
        if due is None or due > now:
            return False
        self.backend.due[code] = now + lease_ms
        return True

    async def finish(self, code: str, race: int) -> bool:
        room = self.backend.rooms.get(code)
        if room is None or room.phase != Phase.RACING or room.race != race:
            return False
        room.phase, room.ver = str(Phase.FINISHED), room.ver + 1
        return True

    # ------------------------------------------------------------ players

    async def load_player(self, code: str, member_id: str) -> tuple[bytes | None, list[str]]:
        board = self.backend.boards.get((code, member_id))
        return (board.snap, list(board.log)) if board else (None, [])

    async def snapshots(self, code: str, member_ids: list[str]) -> dict[str, bytes]:
        boards = [(pid, self.backend.boards.get((code, pid))) for pid in member_ids]
        return {pid: board.snap for pid, board in boards if board and board.snap}

    async def apply(self, move: MoveRecord) -> tuple[int, int | str]:
        b, code = self.backend, move.room_code
        room = b.rooms.get(code)
        if room is None or room.phase != Phase.RACING or room.race != move.race_no:
            return -1, room.phase if room else ""
        board = b.boards.setdefault((code, move.member_id), _Board())
        if board.seq != move.base_seq:
            return 0, board.seq
        board.log.append(move.entry)
        board.seq, board.snap = board.seq + 1, move.snapshot
        row = _encoder.encode(move.row)
        b.rows.setdefault(code, {})[move.member_id] = row
        finished = 0
        if move.done:
            room.done += 1
            if room.done >= room.nplayers:
                room.phase, room.ver = str(Phase.FINISHED), room.ver + 1
                finished = 1
        servers = b.servers.get(code, {})
        if len(servers) > 1 or (len(servers) == 1 and self.origin not in servers):
            b.publish(code, pack_row(self.origin, row))
        return 1, finished

    async def log_entry(self, code: str, member_id: str, seq: int) -> str:
        board = self.backend.boards.get((code, member_id))
        return board.log[seq - 1] if board and 0 < seq <= len(board.log) else ""

    async def rows(self, code: str) -> dict[str, StoredRow]:
        return {k: _row_decoder.decode(v) for k, v in self.backend.rows.get(code, {}).items()}

    async def logs(self, code: str, member_ids: list[str]) -> dict[str, list[str]]:
        return {pid: (await self.load_player(code, pid))[1] for pid in member_ids}


def _as_bytes(table: dict[bytes, int]) -> dict[bytes, bytes]:
    """The table as Redis returns it (the presence readers parse the values)."""
    return {f: str(v).encode() for f, v in table.items()}


async def _nothing() -> None:
    pass


class MemoryBus:
    """``RoomBus`` over a ``MemoryBackend``'s pub/sub."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.backend = backend
        self.rooms: set[str] = set()
        self.on_event: Callable[[str, bytes], None] = lambda code, payload: None
        self.on_resync: Callable[[], Awaitable[None]] = _nothing

    def start(
        self, on_event: Callable[[str, bytes], None], on_resync: Callable[[], Awaitable[None]]
    ) -> None:
        self.on_event, self.on_resync = on_event, on_resync

    async def stop(self) -> None:
        for code in list(self.rooms):
            await self.unsubscribe(code)

    async def subscribe(self, code: str) -> None:
        self.rooms.add(code)
        self.backend.subscribers.setdefault(code, set()).add(self)

    async def unsubscribe(self, code: str) -> None:
        self.rooms.discard(code)
        self.backend.subscribers.get(code, set()).discard(self)

    def deliver(self, code: str, payload: bytes) -> None:
        if code in self.rooms:
            self.on_event(code, payload)


class MemoryMatchQueue:
    """``MatchQueue`` over a ``MemoryBackend`` (``storage.matchmaking``'s twin;
    the races' expiry is not kept: a test's races end long before it)."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.backend = backend

    async def close(self) -> None:
        pass

    async def find_race(
        self,
        pool: str,
        rating: int,
        now_ms: int,
        band: Band,
        *,
        ttl_s: int,
        offer: str = "",
        mine: str = "",
    ) -> str | None:
        races = self.backend.quick.setdefault(pool, {})
        for code in [c for c, (_, since) in races.items() if now_ms - since > ttl_s * 1000]:
            del races[code]
        held = [
            (abs(centre - rating), since, code)
            for code, (centre, since) in races.items()
            if code != mine and abs(centre - rating) <= band.width(now_ms - since)
        ]
        if held:
            races.pop(mine, None)
            return min(held)[2]
        keep = offer or mine
        if keep:
            races[keep] = (rating, races.get(keep, (rating, now_ms))[1])
            return keep
        return None

    async def close_race(self, pool: str, code: str) -> None:
        self.backend.quick.get(pool, {}).pop(code, None)

    async def reopen_race(self, pool: str, code: str, rating: int, now_ms: int, ttl_s: int) -> None:
        races = self.backend.quick.setdefault(pool, {})
        races[code] = (rating, races.get(code, (rating, now_ms))[1])

    async def live_add(self, code: str, started_at: int) -> None:
        self.backend.live[code] = started_at

    async def live(self, limit: int) -> list[str]:
        newest = sorted(self.backend.live.items(), key=lambda kv: kv[1], reverse=True)
        return [code for code, _ in newest[:limit]]

    async def live_drop(self, code: str) -> None:
        self.backend.live.pop(code, None)


class MemoryIdentityStore:
    """``IdentityStore`` over a ``MemoryBackend`` (``storage.history``'s twin)."""

    def __init__(
        self,
        backend: MemoryBackend,
        *,
        max_races: int,
        clock: Clock = SYSTEM,
        retention_days: int = 90,
        new_ttl_s: int = 86_400,
    ) -> None:
        self.backend = backend
        self.max_races = max_races
        self.clock = clock
        self.ttl_ms = retention_days * 86_400_000
        self.new_ttl_ms = new_ttl_s * 1000

    async def close(self) -> None:
        pass

    async def claim_identity(
        self, network: str, budget: IdentityBudget
    ) -> IdentitiesRefused | None:
        """``storage.history.CLAIM_IDENTITY``, the same arithmetic."""
        now = self.clock.now_ms()
        table = self.backend.identity_budgets.setdefault(network, {})
        tokens, at = table.get("tokens", float(budget.burst)), table.get("at", float(now))
        rate = budget.per_hour / 3_600_000
        if now > at:
            tokens, at = min(budget.burst, tokens + (now - at) * rate), now
        slot = now // SLOT_MS
        issued = tokens >= 1
        if issued:
            tokens -= 1
        name = f"{'i' if issued else 'r'}:{slot}"
        table[name] = table.get(name, 0) + 1
        if table[name] == 1:
            for old in [k for k in table if ":" in k and int(k[2:]) <= slot - SLOTS_KEPT]:
                del table[old]
        table["tokens"], table["at"] = round(tokens, 6), at  # as the script stores it
        self.backend.identity_networks[network] = now
        oldest = now - budget.keep_ms()
        for gone in [n for n, t in self.backend.identity_networks.items() if t <= oldest]:
            del self.backend.identity_networks[gone]
        if issued:
            return None
        retry_at = -1 if rate <= 0 else int(at + math.ceil((1 - tokens) / rate))
        return IdentitiesRefused(budget.burst, budget.per_hour, retry_at)

    async def new_identity(self, token_hash: str, public_id: str, network: str = "") -> None:
        now = self.clock.now_ms()
        self.backend.identities[token_hash] = {
            "pid": public_id,
            "created": now,
            "streak": 0,
            "net": network,
            "kept": False,
            "until": now + self.new_ttl_ms,
        }

    async def identity_created(self, token_hash: str) -> int | None:
        found = self._live(token_hash)
        return int(found["created"]) if found else None

    def _live(self, token_hash: str) -> dict[str, Any] | None:
        found = self.backend.identities.get(token_hash)
        if found is not None and found["until"] <= self.clock.now_ms():
            del self.backend.identities[token_hash]  # its key expired
            self.backend.histories.pop(token_hash, None)
            return None
        return found

    async def identity(self, token_hash: str) -> tuple[str, int, str] | None:
        found = self._live(token_hash)
        if found is None:
            return None
        if found["kept"]:
            found["until"] = self.clock.now_ms() + self.ttl_ms
        return found["pid"], int(found["streak"]), found.get("last", "")

    async def identity_network(self, token_hash: str) -> str | None:
        found = self._live(token_hash)
        return (found["net"] or None) if found else None

    def keep(self, token_hash: str) -> None:
        """It finished a race: kept, the full retention from now (``KEEP_IDENTITY``)."""
        found = self._live(token_hash)
        if found is not None:
            found["kept"], found["until"] = True, self.clock.now_ms() + self.ttl_ms

    async def note_daily(self, token_hash: str, date: str, day_before: str) -> int:
        found = self._live(token_hash)
        if found is None:
            return 0
        last = found.get("last", "")
        if last != date:
            found["streak"] = found["streak"] + 1 if last == day_before else 1
            found["last"] = date
        return int(found["streak"])

    async def link_member(
        self, room: str, member_id: str, token_hash: str, network: str = ""
    ) -> None:
        self.backend.room_identities.setdefault(room, {})[member_id] = token_hash
        nets = self.backend.room_networks.setdefault(room, {})
        if network:
            nets[member_id] = network
        else:
            nets.pop(member_id, None)

    async def room_networks(self, room: str) -> dict[str, str]:
        return dict(self.backend.room_networks.get(room, {}))

    async def room_identities(self, room: str) -> dict[str, str]:
        return dict(self.backend.room_identities.get(room, {}))

    async def add_races(self, entries: list[tuple[str, bytes]]) -> None:
        for token_hash, entry in entries:
            races = self.backend.histories.setdefault(token_hash, [])
            races.insert(0, entry)
            del races[self.max_races :]
            self.keep(token_hash)

    async def races(self, token_hash: str, limit: int) -> list[bytes]:
        return self.backend.histories.get(token_hash, [])[:limit]

    async def delete_races(self, token_hash: str) -> int:
        return len(self.backend.histories.pop(token_hash, []))

    async def save_replay(self, replay_id: str, body: bytes) -> None:
        self.backend.replays[replay_id] = body

    async def load_replay(self, replay_id: str) -> bytes | None:
        return self.backend.replays.get(replay_id)


class MemoryDailyStore:
    """``DailyStore`` over a ``MemoryBackend`` (``storage.daily_store``'s twin)."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.backend = backend

    async def close(self) -> None:
        pass

    async def claim(
        self, date: str, draw: int, player: str, name: str, now: int, row: StoredRow, score: float
    ) -> tuple[bool, int]:
        day = self.backend.daily.setdefault((date, draw), {})
        if player in day:
            return False, day[player].start
        day[player] = _Daily(start=now, name=name)
        self.backend.daily_rows.setdefault((date, draw), {})[player] = _encoder.encode(row)
        self.backend.daily_rank.setdefault((date, draw), {})[player] = score
        return True, now

    async def attempt(self, date: str, draw: int, player: str) -> DailyAttempt | None:
        found = self.backend.daily.get((date, draw), {}).get(player)
        if found is None:
            return None
        return DailyAttempt(found.start, found.snap, list(found.log), found.done)

    async def apply(self, move: DailyMove) -> tuple[int, int]:
        key = (move.date, move.draw)
        found = self.backend.daily.get(key, {}).get(move.player)
        if found is None or found.done:
            return -1, 0
        if found.seq != move.base_seq:
            return 0, found.seq
        found.log.append(move.entry)
        found.seq, found.snap, found.done = found.seq + 1, move.snapshot, move.done
        self.backend.daily_rows.setdefault(key, {})[move.player] = _encoder.encode(move.row)
        self.backend.daily_rank.setdefault(key, {})[move.player] = move.score
        return 1, 0

    async def standing(
        self, date: str, draw: int, player: str | None, limit: int
    ) -> tuple[int, list[StoredRow], tuple[int, StoredRow] | None]:
        scores = self.backend.daily_rank.get((date, draw), {})
        rows = self.backend.daily_rows.get((date, draw), {})
        # a sorted set's order: by score, then by member
        order = sorted((score, member) for member, score in scores.items())
        top = [_row_decoder.decode(rows[m]) for _, m in order[: max(0, limit)] if m in rows]
        mine = None
        if player is not None and player in scores and player in rows:
            rank = bisect.bisect_left(order, (scores[player], player))
            mine = (rank + 1, _row_decoder.decode(rows[player]))
        return len(order), top, mine

    async def hold(self, date: str, draw: int, player: str, network: str, reason: str) -> str:
        held = self.backend.daily_held.setdefault((date, draw), {})
        if player in held:
            return held[player]
        why = reason
        if network:
            first = self.backend.daily_networks.setdefault((date, draw), {})
            if first.setdefault(network, player) != player and not why:
                why = "network-played"
        held[player] = why
        return why

    async def held(self, date: str, draw: int, players: list[str]) -> dict[str, str]:
        held = self.backend.daily_held.get((date, draw), {})
        return {p: held[p] for p in players if held.get(p)}

    async def network_first(self, date: str, draw: int, network: str) -> str | None:
        return self.backend.daily_networks.get((date, draw), {}).get(network)


class MemoryDailyDeals:
    """``DailyDeals`` with each day's deal given (``deal_of(date, draw)``)."""

    def __init__(self, deal_of: Callable[[str, int], str]) -> None:
        self.deal_of = deal_of
        self.known_deals: dict[tuple[str, int], str] = {}

    async def deal(self, date: str, draw: int) -> str:
        return self.known_deals.setdefault((date, draw), self.deal_of(date, draw))

    async def known(self, date: str, draw: int) -> str | None:
        return self.known_deals.get((date, draw))


class MemoryRatingStore:
    """``RatingStore`` over a ``MemoryBackend`` (``storage.rating_store``'s twin)."""

    def __init__(self, backend: MemoryBackend, *, max_points: int) -> None:
        self.backend = backend
        self.max_points = max_points

    async def close(self) -> None:
        pass

    async def ratings(self, draw: int, identities: list[str]) -> dict[str, StoredRating]:
        found = ((i, self.backend.ratings.get((i, draw))) for i in identities)
        return {i: rating for i, rating in found if rating is not None}

    async def save_ratings(
        self, draw: int, saved: list[tuple[str, StoredRating, RatingPoint, LadderRow | None]]
    ) -> None:
        ladder = self.backend.ladders.setdefault(draw, {})
        for identity, rating, point, row in saved:
            self.backend.ratings[identity, draw] = rating
            points = self.backend.rating_points.setdefault((identity, draw), [])
            points.insert(0, point)
            del points[self.max_points :]
            if row is None:
                ladder.pop(identity, None)
            else:
                ladder[identity] = row

    async def claim_race(self, code: str, race_no: int) -> bool:
        if (code, race_no) in self.backend.rated_races:
            return False
        self.backend.rated_races.add((code, race_no))
        return True

    async def ladder(self, draw: int, limit: int) -> list[LadderRow]:
        return [row for _, row in await self.ladder_of(draw, limit)]

    async def ladder_of(self, draw: int, limit: int) -> list[tuple[str, LadderRow]]:
        # a sorted set read high to low: by score, then by member, both descending
        ladder = self.backend.ladders.get(draw, {})
        order = sorted(((row.rating, i) for i, row in ladder.items()), reverse=True)
        return [(i, ladder[i]) for _, i in order[: max(0, limit)]]

    async def rating_history(self, identity: str, draw: int, limit: int) -> list[RatingPoint]:
        return self.backend.rating_points.get((identity, draw), [])[: max(0, limit)]

    async def pairs_rated(self, day: str, pairs: list[str]) -> dict[str, int]:
        counts = self.backend.rating_pairs.get(day, {})
        return {p: counts[p] for p in pairs if p in counts}

    async def note_pairs(self, day: str, pairs: list[str]) -> None:
        counts = self.backend.rating_pairs.setdefault(day, {})
        for pair in pairs:
            counts[pair] = counts.get(pair, 0) + 1

    async def opponents(self, draw: int, met: dict[str, list[str]]) -> dict[str, int]:
        known = self.backend.rating_opponents
        return {i: len(known.get((i, draw), set()) | set(o)) for i, o in met.items()}

    async def note_opponents(self, draw: int, met: dict[str, list[str]]) -> None:
        for identity, others in met.items():
            if others:
                self.backend.rating_opponents.setdefault((identity, draw), set()).update(others)

    async def save_race_changes(
        self, code: str, race_no: int, draw: int, changes: dict[str, RatingChange]
    ) -> None:
        self.backend.race_changes[code, race_no] = (draw, dict(changes))

    async def race_changes(self, code: str, race_no: int) -> tuple[int, dict[str, RatingChange]]:
        return self.backend.race_changes.get((code, race_no), (0, {}))


class MemoryIntegrityStore:
    """``IntegrityStore`` over a ``MemoryBackend`` (``storage.integrity_store``'s twin)."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.backend = backend

    async def close(self) -> None:
        pass

    async def record(self, case: ReviewCase) -> bool:
        if case.result in self.backend.cases:
            return False
        status = REVIEW_OPEN if case.reasons else ""
        self.backend.cases[case.result] = msgspec.structs.replace(
            case, status=status, decided_by=None, decided_at=None
        )
        if status == REVIEW_OPEN:
            self.backend.review_queue[case.result] = case.at
        return True

    async def case(self, result: str) -> ReviewCase | None:
        return self.backend.cases.get(result)

    def _newest(self, table: dict[str, int], limit: int) -> list[ReviewCase]:
        # a sorted set read high to low: by score, then by member, both descending
        order = sorted(((at, r) for r, at in table.items()), reverse=True)
        return [self.backend.cases[r] for _, r in order[: max(0, limit)]]

    async def open_cases(self, limit: int) -> list[ReviewCase]:
        return self._newest(self.backend.review_queue, limit)

    async def decided_cases(self, limit: int) -> list[ReviewCase]:
        return self._newest(self.backend.review_decided, limit)

    async def decide(self, result: str, confirm: bool, by: str, at: int) -> ReviewCase | None:
        found = self.backend.cases.get(result)
        if found is None or found.status != REVIEW_OPEN:
            return None
        status = REVIEW_CONFIRMED if confirm else REVIEW_CLEARED
        decided = msgspec.structs.replace(found, status=status, decided_by=by, decided_at=at)
        self.backend.cases[result] = decided
        self.backend.review_queue.pop(result, None)
        self.backend.review_decided[result] = at
        if confirm and decided.identity:
            self.backend.barred.add(decided.identity)
        if confirm and decided.public_id:
            self.backend.barred_players.add(decided.public_id)
        return decided

    async def statuses(self, results: list[str]) -> dict[str, str]:
        found = ((r, self.backend.cases.get(r)) for r in results)
        return {r: case.status for r, case in found if case is not None and case.status}

    async def barred(self, identities: list[str]) -> set[str]:
        return {i for i in identities if i in self.backend.barred}

    async def barred_players(self, public_ids: list[str]) -> set[str]:
        return {p for p in public_ids if p in self.backend.barred_players}

    async def under_review(self, identities: list[str]) -> set[str]:
        open_cases = (self.backend.cases[r] for r in self.backend.review_queue)
        return {c.identity for c in open_cases if c.identity} & set(identities)

    async def race_flags(self, race: str) -> dict[str, str]:
        return {
            (c.public_id or "") if c.kind == "daily" else c.member_id: c.status
            for c in self.backend.cases.values()
            if c.status and race_of(c) == race
        }


if TYPE_CHECKING:  # the type checker proves each adapter is its port

    def _ports(
        backend: MemoryBackend,
    ) -> tuple[RoomStore, RoomBus, IdentityStore, DailyStore, RatingStore, IntegrityStore]:
        return (
            MemoryRoomStore(backend, 1, b"origin"),
            MemoryBus(backend),
            MemoryIdentityStore(backend, max_races=1),
            MemoryDailyStore(backend),
            MemoryRatingStore(backend, max_points=1),
            MemoryIntegrityStore(backend),
        )

    def _deals() -> DailyDeals:
        return MemoryDailyDeals(lambda date, draw: "")


def _pruned(table: dict[str, dict[str, int]], ip: str, oldest: int) -> dict[str, int]:
    """One address's rooms whose time is after ``oldest`` (the others go, as
    ``ZREMRANGEBYSCORE`` drops them in the Redis script)."""
    rooms = {code: at for code, at in table.get(ip, {}).items() if at > oldest}
    table[ip] = rooms
    return rooms
