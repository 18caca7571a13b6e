"""A finished race's replay, found by its id: the one reader of replays.

The replay page and a share's preview (``/replay/<id>``), a ghost race and
a challenge link all read a replay here: a room race's as it was kept
(``IdentityStore.load_replay``), with the integrity review's marks on its
racers (``Reviews.mark_replay``), or a daily race's built from the day's
log (``DailyRaces.replay``, once its day is over). One reader, so a race
raced again as ghosts is the replay a page shows, and a refusal reads the
same over HTTP (a status) and on the socket (an error code).
"""

from __future__ import annotations

import msgspec
from canfield_protocol import DailyReplay, ProtocolError, RoomReplay, encode
from canfield_protocol import ErrorCode as E

from canfield_server.ops.clock import is_date
from canfield_server.room.daily import DailyRaces
from canfield_server.room.identity import REPLAY_ID
from canfield_server.room.ports import IdentityStore
from canfield_server.room.review import Reviews

__all__ = ["Replays"]

_room_replay = msgspec.json.Decoder(RoomReplay)
_replay = msgspec.json.Decoder(RoomReplay | DailyReplay)


class Replays:
    """Replays by id, for a page (a status and a body) or to race again."""

    def __init__(self, identities: IdentityStore, daily: DailyRaces, reviews: Reviews) -> None:
        self.identities = identities
        self.daily = daily
        self.reviews = reviews

    async def find(self, replay_id: str) -> tuple[int, bytes | dict[str, str]]:
        """``/replay/<id>``: (HTTP status, the replay's JSON, or an error body)."""
        if not REPLAY_ID.match(replay_id):
            return 404, {"error": f"no replay {replay_id[:40]!r}"}
        if replay_id.startswith("d-"):
            _, year, month, day, draw, player = replay_id.split("-")
            if not is_date(f"{year}-{month}-{day}"):
                return 404, {"error": "no replay: not a date"}
            status, daily = await self.daily.replay(f"{year}-{month}-{day}", int(draw), player)
            return status, encode(daily) if isinstance(daily, DailyReplay) else daily
        found = await self.identities.load_replay(replay_id)
        if found is None:
            return 404, {"error": f"no replay {replay_id!r} (unknown, or past its retention)"}
        body = await self.reviews.mark_replay(_room_replay.decode(found))
        return 200, encode(body)

    async def to_race(self, replay_id: str) -> RoomReplay | DailyReplay:
        """A replay to race as ghosts, or why not (the HTTP refusals in the
        protocol's words)."""
        status, body = await self.find(replay_id)
        if status == 403:
            raise ProtocolError(E.NOT_ALLOWED, "a daily race is raced once its day is over")
        if status != 200 or not isinstance(body, bytes):
            raise ProtocolError(E.UNKNOWN_REPLAY, "no such replay (unknown, or past its retention)")
        return _replay.decode(body)
