"""The integrity review: each result's assessment, the flagged queue, the bars."""

from __future__ import annotations

from typing import Protocol

import msgspec

from canfield_server.room.integrity import Signals

__all__ = [
    "REVIEW_OPEN",
    "REVIEW_CLEARED",
    "REVIEW_CONFIRMED",
    "room_result",
    "daily_result",
    "race_of",
    "ReviewCase",
    "IntegrityStore",
]


#: a flagged result waiting for the operator: shown to others as "under review",
#: off the ladder and the daily ranked list
REVIEW_OPEN = "open"
#: the operator found nothing wrong: the result stands again
REVIEW_CLEARED = "cleared"
#: the operator confirmed it: the result is removed, its identity barred from ranked play
REVIEW_CONFIRMED = "confirmed"


def room_result(code: str, race_no: int, member_id: str) -> str:
    """The result id of one racer's race in a room (a private or a public race)."""
    return f"{code}:{race_no}:{member_id}"


def daily_result(date: str, draw: int, public_id: str) -> str:
    """The result id of one identity's daily race (the same as its replay id)."""
    return f"d-{date}-{draw}-{public_id}"


def race_of(case: ReviewCase) -> str | None:
    """The race a result belongs to, as ``IntegrityStore.race_flags`` groups them:
    a daily's day and draw mode, a room race's replay id (None: it kept none)."""
    if case.kind == "daily":
        return f"daily:{case.date}:{case.draw}"
    return case.replay.rsplit("/", 1)[-1] if case.replay else None


class ReviewCase(msgspec.Struct, frozen=True, kw_only=True):
    """One finished racer's result as the integrity review keeps it: the evidence,
    who raced, which race, and (once flagged) where its review stands."""

    #: ``room_result`` or ``daily_result``
    result: str
    #: ``room`` (a private room's race), ``public`` (a quick race) or ``daily``
    kind: str
    #: server ms (epoch) when the assessment was recorded
    at: int
    draw: int
    #: a room race: its room code and race number; a daily: its date
    room: str | None = None
    #: the arena a room race is a heat of (None: no arena's): a flagged heat
    #: result's points leave its standing while under review (``room.arena_results``)
    arena: str | None = None
    race_no: int | None = None
    date: str | None = None
    #: the racer: identity token hash and public id (None: an unidentified guest),
    #: member id in the room (the daily: the public id) and the name raced under
    identity: str | None = None
    public_id: str | None = None
    member_id: str
    name: str
    #: the replay's link (``/replay/ID``), if the race kept one
    replay: str | None = None
    #: the network the racer's address belongs to (``identifiers.address_prefix``) and
    #: the public ids of the other identities seen on that network
    network: str | None = None
    shares: list[str] = []
    signals: Signals
    #: why the flag rule flagged it (empty: not flagged)
    reasons: list[str] = []
    #: "" (not flagged), ``REVIEW_OPEN``, ``REVIEW_CLEARED`` or ``REVIEW_CONFIRMED``;
    #: the operator who decided and when (server ms)
    status: str = ""
    decided_by: str | None = None
    decided_at: int | None = None


class IntegrityStore(Protocol):
    """Each finished result's integrity assessment, the queue of flagged ones
    (open until the operator clears or confirms them) and the identities barred
    from ranked play. Kept ``history_retention_days``."""

    async def record(self, case: ReviewCase) -> bool:
        """Keep one result's assessment, once: False (nothing changes) when that
        result has one already. A case with ``reasons`` is flagged: it is stored
        ``REVIEW_OPEN`` (whatever ``status`` it came with) and joins the queue;
        one without is stored with no status."""
        ...

    async def case(self, result: str) -> ReviewCase | None: ...

    async def open_cases(self, limit: int) -> list[ReviewCase]:
        """The first ``limit`` open cases, the newest recorded first."""
        ...

    async def decided_cases(self, limit: int) -> list[ReviewCase]:
        """The last ``limit`` decided cases, the latest decision first."""
        ...

    async def decide(self, result: str, confirm: bool, by: str, at: int) -> ReviewCase | None:
        """Clear (``confirm`` False) or confirm an open case, once: the case as
        decided, or None (nothing changes) when ``result`` is no open case
        (unknown, never flagged, or decided already). Confirming bars its
        identity from ranked play."""
        ...

    async def statuses(self, results: list[str]) -> dict[str, str]:
        """The flagged ones among ``results`` (read together): result -> status."""
        ...

    async def barred(self, identities: list[str]) -> set[str]:
        """The identities (token hashes) among these barred from ranked play."""
        ...

    async def barred_players(self, public_ids: list[str]) -> set[str]:
        """The same by public id (the daily standing's rows carry those)."""
        ...

    async def under_review(self, identities: list[str]) -> set[str]:
        """The identities (token hashes) among these with an open case."""
        ...

    async def race_flags(self, race: str) -> dict[str, str]:
        """One race's flagged results (``race_of``): a room race's member id, or
        a daily's public id -> status."""
        ...
