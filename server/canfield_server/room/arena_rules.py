"""Arenas, sans I/O: what a place in a heat is worth, and who races whom next.

Points by place in a heat (``PLACE_POINTS``): 1st 5, 2nd 3, 3rd 2, any other
finish 1; a racer who left the heat (``left``) scores 0. Racers the ranking
cannot tell apart (a shared ``rank``) share the points of the places they
cover, averaged and rounded half up. The podium is the first three places
but never the last place of a heat: in a pair only the winner is on it, in
a heat of three the first two. Berserk (chosen before the heat's "Go": no
undo in it) adds 1 on a podium. The streak is the store's (``ArenaStore.
heat_over``): from a racer's second podium in a row, each further podium
counts double (berserk's point included) until a heat off the podium.

Heats (``form_heats``): the racers waiting, ordered by points (then by how
long they waited), are cut into heats of at most ``HEAT_MOST`` of about the
same size, neighbours in the standing together. A heat is formed once
``gather_ms`` has passed since the longest waiter began (or a full heat
waits), so racers who finish a moment apart race together: while anyone else
waits, nobody waits longer than that for a heat (a smaller one, down to a
pair). A heat is never of fewer than ``HEAT_LEAST``: a racer waiting alone
waits for the next racer to finish (every heat ends by its time limit), and
the pair forms as soon as the gather is over. (A heat whose other racers
never sat down, their process gone, races with who came: a heat of one is
scored as a finish, 1 point, no podium.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from canfield_protocol import MemberStatus, Row

from canfield_server.room.ports import HeatPlace

__all__ = [
    "HEAT_MOST",
    "HEAT_LEAST",
    "PLACE_POINTS",
    "FINISH_POINTS",
    "BERSERK_BONUS",
    "heat_places",
    "form_heats",
    "heats_due",
    "podium_size",
]

HEAT_MOST = 8
#: the fewest racers a heat is formed with: a race needs a rival
HEAT_LEAST = 2
#: points by place (1st, 2nd, 3rd); any other finish ``FINISH_POINTS``; leaving 0
PLACE_POINTS = (5, 3, 2)
FINISH_POINTS = 1
BERSERK_BONUS = 1


def _points_at(place: int) -> int:
    return PLACE_POINTS[place - 1] if place <= len(PLACE_POINTS) else FINISH_POINTS


def podium_size(racers: int) -> int:
    """Places on the podium of a heat of ``racers``: three, never the last one."""
    return max(0, min(len(PLACE_POINTS), racers - 1))


def heat_places(
    standings: Sequence[Row], racer_of: Mapping[str, str], berserk: set[str]
) -> list[HeatPlace]:
    """What each racer's place in a finished heat is worth. ``standings``: the
    heat's ranked rows (a shared ``rank`` is a tie); ``racer_of``: member id ->
    racer (seats not in it, bots of no racer, score nothing); ``berserk``: the
    member ids who chose berserk."""
    podium = podium_size(len(standings))
    out = []
    for row in standings:
        racer = racer_of.get(row.id)
        if racer is None:
            continue
        if row.status == MemberStatus.LEFT:
            out.append(HeatPlace(racer, 0, False, 0, "-"))
            continue
        tied = sum(1 for other in standings if other.rank == row.rank)
        covered = [_points_at(p) for p in range(row.rank, row.rank + tied)]
        points = (2 * sum(covered) + len(covered)) // (2 * len(covered))  # half up
        if len(standings) == 1:  # a heat of one: a finish, never a place
            points = FINISH_POINTS
        on_podium = row.rank <= podium
        bonus = BERSERK_BONUS if row.id in berserk else 0
        out.append(HeatPlace(racer, points, on_podium, bonus, str(min(row.rank, 9))))
    return out


def heats_due(waiting: Mapping[str, int], now_ms: int, gather_ms: int) -> bool:
    """Heats form now from the racers ``waiting`` (racer -> ms they began): two or
    more, and eight of them or the longest waiter's gather over."""
    if len(waiting) < HEAT_LEAST:
        return False
    return len(waiting) >= HEAT_MOST or now_ms - min(waiting.values()) >= gather_ms


def form_heats(
    waiting: Mapping[str, int],
    points: Mapping[str, int],
    now_ms: int,
    gather_ms: int,
) -> list[list[str]]:
    """The heats to start now from the racers ``waiting`` (racer -> ms they began),
    close in ``points``; none yet while they gather, nor for a racer alone (see
    the module's words)."""
    if not heats_due(waiting, now_ms, gather_ms):
        return []
    order = sorted(waiting, key=lambda r: (-points.get(r, 0), waiting[r], r))
    count = -(-len(order) // HEAT_MOST)
    size, extra = divmod(len(order), count)
    heats, at = [], 0
    for n in range(count):
        take = size + (1 if n < extra else 0)
        heats.append(order[at : at + take])
        at += take
    return heats
