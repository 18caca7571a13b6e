"""Past public races kept for a ghost offer: someone real to race at once.

A racer waiting alone for a public race may race a ghost instead: a real
racer of a finished public race, near their rating. Once a public race's
results are written, its rated racers whose every action has its time are
kept by their rating in the pool's ``MatchQueue`` (the newest
``QUICK_PAST_KEEP``); a lone racer is offered the closest one that is not
their own. Kept apart from the waiting itself (``room.quick_waiting``)
because it starts at a race's end, not at a racer's ask.
"""

from __future__ import annotations

import msgspec
from canfield_protocol import Finished, GhostOffer, MemberStatus, RoomState

from canfield_server.room.ports import IdentityStore, MatchQueue
from canfield_server.room.public import Ask, pool_of

__all__ = ["PastRacers", "QUICK_PAST_KEEP", "QUICK_PAST_LOOK"]

#: finished public races' racers kept per pool for ghost offers (the newest)
QUICK_PAST_KEEP = 500
#: the kept racers nearest a lone racer's rating looked at for a ghost offer: their
#: own past races among them are passed over (never offered one's own race)
QUICK_PAST_LOOK = 16


class _Past(msgspec.Struct, array_like=True):
    """A finished public race's racer, as the pool keeps it for a ghost offer."""

    replay: str
    racer: str
    name: str
    status: MemberStatus
    time_ms: int
    cards: int
    #: whose race it was: the start of their identity's token hash ("": not
    #: identified), so a racer is never offered their own
    owner: str = ""


_past = msgspec.json.Decoder(_Past)


def _owner(token_hash: str | None) -> str:
    """An identity as a kept racer names it: enough of its token hash to tell two apart."""
    return (token_hash or "")[:16]


class PastRacers:
    """The finished public races' racers each pool keeps, and the ghost offer made of them."""

    def __init__(self, queue: MatchQueue, identities: IdentityStore) -> None:
        self.queue = queue
        self.identities = identities

    async def remember(self, state: RoomState, finished: Finished) -> None:
        """A race's results were written: a public race's rated racers are kept
        by their rating for a lone racer's ghost offer, now that it is over."""
        if not state.public or not finished.replay:
            return
        replay, times = finished.replay.rsplit("/", 1)[-1], finished.replay_times or {}
        pool = pool_of(state.settings.draw)
        owners = await self.identities.room_identities(state.room)
        for row in finished.standings:
            moves = finished.replays.get(row.id, [])
            if row.rating is None or len(times.get(row.id, ())) != len(moves) or not moves:
                continue
            owner = _owner(owners.get(row.id))
            past = _Past(
                replay, row.id, row.name, row.status, row.time_ms, row.on_foundations, owner
            )
            await self.queue.keep_past(
                pool, msgspec.json.encode(past).decode(), row.rating, QUICK_PAST_KEEP
            )

    async def ghost_offer(self, code: str, ask: Ask) -> GhostOffer | None:
        """The kept racer closest to the asker's rating in their pool, as an offer
        to them, alone in ``code``; None: none but their own."""
        near = await self.queue.past_near(ask.pool, ask.rating, QUICK_PAST_LOOK)
        mine = _owner(ask.identity.token_hash)
        others = (past for past in map(_past.decode, near) if past.owner != mine)
        past = next(others, None)
        if past is None:
            return None
        return GhostOffer(
            room=code,
            draw=ask.draw,
            replay=past.replay,
            racer=past.racer,
            name=past.name,
            status=past.status,
            time_ms=past.time_ms,
            cards=past.cards,
        )
