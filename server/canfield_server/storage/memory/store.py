"""``RoomStore`` in memory (``storage.store.RedisStore``'s twin): rooms, presence,
timers and the boards' moves, each operation one step as its script is."""

from __future__ import annotations

import msgspec
from canfield_protocol import Cap, Phase, RoomState

from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.room import rules
from canfield_server.room.events import VER_SLOT, FinishedEvent, RoomEvent, pack, pack_row
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
from canfield_server.storage.memory.backend import MemoryBackend, StoredBoard, StoredRoom
from canfield_server.storage.presence_table import live_count, live_counts, live_origins, origin_of

__all__ = ["MemoryRoomStore"]

_state_decoder = msgspec.json.Decoder(RoomState)
_row_decoder = msgspec.json.Decoder(StoredRow)
_encoder = msgspec.json.Encoder()


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

    async def save_room(self, save: RoomSave) -> int | None:
        state, deal, new_race, final = save.state, save.deal, save.new_race, save.final
        b, code = self.backend, state.room
        room = b.rooms.get(code)
        if (room.ver if room else 0) != save.expected_ver:
            return None
        if new_race is not None:
            for pid in new_race:
                b.boards.pop((code, pid), None)
            b.rows.pop(code, None)
        tokens = b.tokens.setdefault(code, {})
        if save.token is not None:
            tokens[save.token[0]] = save.token[1]
        if save.revoke:
            for token_hash in [t for t, m in tokens.items() if m == save.revoke]:
                del tokens[token_hash]
        if save.present:
            table = b.presence.setdefault(code, {})
            member_field = f"{save.present}|{self.origin.decode()}".encode()
            table[member_field] = table.get(member_field, 0) + 1
            table[b"@" + self.origin] = self.clock.now_ms()
        ver = (room.ver if room else 0) + 1
        if room is None:
            room = b.rooms[code] = StoredRoom(b"", 0, "", 0)
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
        if save.creator:
            room.ip, room.open = save.creator, is_open
        elif room.ip and room.open != is_open:
            room.open = is_open
            self._hold(room.ip, code, is_open)
        event: FinishedEvent | RoomEvent
        if final is not None:
            room.final = final
            event = FinishedEvent(ver=-1, state=state, final=msgspec.Raw(final))
        else:
            event = RoomEvent(ver=-1, state=state, deal=deal, kicked=save.kicked)
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

    async def apply(self, move: MoveRecord) -> Stored | Behind | RaceOver:
        b, code = self.backend, move.room_code
        room = b.rooms.get(code)
        if room is None or room.phase != Phase.RACING or room.race != move.race_no:
            return RaceOver(room.phase if room else "")
        board = b.boards.setdefault((code, move.member_id), StoredBoard())
        if board.seq != move.base_seq:
            return Behind(board.seq)
        board.log.append(move.entry)
        board.seq, board.snap = board.seq + 1, move.snapshot
        row = _encoder.encode(move.row)
        b.rows.setdefault(code, {})[move.member_id] = row
        race_over = False
        if move.done:
            room.done += 1
            if room.done >= room.nplayers:
                room.phase, room.ver = str(Phase.FINISHED), room.ver + 1
                race_over = True
        servers = b.servers.get(code, {})
        if len(servers) > 1 or (len(servers) == 1 and self.origin not in servers):
            b.publish(code, pack_row(self.origin, row, move.board, move.base_seq + 1))
        return Stored(race_over=race_over)

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


def _pruned(table: dict[str, dict[str, int]], ip: str, oldest: int) -> dict[str, int]:
    """One address's rooms whose time is after ``oldest`` (the others go, as
    ``ZREMRANGEBYSCORE`` drops them in the Redis script)."""
    rooms = {code: at for code, at in table.get(ip, {}).items() if at > oldest}
    table[ip] = rooms
    return rooms
