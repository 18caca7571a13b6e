"""Public arenas: made by the server from a timetable, once across processes.

The timetable (``Settings.public_arenas``, ``CANFIELD_PUBLIC_ARENAS``) is a
list of entries ``EVERY@HH:MM/DRAW/MINUTES`` separated by ``;``: an arena
every ``EVERY`` minutes from ``HH:MM`` UTC (counted from 1970-01-01, so
``60@00:00`` is on the hour and ``1440@19:30`` daily at 19:30), of draw mode
``DRAW`` (1 or 3), ``MINUTES`` long (15-120, at most ``EVERY``). ``off`` (or
``none``) schedules nothing.

Each process's beat (``PublicArenas.tick``) makes the arenas of the entries
that run now or start within ``Settings.public_arena_lead_s``. An arena's
code is its slot's (``slot_code``: the entry and the start), and making it
is the arena record's set-if-absent (``ArenaStore.create``), so however many
processes try, one makes it and the others find it made. Those no page
follows are driven to their end as every arena is (``room.arena_drive``).
"""

from __future__ import annotations

import hashlib
import logging
import re
from typing import NamedTuple

from canfield_protocol import ARENA_MINUTES_LEAST, ARENA_MINUTES_MOST

from canfield_server.ops.clock import Clock
from canfield_server.ops.logs import event
from canfield_server.room.identifiers import CODE_ALPHABET
from canfield_server.room.ports import ArenaRecord, ArenaStore

__all__ = ["Slot", "parse_timetable", "slot_code", "upcoming", "PublicArenas", "NAMES"]

log = logging.getLogger(__name__)

_ENTRY = re.compile(r"^(\d{1,5})@(\d{1,2}):(\d{2})/([13])/(\d{1,3})$")
#: the names of the usual periods (the page says them in its reader's language)
NAMES = {60: "Hourly", 1440: "Daily", 10080: "Weekly"}
MINUTE_MS = 60_000


class Slot(NamedTuple):
    """One timetable entry: every ``every`` minutes from ``at`` minutes past
    midnight UTC, an arena of ``draw`` lasting ``minutes``."""

    every: int
    at: int
    draw: int
    minutes: int

    @property
    def name(self) -> str:
        period = NAMES.get(self.every, f"Every {self.every} min")
        return f"{period} Draw {self.draw}"


def parse_timetable(text: str) -> list[Slot]:
    """The entries of a timetable; a clear ``ValueError`` for a bad one."""
    if text.strip().lower() in ("", "off", "none"):
        return []
    slots = []
    for raw in text.split(";"):
        entry = raw.strip().replace(" ", "")
        if not entry:
            continue
        found = _ENTRY.match(entry)
        if found is None:
            raise ValueError(f"public arena {entry!r}: write EVERY@HH:MM/DRAW/MINUTES")
        every, hours, mins, draw, minutes = (int(g) for g in found.groups())
        if hours > 23 or mins > 59:
            raise ValueError(f"public arena {entry!r}: no such time of day")
        if not ARENA_MINUTES_LEAST <= minutes <= ARENA_MINUTES_MOST:
            raise ValueError(
                f"public arena {entry!r}: {ARENA_MINUTES_LEAST}-{ARENA_MINUTES_MOST} minutes long"
            )
        if minutes > every:
            raise ValueError(f"public arena {entry!r}: longer than its period")
        slots.append(Slot(every, hours * 60 + mins, draw, minutes))
    return slots


def slot_code(slot: Slot, starts_at: int) -> str:
    """The arena code of one slot: the same on every process, 8 characters of the
    room codes' alphabet."""
    digest = hashlib.sha256(f"public:{slot}:{starts_at}".encode()).digest()
    return "".join(CODE_ALPHABET[b % len(CODE_ALPHABET)] for b in digest[:8])


def upcoming(slots: list[Slot], now_ms: int, lead_ms: int) -> list[tuple[Slot, int]]:
    """Each slot's arenas running now or starting within ``lead_ms``: (slot, start)."""
    out = []
    for slot in slots:
        period, anchor = slot.every * MINUTE_MS, slot.at * MINUTE_MS
        start = anchor + ((now_ms - anchor) // period) * period
        if start + slot.minutes * MINUTE_MS <= now_ms:
            start += period
        while start <= now_ms + lead_ms:
            out.append((slot, start))
            start += period
    return sorted(out, key=lambda found: found[1])


class PublicArenas:
    """A beat part (``transport.beat``): the timetable's arenas made."""

    name = "public arenas"

    def __init__(
        self,
        store: ArenaStore,
        clock: Clock,
        slots: list[Slot],
        lead_s: float,
        keep_s: int,
        every_s: float,
    ) -> None:
        self.store = store
        self.clock = clock
        self.slots = slots
        self.lead_ms = round(lead_s * 1000)
        self.keep_s = keep_s
        self.every_s = self.first_s = every_s
        #: codes this process made or found made (not asked about again)
        self.known: dict[str, int] = {}
        #: the longest a public arena runs: the list read back that far
        self.longest_ms = max((s.minutes for s in slots), default=0) * MINUTE_MS

    async def tick(self) -> None:
        now = self.clock.now_ms()
        for slot, start in upcoming(self.slots, now, self.lead_ms):
            code = slot_code(slot, start)
            if code not in self.known:
                await self._make(slot, start, code)
                self.known[code] = start
        self.known = {c: at for c, at in self.known.items() if at > now - self.longest_ms}

    async def _make(self, slot: Slot, start: int, code: str) -> None:
        record = ArenaRecord(
            code=code,
            name=slot.name,
            draw=slot.draw,
            minutes=slot.minutes,
            starts_at=start,
            public=True,
            every=slot.every,
        )
        await self.store.publish(code, start, keep_ms=self.longest_ms + self.lead_ms)
        ttl = max(0, (start - self.clock.now_ms()) // 1000) + slot.minutes * 60 + self.keep_s
        if await self.store.create(record, ttl):
            event(log, "arena.scheduled", arena=code, starts_at=start, draw=slot.draw)

    async def forget(self) -> None:
        """Nothing to strike: the arenas stand on their own."""

    async def listed(self) -> list[ArenaRecord]:
        """The public arenas running now, then the next ones, soonest first."""
        now = self.clock.now_ms()
        codes = await self.store.publics(now - self.longest_ms, now + self.lead_ms)
        out = []
        for code in codes:
            found = await self.store.load(code)
            if found is not None and not found[0].over and found[0].ends_at > now:
                out.append(found[0])
        return out
