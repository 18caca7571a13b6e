"""A process's view of one room (``RoomSession``) only ever moves forward.

Its state and version are what this process's compare-and-set starts from,
so a view that went back to an older state under a newer version would let
the next save write over the changes between them.
"""

from __future__ import annotations

from canfield_server.ops.clock import ManualClock
from canfield_server.room import public
from canfield_server.room.leaderboard import Pace
from canfield_server.room.ports import RoomRecord
from canfield_server.room.session import RoomSession


class NoHooks:
    def time_up(self, code: str, race_no: int) -> None: ...

    def unseated(self, session: RoomSession, member_id: str) -> None: ...

    def grace_over(self, code: str) -> None: ...


def test_a_forced_re_read_older_than_the_bus_keeps_the_newer_state() -> None:
    opened = public.create_public_room("ABC234", 3)
    one = public.seat_public(opened, "p1", "Ann", 0, 8)
    two = public.seat_public(one, "p2", "Bob", 0, 8)
    session = RoomSession(RoomRecord(one, 2), Pace(0.1), NoHooks(), ManualClock())

    session.adopt(3, two, None)  # another process seated Bob: the bus brings it
    session.adopt(2, one, None, force=True)  # the re-read made before it arrives late
    assert (session.ver, session.state) == (3, two)

    session.adopt(2, one, None)  # an old event is ignored
    assert (session.ver, session.state) == (3, two)
    resynced = public.seat_public(two, "p3", "Cara", 0, 8)
    session.adopt(3, resynced, None, force=True)  # an equal version is adopted when forced
    assert session.state == resynced
