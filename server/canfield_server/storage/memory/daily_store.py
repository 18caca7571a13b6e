"""``DailyStore`` in memory (``storage.daily_store``'s twin), and ``DailyDeals``
with each day's deal given."""

from __future__ import annotations

import bisect
from collections.abc import Callable

import msgspec

from canfield_server.room.ports import (
    Behind,
    DailyAttempt,
    DailyMove,
    NoAttempt,
    Stored,
    StoredRow,
)
from canfield_server.storage.memory.backend import MemoryBackend, StoredDaily

__all__ = ["MemoryDailyStore", "MemoryDailyDeals"]

_row_decoder = msgspec.json.Decoder(StoredRow)
_encoder = msgspec.json.Encoder()


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
        day[player] = StoredDaily(start=now, name=name)
        self.backend.daily_rows.setdefault((date, draw), {})[player] = _encoder.encode(row)
        self.backend.daily_rank.setdefault((date, draw), {})[player] = score
        return True, now

    async def attempt(self, date: str, draw: int, player: str) -> DailyAttempt | None:
        found = self.backend.daily.get((date, draw), {}).get(player)
        if found is None:
            return None
        return DailyAttempt(found.start, found.snap, list(found.log), found.done)

    async def apply(self, move: DailyMove) -> Stored | Behind | NoAttempt:
        key = (move.date, move.draw)
        found = self.backend.daily.get(key, {}).get(move.player)
        if found is None or found.done:
            return NoAttempt()
        if found.seq != move.base_seq:
            return Behind(found.seq)
        found.log.append(move.entry)
        found.seq, found.snap, found.done = found.seq + 1, move.snapshot, move.done
        self.backend.daily_rows.setdefault(key, {})[move.player] = _encoder.encode(move.row)
        self.backend.daily_rank.setdefault(key, {})[move.player] = move.score
        return Stored()

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
    """``DailyDeals`` over a ``MemoryBackend`` with each day's deal given
    (``deal_of(date, draw)``, in place of the solver's proofs); the first chosen is
    every replica's (``solving.daily_deal``'s ``SET NX``)."""

    def __init__(self, backend: MemoryBackend, deal_of: Callable[[str, int], str]) -> None:
        self.backend = backend
        self.deal_of = deal_of

    async def deal(self, date: str, draw: int) -> str:
        return self.backend.daily_codes.setdefault((date, draw), self.deal_of(date, draw))

    async def known(self, date: str, draw: int) -> str | None:
        return self.backend.daily_codes.get((date, draw))
