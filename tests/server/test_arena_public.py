"""Public arenas (docs/protocol.md "Public arenas"): the timetable, each scheduled
arena made once by two server processes sharing one redis-server, and a public
arena's heats rated as public races are, under the fair-play rules, with a
racer in one arena heat at a time."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from canfield_bench.processes import ServerProcess
from canfield_client.client import RaceClient, ServerError
from canfield_protocol import Finished, Joined
from canfield_server.room.arena_schedule import Slot, parse_timetable, slot_code, upcoming
from redis.asyncio import Redis

from tests.conftest import EmbeddedRedis, Identified, ServerFactory

MIN = 60_000
#: two arenas of 15 minutes in every 15, 7 minutes apart: one of them always has
#: more than 6 minutes to run, so a test's heats never meet an arena's last minute
TWO_ENTRIES = "15@00:00/3/15;15@00:07/3/15"
ENV = {
    "CANFIELD_PUBLIC_ARENAS": TWO_ENTRIES,
    "CANFIELD_PUBLIC_ARENA_LEAD_S": "1800",
    "CANFIELD_COUNTDOWN_S": "0.3",
    "CANFIELD_ARENA_TICK_S": "0.5",
    # the four racers join at once (below), well within it on a loaded machine too
    "CANFIELD_ARENA_GATHER_S": "6",
    "CANFIELD_ARENA_SEAT_WAIT_S": "3",
}
TIMEOUT = 60.0


def test_the_timetable_reads_as_documented() -> None:
    shipped = parse_timetable("60@00:00/3/30;1440@19:30/1/30")
    assert shipped == [Slot(60, 0, 3, 30), Slot(1440, 19 * 60 + 30, 1, 30)]
    assert [s.name for s in shipped] == ["Hourly Draw 3", "Daily Draw 1"]
    assert parse_timetable("off") == parse_timetable(" none ") == []
    for bad, why in [
        ("60@00:00/2/30", "EVERY@HH:MM/DRAW/MINUTES"),
        ("hourly", "EVERY@HH:MM/DRAW/MINUTES"),
        ("60@25:00/3/30", "no such time"),
        ("60@00:00/3/10", "15-120 minutes"),
        ("20@00:00/3/30", "longer than its period"),
    ]:
        with pytest.raises(ValueError, match=why):
            parse_timetable(bad)
    # 19:10 UTC: the hourly arena of 19:00 runs (to 19:30), the next at 20:00; the
    # daily one starts at 19:30; nothing past the lead of an hour
    day = 20_000 * 1440 * MIN
    now = day + (19 * 60 + 10) * MIN
    found = [(s.every, at - day) for s, at in upcoming(shipped, now, 60 * MIN)]
    assert found == [(60, 19 * 60 * MIN), (1440, (19 * 60 + 30) * MIN), (60, 20 * 60 * MIN)]
    # a slot's code is the same on every process, and another slot's another
    assert slot_code(shipped[0], day) == slot_code(Slot(60, 0, 3, 30), day)
    assert re.fullmatch(r"[23456789A-HJKMNP-Z]{8}", slot_code(shipped[0], day))
    assert slot_code(shipped[0], day) != slot_code(shipped[0], day + 60 * MIN)


def get(server: ServerProcess, path: str) -> Any:
    with urllib.request.urlopen(server.http_url + path, timeout=10) as reply:
        return json.load(reply)


async def listed(server: ServerProcess) -> list[dict[str, Any]]:
    return (await asyncio.to_thread(get, server, "/api/arenas"))["arenas"]


async def both_list(servers: list[ServerProcess]) -> list[dict[str, Any]]:
    """The public arenas once both processes list the same ones (made, seen)."""
    async with asyncio.timeout(TIMEOUT):
        while True:
            lists = [await listed(s) for s in servers]
            codes = [[a["code"] for a in found] for found in lists]
            if codes[0] and codes[0] == codes[1] and len(codes[0]) >= 4:
                return lists[0]
            await asyncio.sleep(0.3)


async def test_two_processes_make_each_scheduled_arena_once(
    server_factory: ServerFactory, redis_server: EmbeddedRedis
) -> None:
    servers = [server_factory(env=ENV), server_factory(env=ENV)]
    arenas = await both_list(servers)
    # each running or coming within the lead: a public arena, no host, as timetabled
    for arena in arenas:
        assert arena["public"] and arena["host"] == "" and arena["every"] == 15
        assert arena["minutes"] == 15 and arena["draw"] == 3
        assert arena["status"] in ("scheduled", "running", "closing")
    starts = [a["starts_at"] for a in arenas]
    assert starts == sorted(starts)
    redis = Redis.from_url(redis_server.url)
    try:
        records = [k async for k in redis.scan_iter(match="cf:{a:*}:record")]
    finally:
        await redis.aclose()
    made = {k.decode().split(":")[2].rstrip("}") for k in records}
    # every arena made was logged as made by exactly one of the two processes
    said = [
        line
        for server in servers
        for line in server.log_path.read_text(errors="replace").splitlines()
        if "arena.scheduled" in line
    ]
    logged = [re.search(r"arena=(\w{8})", line) for line in said]
    codes = [m.group(1) for m in logged if m]
    assert len(codes) == len(said), said
    assert sorted(codes) == sorted(set(codes)), "an arena was made twice"
    assert set(codes) == made
    assert {a["code"] for a in arenas} <= made


def the_longest_running(arenas: list[dict[str, Any]]) -> str:
    running = [a for a in arenas if a["status"] == "running"]
    assert running, arenas
    return max(running, key=lambda a: a["ends_at"])["code"]


async def test_a_public_arena_heat_is_rated_but_not_between_racers_of_one_network(
    server_factory: ServerFactory, identified: Identified
) -> None:
    servers = [server_factory(env=ENV), server_factory(env=ENV)]
    code = the_longest_running(await both_list(servers))
    # Ann and Bob race from networks of their own; Cat and Dan share one /24
    addresses = {"Ann": "127.0.1.5", "Bob": "127.0.2.5", "Cat": "127.0.3.5", "Dan": "127.0.3.9"}
    racers: dict[str, RaceClient] = {}
    for n, (name, address) in enumerate(addresses.items()):
        racers[name] = await identified(servers[n % 2], address)
    seated = {name: asyncio.Event() for name in racers}

    finishes: list[Finished] = []

    def on_joined(event: asyncio.Event) -> Callable[[Any], None]:
        def heard(msg: Any) -> None:
            if isinstance(msg, Joined):
                event.set()
            elif isinstance(msg, Finished):
                finishes.append(msg)

        return heard

    for name, client in racers.items():
        client.on_message.append(on_joined(seated[name]))
    # all four join at once: the heat forms once the first has waited the gather
    joins = await asyncio.gather(*(c.arena_join(code, name) for name, c in racers.items()))
    for joined in joins:
        assert joined.arena.public and joined.arena.every == 15
    try:
        async with asyncio.timeout(TIMEOUT):
            await asyncio.gather(*(e.wait() for e in seated.values()))
    except TimeoutError:
        raise AssertionError(
            f"not all seated: {[n for n, e in seated.items() if not e.is_set()]}"
        ) from None
    heat = {c.room for c in racers.values()}
    assert len(heat) == 1, heat  # the four in one heat
    state = racers["Ann"].state
    assert state is not None and state.arena == code and state.rated
    for client in racers.values():
        await client.wait_started(TIMEOUT)
    # a racer holds one arena heat at a time: another arena's join is refused
    other = next(a["code"] for a in await listed(servers[0]) if a["code"] != code)
    spare = await RaceClient(servers[0].ws_url, local_addr=("127.0.1.5", 0)).connect()
    try:
        await spare.identify(racers["Ann"].identity_token)
        with pytest.raises(ServerError) as refused:
            await spare.arena_join(other, "Ann")
        assert refused.value.code == "already-in-room"
    finally:
        await spare.close()
    await racers["Ann"].move("S")
    for name in ("Ann", "Bob", "Cat", "Dan"):
        await racers[name].give_up()
    # each racer is taken out of the heat once their race is over, so the
    # ratings are read where a racer reads them: GET /api/rating
    async with asyncio.timeout(TIMEOUT):
        while [await rated(servers[0], racers[n]) for n in ("Ann", "Bob")] != [1, 1]:
            await asyncio.sleep(0.3)
    assert [await rated(servers[1], racers[n]) for n in ("Cat", "Dan")] == [0, 0]
    # whoever saw the heat's results saw why the pair was unrated
    for row in (r for f in finishes for r in f.standings):
        if row.name in ("Cat", "Dan"):
            assert row.rating is None and row.unrated == "same-network"
        else:
            assert row.rating is not None and row.unrated is None


async def rated(server: ServerProcess, client: RaceClient) -> int:
    """Rated races of ``client``'s identity, in either draw mode."""

    def read() -> int:
        request = urllib.request.Request(
            server.http_url + "/api/rating",
            headers={"X-Canfield-Identity": client.identity_token or ""},
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            return sum(r["races"] for r in json.load(reply)["ratings"])

    return await asyncio.to_thread(read)
