"""``IntegrityStore`` in memory (``storage.integrity_store``'s twin)."""

from __future__ import annotations

import msgspec

from canfield_server.room.ports import (
    REVIEW_CLEARED,
    REVIEW_CONFIRMED,
    REVIEW_OPEN,
    ReviewCase,
    race_of,
)
from canfield_server.storage.memory.backend import MemoryBackend

__all__ = ["MemoryIntegrityStore"]


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
