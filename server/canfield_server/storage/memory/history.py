"""``IdentityStore`` in memory (``storage.history``'s twin): identities lapse by
their time on the store's clock, as their keys would expire."""

from __future__ import annotations

import math
from typing import Any

from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.room.ports import IdentitiesRefused, IdentityBudget
from canfield_server.storage.history import SLOT_MS, SLOTS_KEPT
from canfield_server.storage.memory.backend import MemoryBackend

__all__ = ["MemoryIdentityStore"]


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
