"""An arena's results: each racer's place kept in their history at its end, and
a heat result the integrity review flagged kept off the standing meanwhile.

Fair play applies to arenas as to every race (``room.review``): a flagged
result is *under review* until the operator decides. For an arena that means
the points its heat gave the racer leave the standing (``ArenaStore.hold``:
their streak and places stay as raced; only the points go), so while the
review is open they count neither for the rank nor for the podium and the
trophies. Cleared, the points come back (``ArenaStore.release``) and, if the
arena is over already, every racer's place in their history is written again
(``ArenaStore.rewrite_results``), trophies included. Confirmed, they stay out.
"""

from __future__ import annotations

import logging

import msgspec
from canfield_protocol import ArenaResult

from canfield_server.ops.clock import Clock
from canfield_server.ops.config import Settings
from canfield_server.ops.logs import event
from canfield_server.room.ports import REVIEW_CLEARED, ArenaRecord, ArenaStore, ReviewCase

__all__ = ["ArenaResults", "TROPHIES"]

log = logging.getLogger(__name__)

#: places of a public arena that win a trophy (in the racer's history, on ``/me``)
TROPHIES = 3


class ArenaResults:
    def __init__(self, store: ArenaStore, clock: Clock, settings: Settings) -> None:
        self.store = store
        self.clock = clock
        self.history_max = settings.history_max_races
        self.keep_s = settings.history_retention_days * 86400

    async def keep(self, record: ArenaRecord, again: bool = False) -> None:
        """Each racer's place goes into their identity's arena history (once: the
        arena's end is claimed by one caller); ``again``: the places changed
        since (a review cleared), each racer's entry of this arena rewritten."""
        code = record.code
        owners = await self.store.owners(code)
        top, count = await self.store.standing(code, max(1, len(owners)))
        ranks = await self.store.entries(code, [line.racer for line in top])
        results = {}
        for line in top:
            owner = owners.get(line.racer)
            if owner is None or line.heats == 0 or line.racer not in ranks:
                continue
            place = ranks[line.racer][1]
            result = ArenaResult(
                code=code,
                name=record.name,
                draw=record.draw,
                place=place,
                racers=count,
                points=line.points,
                heats=line.heats,
                ended_at=self.clock.now_ms(),
                public=record.public,
                every=record.every,
                trophy=place if record.public and place <= TROPHIES else 0,
            )
            results[owner] = msgspec.json.encode(result)
        if results and again:
            await self.store.rewrite_results(code, results)
        elif results:
            await self.store.keep_results(results, self.history_max, self.keep_s)

    async def flagged(self, case: ReviewCase) -> None:
        """A heat result was flagged (``room.assess``): its points leave the standing."""
        racer = await self._racer(case)
        if racer is not None and case.arena and case.room:
            if await self.store.hold(case.arena, case.room, racer):
                event(log, "arena.result_held", arena=case.arena, heat=case.room, racer=racer)

    async def decided(self, case: ReviewCase) -> None:
        """The operator decided a case (``Reviews.decide``): cleared, a heat result's
        points come back, and an arena over already has its places written again."""
        racer = await self._racer(case)
        if racer is None or case.status != REVIEW_CLEARED or not case.arena or not case.room:
            return
        if not await self.store.release(case.arena, case.room, racer):
            return
        event(log, "arena.result_released", arena=case.arena, heat=case.room, racer=racer)
        found = await self.store.load(case.arena)
        if found is not None and found[0].over:
            await self.keep(found[0], again=True)

    async def _racer(self, case: ReviewCase) -> str | None:
        """The arena racer whose heat result a case is (None: no arena heat's)."""
        if not case.arena or not case.room:
            return None
        return (await self.store.seats(case.arena, case.room)).get(case.member_id)
