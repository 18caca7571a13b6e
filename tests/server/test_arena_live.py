"""An arena on real processes: six racers (bots' play, websocket clients) on two
server processes and one redis-server race heats until the host ends it; every
finisher is in a new heat within the bound, the heats are unrated, and the
standing is the same on both processes."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from canfield_client.arena import race_arena
from canfield_client.client import RaceClient
from canfield_client.strategy import Strategy
from canfield_protocol import ArenaMsg, Finished, Joined, Left

from tests.conftest import Identified, ServerFactory
from tests.server.helpers import call

ENV = {
    "CANFIELD_COUNTDOWN_S": "0.5",
    "CANFIELD_ARENA_TICK_S": "0.5",
    "CANFIELD_ARENA_GATHER_S": "1",
    "CANFIELD_ARENA_SEAT_WAIT_S": "3",
}
#: the bound a finished racer waits for their next heat: the gather while others
#: wait (alone: until the next finisher, here a bot's quick race), a tick to form
#: it, a tick to seat them, and slack for a busy machine
BOUND_S = 8 + 0.5 + 0.5 + 10
NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"]


def rows(msg: ArenaMsg) -> list[tuple[str, int, int, int, str]]:
    return [(r.name, r.points, r.streak, r.heats, r.last) for r in msg.standing]


async def test_six_racers_on_two_processes_race_an_arena_to_its_end(
    server_factory: ServerFactory, identified: Identified
) -> None:
    servers = [server_factory(env=ENV), server_factory(env=ENV)]
    racers: list[RaceClient] = [
        await identified(servers[n % 2], f"127.0.0.{n + 2}") for n in range(len(NAMES))
    ]
    host = racers[0]
    made = await host.arena_create("Friday", "Ann", minutes=15)
    code = made.arena.code
    watchers = [await RaceClient(s.ws_url).connect() for s in servers]
    for watcher in watchers:
        await watcher.arena_watch(code)

    # when each racer finished a heat (left it) and next joined one
    waits: list[float] = []
    finishes: list[Finished] = []
    left_at: dict[int, float] = {}

    def timer(n: int) -> Any:
        def heard(msg: Any) -> None:
            if isinstance(msg, Left):
                left_at[n] = time.monotonic()
            elif isinstance(msg, Joined) and n in left_at:
                waits.append(time.monotonic() - left_at.pop(n))
            elif isinstance(msg, Finished):
                finishes.append(msg)

        return heard

    for n, client in enumerate(racers):
        client.on_message.append(timer(n))
    tasks = [
        asyncio.create_task(
            race_arena(c, code, name, Strategy("normal", random.Random(n)), berserk=n == 0)
        )
        for n, (c, name) in enumerate(zip(racers, NAMES, strict=True))
    ]

    async def everyone_raced(heats: int) -> None:
        while True:
            seen = watchers[1].arena
            if seen and seen.racers == 6 and all(r.heats >= heats for r in seen.standing):
                return
            await asyncio.sleep(0.2)

    async with asyncio.timeout(200):
        await everyone_raced(2)
    await host.arena_end()
    async with asyncio.timeout(120):
        raced = await asyncio.gather(*tasks)
        while not all(w.arena and w.arena.arena.status == "over" for w in watchers):
            await asyncio.sleep(0.2)
    assert all(n >= 2 for n in raced), raced
    finals = [w.arena for w in watchers]
    assert finals[0] is not None and finals[1] is not None
    assert rows(finals[0]) == rows(finals[1])
    standing = rows(finals[0])
    assert {name for name, *_ in standing} == set(NAMES)
    # every heat scored: a finish is worth a point at least, a win up to 5 (10 doubled, +1)
    for _, points, _, heats, last in standing:
        assert heats >= 2 and len(last) == heats
        assert heats <= points or "-" in last
    assert waits and max(waits) < BOUND_S, waits
    # a private arena's heats are unrated (these racers share no address, even): no
    # racer has a rated race, and the results say so to whoever was still in a heat
    # then (a racer leaves a heat once their race is over, so maybe nobody)
    for client in racers:
        mine = {"X-Canfield-Identity": client.identity_token or ""}
        status, body = await call(servers[0], "/api/rating", headers=mine)
        assert status == 200 and sum(r["races"] for r in body["ratings"]) == 0, body
    assert all(r.rating is None for f in finishes for r in f.standings)
    for client in [*watchers]:
        await client.close()


async def test_a_private_arena_every_page_of_which_closed_ends_and_keeps_its_places(
    server_factory: ServerFactory, identified: Identified
) -> None:
    servers = [server_factory(env=ENV), server_factory(env=ENV)]
    names = NAMES[:3]
    racers = [await identified(servers[n % 2], f"127.0.0.{n + 2}") for n in range(len(names))]
    made = await racers[0].arena_create("Late", names[0], minutes=15)
    code = made.arena.code
    for client, name in zip(racers[1:], names[1:], strict=True):
        await client.arena_join(code, name)
    for client in racers:
        await client.wait_started(60)
    # the host ends the arena while the heat still runs, and every page closes at
    # once: no process follows the arena any more when its last heat is over
    await racers[0].arena_end()
    tokens = [client.identity_token for client in racers]
    for client in racers:
        await client.close()

    async def kept(n: int) -> list[Any]:
        """Racer ``n``'s places in arenas, read from the process they did not race on."""
        reader = await RaceClient(servers[(n + 1) % 2].ws_url).connect()
        try:
            await reader.identify(tokens[n])
            async with asyncio.timeout(60):
                while not (found := (await reader.arena_history()).arenas):
                    await asyncio.sleep(0.3)
            return found
        finally:
            await reader.close()

    histories = [await kept(n) for n in range(len(names))]
    assert all([a.code for a in found] == [code] for found in histories), histories
    places = sorted(found[0].place for found in histories)
    assert places[0] == 1 and places[-1] <= 3, places
    assert all(found[0].racers == 3 and found[0].heats == 1 for found in histories)
    # the end was claimed, and the results written, by one of the two processes
    said = [
        line
        for server in servers
        for line in server.log_path.read_text(errors="replace").splitlines()
        if "arena.over" in line and code in line
    ]
    assert len(said) == 1, said


def on_joined(event: asyncio.Event) -> Any:
    """A listener that sets ``event`` at the connection's next ``joined``."""

    def heard(msg: Any) -> None:
        if isinstance(msg, Joined):
            event.set()

    return heard


async def test_a_racer_back_on_the_arena_page_from_the_race_page_is_in_the_next_heat(
    server_factory: ServerFactory, identified: Identified
) -> None:
    """As the web page races a heat: the arena page's connection is seated, the
    heat's race page (another connection) takes the seat over and races, and once
    that race is over the arena page, opened again, is in the next heat within
    the bound (not held out by the heat the racer raced)."""
    server = server_factory(env=ENV)
    page, bob = await identified(server, "127.0.0.2"), await identified(server, "127.0.0.3")
    made = await page.arena_create("Web", "Ann", minutes=15)
    code = made.arena.code
    seated = asyncio.Event()
    page.on_message.append(on_joined(seated))
    await bob.arena_join(code, "Bob")
    async with asyncio.timeout(60):
        await seated.wait()
    heat, seat, token = page.room, page.token, page.identity_token
    await page.close()  # the arena page opens the race page
    race = await RaceClient(server.ws_url, local_addr=("127.0.0.2", 0)).connect()
    try:
        await race.identify(token)
        await race.resume(heat, seat)
        await race.wait_started(60)
        await bob.wait_started(60)
        await race.give_up()
        await bob.give_up()
    finally:
        await race.close()  # the race page goes back to the arena page
    again = await RaceClient(server.ws_url, local_addr=("127.0.0.2", 0)).connect()
    try:
        await again.identify(token)
        next_heat = asyncio.Event()
        again.on_message.append(on_joined(next_heat))
        await again.arena_join(code, "Ann")
        async with asyncio.timeout(BOUND_S):
            await next_heat.wait()
        assert again.room not in (None, heat)
    finally:
        await again.close()
