"""Race anyone, now: public races across two server processes behind nginx.

Players who ask for a quick race on different processes meet in one race
(the queue is in Redis); a later arrival inside the countdown races too; a
lone racer is offered a bot race; nobody has host powers in a public race;
``/api/live`` lists the public race and never a private room; "race again"
seats the racer in the next public race.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from canfield_client.client import RaceClient, ServerError
from canfield_protocol import BotOffer, EndRace, ErrorCode, Joined, Phase, RaceAgain, Role

from tests.conftest import ServerFactory
from tests.deploy.conftest import BEHIND_NGINX, NginxFactory, NginxProcess, instance_of

#: a countdown long enough for a third racer to arrive inside it; a short bot offer;
#: a racer who leaves after a move is rated (the fair-play rule's first seconds
#: are not waited out here: tests/deploy/test_fair_play.py covers them)
QUICK_ENV = {
    "CANFIELD_COUNTDOWN_S": "2",
    "CANFIELD_QUICK_BOT_OFFER_S": "1",
    "CANFIELD_FAIR_PLAY_LEFT_EARLY_S": "0",
}

Open = Callable[[str], Awaitable[RaceClient]]


@pytest.fixture
def proxy(server_factory: ServerFactory, nginx_factory: NginxFactory) -> NginxProcess:
    a = server_factory(env={**QUICK_ENV, **BEHIND_NGINX, "CANFIELD_INSTANCE": "proc-a"})
    b = server_factory(env={**QUICK_ENV, **BEHIND_NGINX, "CANFIELD_INSTANCE": "proc-b"})
    return nginx_factory([a.port, b.port])


@pytest.fixture
async def identified(proxy: NginxProcess) -> AsyncIterator[Open]:
    """Open an identified client through the proxy (``token``: an identity to reuse)."""
    opened: list[RaceClient] = []

    async def open_one(token: str = "") -> RaceClient:
        client = await RaceClient(proxy.ws_url).connect()
        opened.append(client)
        await client.identify(token or None)
        return client

    yield open_one
    for client in opened:
        with contextlib.suppress(Exception):
            await client.close()


async def rating_of(proxy: NginxProcess, token: str) -> dict[str, Any]:
    """An identity's draw 3 rating (``GET /api/rating``): stored before ``finished``
    goes out, but another racer's process may be the one that wrote the results."""
    request = urllib.request.Request(
        proxy.http_url + "/api/rating", headers={"X-Canfield-Identity": token}
    )
    for _ in range(100):
        with urllib.request.urlopen(request, timeout=5) as reply:
            found = [r for r in json.load(reply)["ratings"] if r["draw"] == 3 and r["races"]]
        if found:
            return found[0]
        await asyncio.sleep(0.1)
    raise AssertionError("the public race was not rated")


def live(proxy: NginxProcess) -> list[dict[str, Any]]:
    with urllib.request.urlopen(proxy.http_url + "/api/live", timeout=5) as reply:
        assert reply.headers["Content-Type"].startswith("application/json")
        races: list[dict[str, Any]] = json.load(reply)["races"]
        return races


async def refused(request: Awaitable[Any], code: str) -> str:
    with pytest.raises(ServerError) as caught:
        await request
    assert caught.value.code == code
    return caught.value.message


async def test_strangers_on_two_processes_meet_in_one_public_race(
    proxy: NginxProcess, identified: Open
) -> None:
    # a quick race needs an identity
    anonymous = await RaceClient(proxy.ws_url).connect()
    await refused(anonymous.quick("Nobody"), ErrorCode.NO_IDENTITY)
    await anonymous.close()

    # alone in Draw 1: offered a bot race after the (short) wait, never put in one
    lone = await identified("")
    offers: list[BotOffer] = []
    lone.on_message.append(lambda m: offers.append(m) if isinstance(m, BotOffer) else None)
    joined = await lone.quick("Lone", draw=1)
    assert joined.state.public and joined.role == Role.PLAYER and not joined.is_host

    # Draw 3: two strangers on two processes meet; a third joins in the countdown
    ann = await identified("")
    bob = await identified("")
    while instance_of(bob) == instance_of(ann):  # least_conn: the next goes elsewhere
        bob = await identified("")
    first = await ann.quick("Ann", draw=3)
    second = await bob.quick("Ann", draw=3)  # the same name: told apart, not refused
    assert second.room == first.room
    cara = await identified("")
    third = await cara.quick("Cara", draw=3)
    assert third.room == first.room and third.role == Role.PLAYER
    starts = await asyncio.gather(*(c.wait_started(15) for c in (ann, bob, cara)))
    assert all(s.board is not None for s in starts)
    assert len({s.started_at for s in starts}) == 1
    names = sorted(m.name for m in (ann.state or third.state).members)
    assert names == ["Ann", "Ann 2", "Cara"]

    # nobody hosts a public race
    room = first.room
    for request in (
        ann.kick(bob.player_id or ""),
        bob.settings(time_limit_s=60),
        cara.start(force=True),
        ann._request(EndRace(), Joined),
    ):
        message = await refused(request, ErrorCode.NOT_ALLOWED)
        assert "public race has no host" in message

    # a private race is never listed; the public one is, with who races it
    dan = await identified("")
    await dan.create("Dan")
    await dan.start(force=True)
    await dan.wait_started(10)
    await ann.move("S")
    listed = {race["room"]: race for race in live(proxy)}
    assert dan.room not in listed and lone.room not in listed
    race = listed[room]
    assert race["racers"] == 3 and sorted(race["names"]) == names and race["draw"] == 3
    assert race["leader"] in names and race["elapsed_ms"] >= 0

    # one seat per identity: a second tab of the lone racer cannot take another
    assert offers and offers[0].room == lone.room and offers[0].draw == 1
    assert lone.state is not None and lone.state.phase == Phase.LOBBY
    twin = await identified(lone.identity_token or "")
    await refused(twin.quick("Lone again", draw=1), ErrorCode.ALREADY_IN_ROOM)

    # the race ends; "race again" is a seat in the next public race
    for client in (ann, bob, cara):
        await client.give_up()
    finished = await ann.wait_finished(10)
    assert room not in {r["room"] for r in live(proxy)}
    # the race is rated: each racer's first public race in draw 3, newcomers all;
    # each row of the results carries the racer's new rating (the Python client too)
    rows = {row.id: row for row in finished.standings}
    for client in (ann, bob, cara):
        rated = await rating_of(proxy, client.identity_token or "")
        assert rated["draw"] == 3 and rated["races"] == 1 and rated["provisional"]
        row = rows[client.player_id or ""]
        assert (row.rating, row.rating_deviation) == (rated["rating"], rated["deviation"])
        assert row.rating_change is not None
    # the race's replay is kept, ratings in its rows, and it is in each racer's history
    assert finished.replay is not None
    with urllib.request.urlopen(proxy.http_url + finished.replay, timeout=5) as reply:
        replay = json.load(reply)
    assert {p["id"]: p["rating"] for p in replay["players"]} == {
        row.id: row.rating for row in finished.standings
    }
    for client in (ann, bob, cara):
        mine = urllib.request.Request(
            proxy.http_url + "/history",
            headers={"X-Canfield-Identity": client.identity_token or ""},
        )
        with urllib.request.urlopen(mine, timeout=5) as reply:
            assert [r["room"] for r in json.load(reply)["races"]] == [room]
    again = await ann._request(RaceAgain(), Joined)
    assert again.room != room and again.state.public and again.role == Role.PLAYER


async def test_a_racer_who_leaves_is_rated_last_and_the_rest_move_up(
    proxy: NginxProcess, identified: Open
) -> None:
    """A scripted finishing order on two processes: Cara plays, then leaves mid-race, Ann and
    Bob give up alike (a tie). Cara counts last, whatever she had done: her
    rating goes down, theirs go up, by the same amount (a tie rates alike)."""
    ann, bob, cara = await identified(""), await identified(""), await identified("")
    room = (await ann.quick("Ann")).room
    assert (await bob.quick("Bob")).room == room
    assert (await cara.quick("Cara")).room == room
    await asyncio.gather(*(c.wait_started(15) for c in (ann, bob, cara)))
    await cara.move("S")  # she raced: leaving before any move would rate nobody (fair play)
    await cara.leave()
    await ann.give_up()
    await bob.give_up()
    finished = await ann.wait_finished(10)

    rows = {row.name: row for row in finished.standings}
    assert rows["Cara"].status == "left"  # ranked by her progress, rated last
    assert rows["Ann"].rank == rows["Bob"].rank
    change = {name: row.rating_change for name, row in rows.items()}
    assert change["Cara"] is not None and change["Cara"] < 0
    assert change["Ann"] == change["Bob"] and (change["Ann"] or 0) > 0
    # what was sent is what is stored: Cara's own rating, read back
    stored = await rating_of(proxy, cara.identity_token or "")
    assert (stored["rating"], stored["races"]) == (rows["Cara"].rating, 1)
