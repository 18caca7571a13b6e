"""Identities, their finished races and the room replays."""

from __future__ import annotations

from typing import NamedTuple, Protocol

__all__ = [
    "IdentityBudget",
    "IdentitiesRefused",
    "IdentityStore",
]


class IdentityBudget(NamedTuple):
    """New identities one network (``identifiers.address_prefix``) may have: a token
    bucket of ``burst``, refilled at ``per_hour`` (``Settings``)."""

    burst: int
    per_hour: float

    def keep_ms(self) -> int:
        """How long a network's bucket is kept after it last asked: a day, or as
        long as it takes to fill again if that is longer."""
        if self.per_hour <= 0:
            return 7 * 86_400_000
        return max(86_400_000, int(self.burst / self.per_hour * 3_600_000) + 60_000)


class IdentitiesRefused(NamedTuple):
    """A network's budget of new identities is spent: its limits, and when (server
    ms) the next identity is back (-1: never; the refill rate is 0)."""

    burst: int
    per_hour: float
    retry_at: int


class IdentityStore(Protocol):
    """Identities (stored by the hash of their token), their finished races, the
    room replays, and which identity sits in which room seat.

    A new identity lives a short while (a day) unless it finishes a race: a
    history entry added for it (``add_races``) keeps it, and it then lives the
    full retention from its last use."""

    async def claim_identity(
        self, network: str, budget: IdentityBudget
    ) -> IdentitiesRefused | None:
        """Take one new identity from ``network``'s bucket (None), or say when one
        is back (nothing taken); one atomic step, shared by every process. Both
        are counted for the operator console."""
        ...

    async def new_identity(self, token_hash: str, public_id: str, network: str = "") -> None:
        """Store a new identity, issued to ``network`` (empty: no address)."""
        ...

    async def identity(self, token_hash: str) -> tuple[str, int, str] | None:
        """(public id, streak, date of the last daily played), keeping it alive
        if it is kept (it finished a race)."""
        ...

    async def identity_created(self, token_hash: str) -> int | None:
        """When the identity was issued (server ms; None: no such identity)."""
        ...

    async def identity_network(self, token_hash: str) -> str | None:
        """The network (``identifiers.address_prefix``) the identity was issued to; None
        when unknown (no address, an identity older than this field, or none)."""
        ...

    async def note_daily(self, token_hash: str, date: str, day_before: str) -> int: ...

    async def link_member(
        self, room: str, member_id: str, token_hash: str, network: str = ""
    ) -> None:
        """The seat ``member_id`` of ``room`` is ``token_hash``'s, taken from
        ``network`` ("": no network - an in-process peer, this host's own)."""
        ...

    async def room_networks(self, room: str) -> dict[str, str]:
        """member id -> the network its seat was last taken from (none: absent)."""
        ...

    async def room_identities(self, room: str) -> dict[str, str]: ...

    async def add_races(self, entries: list[tuple[str, bytes]]) -> None: ...

    async def races(self, token_hash: str, limit: int) -> list[bytes]: ...

    async def delete_races(self, token_hash: str) -> int: ...

    async def save_replay(self, replay_id: str, body: bytes) -> None: ...

    async def load_replay(self, replay_id: str) -> bytes | None: ...
