"""Race again: one tap per racer after a race, in process (``inprocess.py``).

Every racer asks for the next race and it starts by itself when the last one
does: a countdown, a new deal, nobody readies up twice. A spectator cannot
ask, asking before the end is refused, a racer who is away does not hold
the others up, and the host's rematch keeps who already asked as ready.
"""

from __future__ import annotations

from tests.server.conftest import MakeRooms
from tests.server.helpers import FAST, lobby, member, seated, start
from tests.server.inprocess import HubClient


async def finish(clients: list[HubClient]) -> None:
    for client in clients:
        await client.send(type="give_up", seq=1)
    for client in clients:
        await client.expect("finished")


async def test_the_next_race_starts_when_the_last_racer_asks(rooms: MakeRooms) -> None:
    world = await rooms(**FAST)
    room, (ann, bob, cy) = await lobby(world.open, 0, ["Ann", "Bob", "Cy"])
    watcher = await world.open()
    assert (await watcher.join(room, "Vi", "spectator"))["type"] == "joined"
    early = await bob.request("error", type="race_again")
    assert early["code"] == "wrong-phase"  # the race has not even started
    await start([ann, bob, cy])
    assert (await bob.request("error", type="race_again"))["code"] == "wrong-phase"
    await finish([ann, bob, cy])

    assert (await watcher.request("error", type="race_again"))["code"] == "not-player"
    countdowns = [m for m in ann.log if m["type"] == "countdown"]
    await bob.send(type="race_again")
    marked = await ann.expect("room", lambda m: seated(m, "Bob")["ready"])
    assert marked["phase"] == "finished" and not seated(marked, "Cy")["ready"]
    await cy.send(type="race_again")
    await ann.expect("room", lambda m: seated(m, "Cy")["ready"])
    assert [m for m in ann.log if m["type"] == "countdown"] == countdowns  # Ann has not asked

    await ann.send(type="race_again")  # the host too: every racer has asked
    for client in (ann, bob, cy, watcher):
        await client.expect("countdown")
    for client in (ann, bob, cy):
        started = await client.expect("started")
        assert started["board"]["on_foundations"] == 1
    racing = [m for m in bob.log if m["type"] == "room"][-1]
    assert racing["race"] == 2 and racing["phase"] in ("countdown", "racing")


async def test_an_away_racer_does_not_hold_up_the_next_race(rooms: MakeRooms) -> None:
    world = await rooms(**{**FAST, "away_grace_s": 60.0})
    room, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"])
    await start([ann, bob])
    await finish([ann, bob])
    await bob.close()  # gone, within the grace time
    await ann.expect("room", lambda m: seated(m, "Bob")["connected"] is False)
    await ann.send(type="race_again")
    await ann.expect("countdown")
    await ann.expect("started")


async def test_the_hosts_rematch_keeps_who_asked_ready(rooms: MakeRooms) -> None:
    world = await rooms(**FAST)
    room, (ann, bob, cy) = await lobby(world.open, 0, ["Ann", "Bob", "Cy"])
    await start([ann, bob, cy])
    await finish([ann, bob, cy])
    await bob.send(type="race_again")
    await ann.expect("room", lambda m: seated(m, "Bob")["ready"])
    await ann.send(type="rematch")
    lobby_now = await cy.expect("room", lambda m: m["phase"] == "lobby")
    assert seated(lobby_now, "Bob")["ready"] and not seated(lobby_now, "Cy")["ready"]
    assert member(lobby_now, "Ann") is not None
