"""Room storage in Redis: every read and write the server makes, one method each.

The hub calls these; each is one round trip (a Lua script, a pipeline,
or one command). Redis errors propagate as ``redis.RedisError``; the
caller answers ``unavailable`` and applies nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
from canfield_protocol import Cap, Phase, RoomState
from redis.asyncio import Redis, RedisCluster

from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.room import rules
from canfield_server.room.events import FinishedEvent, RoomEvent, pack, pack_row
from canfield_server.room.ports import (
    Behind,
    MoveRecord,
    RaceOver,
    RoomBudget,
    RoomRecord,
    RoomSave,
    RoomsRefused,
    Stored,
    StoredRow,
)
from canfield_server.storage import keys
from canfield_server.storage.batch import PipelineBatch
from canfield_server.storage.move_script import move_script
from canfield_server.storage.presence_table import live_count, live_counts, live_origins, origin_of
from canfield_server.storage.refreshes import Refreshes
from canfield_server.storage.scripts import MOVE, PRESENCE, Scripts

__all__ = ["RedisStore"]

_state_decoder = msgspec.json.Decoder(RoomState)
_row_decoder = msgspec.json.Decoder(StoredRow)
_encoder = msgspec.json.Encoder()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _bytes(value: bytes | str) -> bytes:
    return value if isinstance(value, bytes) else value.encode()


class RedisStore:
    def __init__(
        self,
        redis: Redis | RedisCluster,
        url: str,
        ttl_s: int,
        origin: bytes,
        clock: Clock = SYSTEM,
        presence_stale_ms: int = 15_000,
    ) -> None:
        """``redis`` is the client for ``url``; moves take their own way there
        (``move_script``). ``clock`` stamps the heartbeats and judges them stale."""
        self.redis = redis
        self.clock = clock
        self.ttl_s = ttl_s
        self.origin = origin
        #: a process whose heartbeat is older than this counts as gone
        self.presence_stale_ms = presence_stale_ms
        self.scripts = Scripts.register(redis)
        self.move = move_script(redis, url, MOVE)
        self.refreshes = Refreshes(ttl_s)
        #: presence counts of connections that come and go together share a round trip
        self.batch = PipelineBatch(redis)

    async def close(self) -> None:
        await self.move.close()

    async def ping(self) -> bool:
        return bool(await self.redis.ping())

    # ------------------------------------------------------------ rooms

    async def load_room(self, code: str) -> RoomRecord | None:
        state, ver, phase, deal, final = await self.redis.hmget(
            keys.room(code), "state", "ver", "phase", "deal", "final"
        )
        if state is None:
            return None
        room = _state_decoder.decode(state)
        if phase is not None and _text(phase) != room.phase:
            # the move script or FINISH ended the race; the state blob follows later
            room = msgspec.structs.replace(room, phase=Phase(_text(phase)))
        return RoomRecord(
            room, int(ver or 0), _text(deal) if deal else None, _bytes(final) if final else None
        )

    async def save_room(self, save: RoomSave) -> int | None:
        """Compare-and-set the room and publish it; None when someone else saved first
        (``RoomSave`` says what else changes with it)."""
        state, deal, new_race, final = save.state, save.deal, save.new_race, save.final
        code = state.room
        fields: list[bytes | str | int] = [
            "state",
            _encoder.encode(state),
            "phase",
            state.phase,
            "race",
            state.race,
        ]
        if deal is not None:
            fields += ["deal", deal]
        extra_keys: list[str] = []
        if new_race is not None:
            fields += ["done", 0, "nplayers", len(new_race), "final", ""]
            for pid in new_race:
                extra_keys += [keys.player(code, pid), keys.log(code, pid)]
        if final is not None:
            fields += ["final", final]
            event: FinishedEvent | RoomEvent = FinishedEvent(
                ver=-1, state=state, final=msgspec.Raw(final)
            )
        else:
            event = RoomEvent(ver=-1, state=state, deal=deal, kicked=save.kicked)
        token_hash, token_id = save.token or ("", "")
        is_open = rules.room_open(state)
        ver, holder = await self.scripts.save_room(
            keys=[*keys.room_keys(code), *extra_keys],
            args=[
                save.expected_ver,
                self.ttl_s,
                keys.channel(code),
                pack(self.origin, event),
                "1" if new_race is not None else "0",
                token_hash,
                token_id,
                save.revoke or "",
                f"{save.present}|{self.origin.decode()}" if save.present else "",
                f"@{self.origin.decode()}",
                self.clock.now_ms(),
                "1" if is_open else "0",
                save.creator or "",
                *fields,
            ],
        )
        if int(ver) < 0:
            return None
        if holder:
            await self._hold(_text(holder), code, is_open)
        return int(ver)

    async def claim_room(self, ip: str, code: str, budget: RoomBudget) -> RoomsRefused | None:
        cap, retry_at = await self.scripts.claim_room(
            keys=[keys.ip_open_rooms(ip), keys.ip_new_rooms(ip)],
            args=[
                self.clock.now_ms(),
                code,
                budget.max_open,
                budget.max_new,
                budget.window_ms,
                self.ttl_s * 1000,
            ],
        )
        if not cap:
            return None
        which = Cap(_text(cap))
        limit = budget.max_open if which == Cap.OPEN_ROOMS else budget.max_new
        return RoomsRefused(which, limit, int(retry_at))

    async def _hold(self, ip: str, code: str, is_open: bool) -> None:
        """A room opened again (a new race) or closed: its creator's count follows.
        If this call is lost, the entry lapses one room TTL after it was made."""
        key = keys.ip_open_rooms(ip)
        if not is_open:
            await self.redis.zrem(key, code)
            return
        ttl_ms = self.ttl_s * 1000
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(key, {code: self.clock.now_ms() + ttl_ms})
            pipe.pexpire(key, ttl_ms)
            await pipe.execute()

    async def member_for_token(self, code: str, token_hash: str) -> str | None:
        found = await self.redis.hget(keys.tokens(code), token_hash)
        return _text(found) if found else None

    async def presence(self, code: str, member_id: str, delta: int) -> int:
        """Count a member's live connections; returns the count over live processes.

        Counts are kept per process (``member|origin``) next to each process's
        heartbeat (``@origin``: ms of its last beat), so the connections of a
        process that crashed stop counting once its heartbeat is stale. Calls
        made together share one pipeline (``batch``).
        """
        table_key, origin, now = keys.presence(code), self.origin.decode(), self.clock.now_ms()

        def build(pipe: Any) -> int:
            # EVAL, not EVALSHA: Redis keeps the compiled script by its hash, and
            # a pipeline cannot resend the body after a NOSCRIPT
            pipe.eval(PRESENCE, 1, table_key, member_id, origin, delta, now, self.ttl_s)
            return 1

        (pairs,) = await self.batch.run(build)
        table = dict(zip(pairs[::2], pairs[1::2], strict=True))
        return live_count(table, member_id.encode(), now - self.presence_stale_ms)

    async def serve_room(self, code: str, serving: bool = True) -> None:
        """Say this process serves a room (or no longer does): moves publish their
        rows to the room's channel only while another process serves it too."""
        if serving:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hset(keys.servers(code), self.origin, self.clock.now_ms())
                pipe.expire(keys.servers(code), self.ttl_s)
                await pipe.execute()
        else:
            await self.redis.hdel(keys.servers(code), self.origin)

    async def beat(self, due: dict[str, int]) -> dict[str, set[str]]:
        """This process's heartbeat for every room it serves, in one pipeline:
        returns each room's members connected to live processes, forgets the
        counts of processes gone silent, and sets each room's due time (``due``:
        room -> ms; this beat's watchdog or an earlier timer of the room)."""
        now, origin = self.clock.now_ms(), self.origin.decode()
        codes = list(due)
        async with self.redis.pipeline(transaction=False) as pipe:
            for code in codes:
                pipe.hset(keys.presence(code), f"@{origin}", now)
                pipe.expire(keys.presence(code), self.ttl_s)
                pipe.hgetall(keys.presence(code))
                pipe.hset(keys.servers(code), self.origin, now)
                pipe.hgetall(keys.servers(code))
            if due:  # only later: an earlier timer of the room stays as it is
                pipe.zadd(keys.DUE, due, gt=True)
            results = await pipe.execute()
        live: dict[str, set[str]] = {}
        forgets = []
        for index, code in enumerate(codes):
            _, _, table, _, servers = results[index * 5 : index * 5 + 5]
            gone = [o for o, at in servers.items() if int(at) < now - self.presence_stale_ms]
            if gone:
                forgets.append(self.redis.hdel(keys.servers(code), *gone))
            origins = live_origins(table, now - self.presence_stale_ms)
            dead = [f for f in table if origin_of(f) not in origins]
            zero = [
                f
                for f, value in table.items()
                if f[:1] != b"@" and origin_of(f) in origins and int(value) <= 0
            ]
            if dead or zero:  # rare: a process died, or members left
                args = [len(dead), *dead, *zero]
                forgets.append(self.scripts.forget(keys=[keys.presence(code)], args=args))
            counts = live_counts(table, now - self.presence_stale_ms)
            live[code] = {member for member, count in counts.items() if count > 0}
        if forgets:
            await asyncio.gather(*forgets)
        return live

    # ------------------------------------------------------------ timers

    async def schedule(self, code: str, due_ms: int | None, earlier: bool = False) -> None:
        """When a room's next timer is due (None: it has none): a time limit, a
        grace time. Any process's sweep finds it (``due_rooms``). ``earlier``:
        only if that is sooner than the time already set (or none is)."""
        if due_ms is None:
            await self.redis.zrem(keys.DUE, code)
        else:
            await self.redis.zadd(keys.DUE, {code: due_ms}, lt=earlier)

    async def due_rooms(self, now: int, limit: int) -> list[str]:
        found = await self.redis.zrangebyscore(keys.DUE, "-inf", now, start=0, num=limit)
        return [_text(code) for code in found if isinstance(code, bytes | str)]

    async def claim_due(self, code: str, now: int, lease_ms: int) -> bool:
        """Take a due room for this process's sweep (moves its time ``lease_ms`` on)."""
        return bool(await self.scripts.claim_due(keys=[keys.DUE], args=[code, now, lease_ms]))

    async def finish(self, code: str, race: int) -> bool:
        """End a race (time limit); True for the one caller that did it."""
        return bool(await self.scripts.finish(keys=[keys.room(code)], args=[race]))

    # ------------------------------------------------------------ players

    async def load_player(self, code: str, member_id: str) -> tuple[bytes | None, list[str]]:
        """A player's snapshot and log, read together (the log rebuilds the board)."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hget(keys.player(code, member_id), "snap")
            pipe.lrange(keys.log(code, member_id), 0, -1)
            snap, log = await pipe.execute()
        return snap, [e.decode() for e in log]

    async def snapshots(self, code: str, member_ids: list[str]) -> dict[str, bytes]:
        """The players' race snapshots (those who have one), in one round trip."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for pid in member_ids:
                pipe.hget(keys.player(code, pid), "snap")
            found = await pipe.execute()
        return {pid: snap for pid, snap in zip(member_ids, found, strict=True) if snap}

    async def apply(self, move: MoveRecord) -> Stored | Behind | RaceOver:
        """The move script, its reply in types."""
        code, member_id = move.room_code, move.member_id
        row = _encoder.encode(move.row)
        race, now_ms = (code, member_id, move.race_no), self.clock.now_ms()
        refresh = self.refreshes.due(race, now_ms)
        status, value = await self.move(
            keys=[
                *keys.room_keys(code),
                keys.player(code, member_id),
                keys.log(code, member_id),
                keys.servers(code),
            ],
            args=[
                move.race_no,
                move.base_seq,
                move.entry,
                move.snapshot,
                member_id,
                row,
                "1" if move.done else "0",
                self.ttl_s if refresh else 0,
                keys.channel(code),
                pack_row(self.origin, row, move.board, move.base_seq + 1),
                self.origin,
            ],
        )
        if int(status) == 1:  # {1, finished}
            if refresh:
                self.refreshes.done(race, now_ms)
            return Stored(race_over=int(value) == 1)
        if int(status) == 0:  # {0, the stored seq}
            return Behind(int(value))
        return RaceOver(_text(value))  # {-1, the room's phase}

    async def log_entry(self, code: str, member_id: str, seq: int) -> str:
        """The action a sequence number applied (for a duplicate's ack)."""
        found = await self.redis.lindex(keys.log(code, member_id), seq - 1)
        return _text(found) if found else ""

    async def rows(self, code: str) -> dict[str, StoredRow]:
        raw = await self.redis.hgetall(keys.rows(code))
        return {_text(k): _row_decoder.decode(v) for k, v in raw.items()}

    async def logs(self, code: str, member_ids: list[str]) -> dict[str, list[str]]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for pid in member_ids:
                pipe.lrange(keys.log(code, pid), 0, -1)
            found = await pipe.execute()
        return {pid: [e.decode() for e in log] for pid, log in zip(member_ids, found, strict=True)}
