"""Rating bands in quick races. On two real server processes sharing Redis,
two lone racers far apart meet without a third, as one of them, looking
again, finds the other's race has widened to take them (short bands and
waits: ``BAND_ENV``). In process, on the manual clock (``IN_PROCESS_BANDS``):
two close racers meet and a far one is not put with them; once the bands
have widened, the far racer and the next newcomer race; and the ways a racer
looking again stays or moves.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from canfield_bench.processes import ServerProcess
from canfield_client.client import RaceClient
from canfield_protocol import Left
from canfield_server.room.ports import RaceSearch
from canfield_server.room.public import Ask, pool_of

from tests.conftest import ServerFactory
from tests.server.conftest import MakeRooms
from tests.server.helpers import (
    IN_PROCESS_BANDS,
    rate_far,
    rate_far_in,
)

#: a band of 50 points that widens by 1000 after 4 s (each lone racer looks again
#: then): the second racer's ask, just after the first's, comes well before any
#: band has widened, on a busy machine too, so each opens a race of their own
BAND_ENV = {
    "CANFIELD_QUICK_BAND_POINTS": "50",
    "CANFIELD_QUICK_BAND_WIDEN_POINTS": "1000",
    "CANFIELD_QUICK_BAND_WIDEN_S": "4",
    "CANFIELD_QUICK_BAND_MOST_POINTS": "1000",
    "CANFIELD_COUNTDOWN_S": "1",
}

Open = Callable[[ServerProcess], Awaitable[RaceClient]]


@pytest.fixture
def processes(server_factory: ServerFactory) -> tuple[ServerProcess, ServerProcess]:
    return server_factory(env=BAND_ENV), server_factory(env=BAND_ENV)


async def test_close_racers_meet_first_and_a_far_one_after_the_band_widened(
    rooms: MakeRooms,
) -> None:
    """In process, on the manual clock (two hubs, shared storage)."""
    world = await rooms(processes=2, **IN_PROCESS_BANDS)
    far, ann, bob, cara = [await world.open(process) for process in (0, 0, 1, 1)]
    token = (await far.request("identity", type="identify"))["token"]
    for client in (ann, bob, cara):
        await client.request("identity", type="identify")
    await rate_far_in(world, token)

    # the far racer opens a race; a newcomer just after is too far for its band
    # (50 points yet) and opens another; a second newcomer, on the other
    # process, takes the closer race: the two newcomers meet
    alone = (await far.request("joined", type="quick", name="Far", draw=3))["room"]
    first = (await ann.request("joined", type="quick", name="Ann", draw=3))["room"]
    assert first != alone
    assert (await bob.request("joined", type="quick", name="Bob", draw=3))["room"] == first
    await ann.expect("started")  # dealt 2 s in, before any band has widened

    # the first race is dealt and takes nobody more; once the bands have widened,
    # the far racer and the next newcomer race each other (whoever's race it is)
    await cara.request("joined", type="quick", name="Cara", draw=3)
    starts = [await far.expect("started"), await cara.expect("started")]
    assert starts[0]["started_at"] == starts[1]["started_at"]
    room = [m["room"] for m in far.log if m["type"] == "joined"][-1]
    assert room == [m["room"] for m in cara.log if m["type"] == "joined"][-1] != first
    state = [m for m in far.log if m["type"] == "room"][-1]
    assert state["room"] == room
    assert sorted(m["name"] for m in state["members"]) == ["Cara", "Far"]


async def test_two_lone_racers_far_apart_meet_once_the_bands_have_widened(
    processes: tuple[ServerProcess, ServerProcess], identified: Open
) -> None:
    """... and the one who moved holds the seat as their own: both are rated,
    and both keep the race in their history."""
    a, b = processes
    far, ann = await identified(a), await identified(b)
    await rate_far(a.redis_url, far.identity_token or "")
    left: list[object] = []
    for client in (far, ann):
        client.on_message.append(lambda m: left.append(m) if isinstance(m, Left) else None)

    # 600 apart, bands of 50: each opens a race of their own, on their own process
    first = await far.quick("Far")
    second = await ann.quick("Ann")
    assert first.room != second.room
    # nobody else comes; after 4 s the bands are 1,050 wide and one of the two,
    # looking again, moves into the other's race (told by ``joined``, no ``left``)
    started = await asyncio.gather(far.wait_started(60), ann.wait_started(60))
    assert started[0].started_at == started[1].started_at
    assert far.room == ann.room and far.room in (first.room, second.room)
    assert far.state is not None and sorted(m.name for m in far.state.members) == ["Ann", "Far"]
    assert not left and far.token and ann.token  # both seats can be resumed

    await asyncio.gather(far.give_up(), ann.give_up())
    for finished in await asyncio.gather(far.wait_finished(60), ann.wait_finished(60)):
        assert [row.rating is not None for row in finished.standings] == [True, True]
    for racer in (far, ann):
        assert [race.room for race in (await racer.history()).races] == [far.room]


async def test_a_lone_racer_never_leaves_their_race_for_one_already_dealt(
    rooms: MakeRooms,
) -> None:
    """In process, on the manual clock: the far racer looks again once the bands
    have widened, finds the close racers' race in the pool but dealt, and stays
    where they are (offered a bot race there at last), never moved into a new
    race that would start its band narrow again."""
    world = await rooms(processes=2, **IN_PROCESS_BANDS)
    far, ann, bob = await world.open(0), await world.open(1), await world.open(0)
    token = (await far.request("identity", type="identify"))["token"]
    for client in (ann, bob):
        await client.request("identity", type="identify")
    await rate_far_in(world, token)

    alone = (await far.request("joined", type="quick", name="Far", draw=3))["room"]
    first = (await ann.request("joined", type="quick", name="Ann", draw=3))["room"]
    assert (await bob.request("joined", type="quick", name="Bob", draw=3))["room"] == first
    assert first != alone
    await ann.expect("started")  # dealt 2 s in, before any band has widened
    offer = await far.expect("bot_offer")  # 30 s of looking again every 3 s
    assert offer["room"] == alone
    assert [m["type"] for m in far.log].count("joined") == 1


async def test_a_lone_racer_back_on_another_connection_is_still_offered_a_bot_race(
    rooms: MakeRooms,
) -> None:
    """A reload (or a drain) brings the lone racer back on a new connection, here
    on the other process: waiting on, they are offered a bot race after the wait,
    and look again as the bands widen, as on arrival."""
    world = await rooms(processes=2, quick_bot_offer_s=20)
    first = await world.open(0)
    identity = (await first.request("identity", type="identify"))["token"]
    joined = await first.request("joined", type="quick", name="Ann", draw=3)
    await first.close()  # the page reloads

    again = await world.open(1)
    await again.request("identity", type="identify", token=identity)
    back = await again.resume(joined["room"], joined["token"])
    assert back["room"] == joined["room"] and back["player_id"] == joined["player_id"]
    offer = await again.expect("bot_offer")
    assert offer["room"] == joined["room"] and offer["waited_s"] == 20


async def test_a_racer_who_moves_leaves_their_other_tab_told_the_seat_is_gone(
    rooms: MakeRooms,
) -> None:
    """Ann waits first; Far, 600 above, comes second and has a second tab on the
    seat. Far's first look again (3 s on) finds Ann's race widened and moves
    there: that tab gets ``joined`` for it, the other tab ``left`` (its seat is
    gone), and Ann and Far race."""
    world = await rooms(processes=2, **IN_PROCESS_BANDS)
    ann, far, tab = await world.open(1), await world.open(0), await world.open(1)
    await ann.request("identity", type="identify")
    token = (await far.request("identity", type="identify"))["token"]
    await rate_far_in(world, token)

    first = (await ann.request("joined", type="quick", name="Ann", draw=3))["room"]
    await world.clock.advance(1)  # Ann's race is a second older than Far's
    seat = await far.request("joined", type="quick", name="Far", draw=3)
    assert seat["room"] != first
    await tab.request("identity", type="identify", token=token)
    await tab.resume(seat["room"], seat["token"])

    moved = await far.expect("joined")
    assert (await tab.expect("left"))["room"] == seat["room"]
    assert moved["room"] == first
    await ann.expect("started")
    await far.expect("started")


async def test_a_racer_who_gets_company_as_they_move_stays_and_their_race_gathers_on(
    rooms: MakeRooms,
) -> None:
    """Far's look again has found Ann's race and taken Far's own out of the pool
    (one step), but Cara joined Far's race meanwhile, through the other process:
    Far stays to race her, and their race is back in the pool for more."""
    world = await rooms(processes=2, quick_band_points=50, countdown_s=5)
    far, cara, ann = await world.open(0), await world.open(1), await world.open(1)
    tokens = [(await c.request("identity", type="identify"))["token"] for c in (far, cara, ann)]
    for token in tokens[:2]:
        await rate_far_in(world, token)
    mine = (await far.request("joined", type="quick", name="Far", draw=3))["room"]
    other = (await ann.request("joined", type="quick", name="Ann", draw=3))["room"]
    assert (await cara.request("joined", type="quick", name="Cara", draw=3))["room"] == mine

    waiting = world.hubs[0].quick.waiting
    identity = world.hubs[0].identities.of(far.peer)
    assert identity is not None
    ask = Ask(pool_of(3), 3, 1600, "Far", identity)
    await waiting.queue.close_race(ask.pool, mine)  # as the look again's script did
    waiting._alone = lambda peer, code: True  # type: ignore[method-assign]  # not yet seen here
    await waiting._move(far.peer, mine, other, ask)

    assert far.peer.room == mine
    assert "left" not in [m["type"] for m in far.log]
    band = waiting.band
    now = world.clock.now_ms()
    assert await waiting.queue.find_race(RaceSearch(ask.pool, 1600, now, band, ttl_s=600)) == mine
