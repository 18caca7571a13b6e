"""A crowd asking for a quick race at once, split across two server processes.

Every seat a racer was told of (``joined``) is in the race it names, no
race seats more than its cap, and every racer with company gets
``started``. This caught a process that, opening its view of a race while
the other process seated racers in it, went back to the older state it had
read and wrote its next seat over theirs: a racer told ``joined`` lost the
seat, and another took it (a race of 9 ``joined`` answers for 8 seats).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from collections.abc import AsyncIterator, Callable

import pytest
from canfield_client.client import RaceClient
from canfield_protocol import Joined, Started

from tests.conftest import ServerFactory, ServerProcess

CAP = 8
CROWD = 5 * CAP
#: a countdown long enough for the whole crowd to be seated inside it on a busy box
ENV = {
    "CANFIELD_COUNTDOWN_S": "4",
    "CANFIELD_QUICK_MAX_RACERS": str(CAP),
    "CANFIELD_QUICK_BURST": "1000",
    "CANFIELD_QUICK_PER_S": "1000",
    "CANFIELD_HANDSHAKES_PER_IP_BURST": "1000",
    "CANFIELD_HANDSHAKES_PER_IP_PER_S": "1000",
    "CANFIELD_MAX_CONNS_PER_IP": "0",
}


@pytest.fixture
def two(server_factory: ServerFactory) -> tuple[ServerProcess, ServerProcess]:
    return server_factory(env=ENV), server_factory(env=ENV)


@pytest.fixture
async def crowd(two: tuple[ServerProcess, ServerProcess]) -> AsyncIterator[list[RaceClient]]:
    clients = [RaceClient(two[n % 2].ws_url) for n in range(CROWD)]
    await asyncio.gather(*(c.connect() for c in clients))
    await asyncio.gather(*(c.identify(None) for c in clients))
    yield clients
    for client in clients:
        with contextlib.suppress(Exception):
            await client.close()


async def members_become(
    client: RaceClient, ids: Callable[[], set[str]], timeout: float = 30.0
) -> set[str]:
    """The member ids the client's view of its room settles on (``ids()``, or the
    last seen when they never come)."""
    seen: set[str] = set()
    for _ in range(int(timeout / 0.05)):
        seen = {m.id for m in client.state.members} if client.state else set()
        if seen == ids():
            break
        await asyncio.sleep(0.05)
    return seen


async def test_a_crowd_on_two_processes_keeps_every_seat_it_was_told_of(
    crowd: list[RaceClient],
) -> None:
    answers: list[Joined] = await asyncio.gather(
        *(c.quick(f"R{n}", draw=3) for n, c in enumerate(crowd))
    )
    by_room: dict[str, list[tuple[RaceClient, Joined]]] = defaultdict(list)
    for client, joined in zip(crowd, answers, strict=True):
        by_room[joined.room].append((client, joined))
    assert all(len(seated) <= CAP for seated in by_room.values()), {
        room: len(seated) for room, seated in by_room.items()
    }
    raced = [seated for seated in by_room.values() if len(seated) >= 2]
    assert sum(len(seated) for seated in raced) >= CROWD - 1  # at most one is left alone

    for seated in raced:
        clients = [client for client, _ in seated]
        starts = await asyncio.gather(
            *(c.wait_started(30) for c in clients), return_exceptions=True
        )
        pairs = list(zip(seated, starts, strict=True))
        unstarted = [j.player_id for (_, j), s in pairs if isinstance(s, BaseException)]
        assert not unstarted, f"told joined, never started: {unstarted}"
        assert len({s.started_at for s in starts if isinstance(s, Started)}) == 1
        told = {joined.player_id for _, joined in seated}
        room = seated[0][1].room

        def now_in_room(room: str = room) -> set[str]:
            """Who is in the race now: those told ``joined`` to it, and a racer left
            alone in another race whom this one took in its countdown (a lone
            racer looks again as the bands widen: ``room.quick_waiting``)."""
            return {c.player_id for c in crowd if c.room == room and c.player_id}

        views = await asyncio.gather(*(members_become(c, now_in_room) for c in clients))
        ids = now_in_room()
        came = {
            j.player_id: j.room
            for c, j in zip(crowd, answers, strict=True)
            if c.player_id in ids - told
        }
        assert all(len(by_room[first]) == 1 for first in came.values()), (came, told)
        assert told <= ids, f"told joined, no longer in the race: {told - ids}"
        wrong = {
            j.player_id: (v - ids, ids - v)
            for (_, j), v in zip(seated, views, strict=True)
            if v != ids
        }
        assert not wrong, f"views of {ids} (racer: extra, missing): {wrong}"
