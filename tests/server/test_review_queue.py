"""The review queue on a real server process: a flagged result (recorded through
the ``IntegrityStore`` port in the server's Redis, as the signals' computation
records it) is shown "under review" to the other racer in the replay, leaves
the ladder and the daily ranked list at once, and is listed in the console
with its evidence. Confirm restores the other racer's rating, bars the
identity (its next public race is unrated) and removes the result; Clear puts
the result back. Every decision is in the log. And the whole chain on the
server's own rule: a solver line played in a rated quick race is flagged,
shown under review, listed with its evidence and confirmed."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import random
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any, NamedTuple

from canfield.solver import solve
from canfield_bench.processes import ServerProcess
from canfield_server.room.ports import ReviewCase, daily_result, room_result
from canfield_server.room.ratings import NEWCOMER, deviation, shown
from canfield_server.storage import keys
from canfield_server.storage.integrity_store import RedisIntegrityStore
from redis.asyncio import Redis

from tests.conftest import ServerFactory
from tests.server.conftest import Client, Connect
from tests.server.helpers import BEARER, SIGNALS, TOKEN, call, flag

DATE = "2026-03-14"
ENV = {
    "CANFIELD_ADMIN_TOKEN": TOKEN,
    "CANFIELD_COUNTDOWN_S": "0.3",
    "CANFIELD_QUICK_BOT_OFFER_S": "60",
    "CANFIELD_RATING_MIN_RACES": "1",
    "CANFIELD_RATING_MIN_OPPONENTS": "1",
    "CANFIELD_DAILY_DATE": DATE,
}
#: two racers from two networks (same-network racers are not rated for each other)
HONEST, FLAGGED, THIRD = "127.0.0.1", "127.1.0.1", "127.2.0.1"


async def identified(connect: Connect, server: ServerProcess, address: str) -> tuple[Client, str]:
    client = await connect(server.ws_url, address)
    token = (await client.request("identity", type="identify"))["token"]
    return client, token


def hashed(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def race(first: Client, second: Client) -> tuple[str, list[dict[str, Any]]]:
    """A quick race of two: the first gives up first (the second places first)."""
    room = (await first.request("joined", type="quick", name="Honest", draw=3))["room"]
    joined = await second.request("joined", type="quick", name="Flagged", draw=3)
    assert joined["room"] == room
    for racer in (first, second):
        await racer.expect("started")
    await first.send(type="give_up", seq=1)
    await second.send(type="give_up", seq=1)
    return room, [await first.expect("finished"), await second.expect("finished")]


def case_of(finished: dict[str, Any], room: str, race_no: int, name: str, token: str) -> ReviewCase:
    (row,) = [r for r in finished["standings"] if r["name"] == name]
    return ReviewCase(
        result=room_result(room, race_no, row["id"]),
        kind="public",
        at=1_700_000_000_000,
        draw=3,
        room=room,
        race_no=race_no,
        identity=hashed(token),
        public_id="pub-flagged",
        member_id=row["id"],
        name=name,
        replay=finished["replay"],
        network="127.1.0.0/24",
        shares=["pub-other"],
        signals=SIGNALS,
        reasons=["think times as even as a metronome", "every move keeps a solver-winning line"],
    )


async def race_no_of(redis: Redis, room: str) -> int:
    found = await redis.hget(keys.room(room), "race")
    assert found is not None
    return int(found)


async def rating_of(server: ServerProcess, token: str) -> dict[str, Any] | None:
    status, body = await call(server, "/api/rating", headers={"X-Canfield-Identity": token})
    assert status == 200, body
    return next(iter(body["ratings"]), None)


async def ladder_names(server: ServerProcess) -> list[str]:
    status, body = await call(server, "/api/ladder?draw=3")
    assert status == 200, body
    return [row["name"] for row in body["rows"]]


class Raced(NamedTuple):
    server: ServerProcess
    store: RedisIntegrityStore
    honest_token: str
    flagged: Client
    flagged_token: str
    #: the honest racer's ``finished``, and their rating after the race
    finished: dict[str, Any]
    rated: dict[str, Any] | None
    case: ReviewCase


@contextlib.asynccontextmanager
async def flagged_race(server_factory: ServerFactory, connect: Connect) -> AsyncIterator[Raced]:
    """A server, a rated quick race of two, and the second racer's result flagged
    through the port in the server's Redis."""
    server = server_factory(env=ENV)
    (honest, honest_token), (flagged, flagged_token) = (
        await identified(connect, server, HONEST),
        await identified(connect, server, FLAGGED),
    )
    redis = Redis.from_url(server.redis_url)
    store = RedisIntegrityStore(redis, retention_days=1)
    try:
        room, finished = await race(honest, flagged)
        rated = await rating_of(server, honest_token)
        assert sorted(await ladder_names(server)) == ["Flagged", "Honest"]
        case = case_of(finished[0], room, await race_no_of(redis, room), "Flagged", flagged_token)
        await flag(redis, store, case)
        yield Raced(server, store, honest_token, flagged, flagged_token, finished[0], rated, case)
    finally:
        await store.close()
        await redis.aclose()


async def test_confirm_gives_the_points_back_and_bars_the_identity(
    server_factory: ServerFactory, connect: Connect
) -> None:
    async with flagged_race(server_factory, connect) as raced:
        server, case, honest_token, flagged = (
            raced.server,
            raced.case,
            raced.honest_token,
            raced.flagged,
        )
        finished = [raced.finished]
        mine = raced.rated
        # a tie (both gave up with the same cards): the race made them surer of the rating
        assert mine is not None and mine["races"] == 1 and mine["deviation"] < deviation(NEWCOMER)

        # at once: under review in the replay the other racer opens, off the ladder
        status, replay = await call(server, finished[0]["replay"])
        assert status == 200
        reviews = {p["name"]: p.get("review") for p in replay["players"]}
        assert reviews == {"Flagged": "open", "Honest": None}
        assert await ladder_names(server) == ["Honest"]

        # the console lists it with its evidence
        status, queue = await call(server, "/admin/api/reviews", headers=BEARER)
        assert status == 200, queue
        (listed,) = queue["open"]
        assert listed["result"] == case.result and listed["status"] == "open"
        assert listed["signals"]["think_ms"] == SIGNALS.think_ms
        assert listed["signals"]["solver_agreement"] == 1.0
        assert listed["network"] == "127.1.0.0/24" and listed["shares"] == ["pub-other"]
        assert listed["reasons"] == case.reasons and listed["replay"] == finished[0]["replay"]

        # bad input changes nothing
        path = f"/admin/api/reviews/{case.result}/decide"
        status, body = await call(server, path, headers=BEARER, body={"decision": "ban"})
        assert status == 400 and "clear or confirm" in body["error"]
        status, _ = await call(server, path, body={"decision": "confirm"})
        assert status == 401
        status, queue = await call(server, "/admin/api/reviews", headers=BEARER)
        assert [c["result"] for c in queue["open"]] == [case.result]

        status, decided = await call(server, path, headers=BEARER, body={"decision": "confirm"})
        assert status == 200, decided
        assert decided["status"] == "confirmed" and decided["decided_by"]
        # once: a second decision finds no open case
        status, body = await call(server, path, headers=BEARER, body={"decision": "clear"})
        assert status == 404 and "decided already" in body["error"]

        # the other racer's rating is as if the race had been unrated
        mine = await rating_of(server, honest_token)
        assert mine is not None and mine["races"] == 0
        assert (mine["rating"], mine["deviation"]) == (shown(NEWCOMER), deviation(NEWCOMER))
        assert mine["history"][0]["rank"] == 0  # the point that gave it back
        assert "Flagged" not in await ladder_names(server)
        status, replay = await call(server, finished[0]["replay"])
        assert {p["name"]: p.get("review") for p in replay["players"]}["Flagged"] == "confirmed"

        # barred: its next public race is unrated (it still plays)
        before = await rating_of(server, raced.flagged_token)
        third, _ = await identified(connect, server, THIRD)
        _, again = await race(third, flagged)
        by_name = {row["name"]: row for row in again[1]["standings"]}
        assert "rating" not in by_name["Flagged"]
        assert await rating_of(server, raced.flagged_token) == before
        assert "Flagged" not in await ladder_names(server)

        # audited, with who decided; the token itself never
        for _ in range(100):
            if "review confirm" in server.log():
                break
            await asyncio.sleep(0.1)
        audit = [line for line in server.log().splitlines() if "review confirm" in line]
        assert len(audit) == 1 and case.result in audit[0] and TOKEN not in server.log()


async def test_clear_puts_the_result_back(server_factory: ServerFactory, connect: Connect) -> None:
    async with flagged_race(server_factory, connect) as raced:
        server, case = raced.server, raced.case
        assert await ladder_names(server) == ["Honest"]

        path = f"/admin/api/reviews/{case.result}/decide"
        status, decided = await call(server, path, headers=BEARER, body={"decision": "clear"})
        assert status == 200 and decided["status"] == "cleared"
        assert sorted(await ladder_names(server)) == ["Flagged", "Honest"]
        status, replay = await call(server, raced.finished["replay"])
        assert all(p.get("review") is None for p in replay["players"])
        assert await rating_of(server, raced.honest_token) == raced.rated  # nothing given back
        status, queue = await call(server, "/admin/api/reviews", headers=BEARER)
        assert queue["open"] == [] and queue["decided"][0]["status"] == "cleared"


async def test_a_flagged_daily_is_set_apart_from_the_ranked_standing(
    server_factory: ServerFactory, connect: Connect
) -> None:
    server = server_factory(env=ENV)
    racers = [await identified(connect, server, a) for a in (HONEST, FLAGGED, THIRD)]
    ids = []
    for (client, _), name in zip(racers, ("Honest", "Flagged", "Third"), strict=True):
        await client.request("daily_started", type="daily", name=name, draw=3)
        await client.request("ack", type="give_up", seq=1)
        ids.append((await client.expect("daily_finished"))["row"]["id"])
    redis = Redis.from_url(server.redis_url)
    store = RedisIntegrityStore(redis, retention_days=1)
    try:
        honest = racers[0][0]
        standing = await honest.request("daily_standing", type="daily_standing", draw=3)
        assert [r["rank"] for r in standing["rows"]] == [1, 2, 3]
        flagged_id = ids[1]
        case = ReviewCase(
            result=daily_result(DATE, 3, flagged_id),
            kind="daily",
            at=1,
            draw=3,
            date=DATE,
            identity=hashed(racers[1][1]),
            public_id=flagged_id,
            member_id=flagged_id,
            name="Flagged",
            signals=SIGNALS,
            reasons=["too even"],
        )
        await flag(redis, store, case)
        standing = await honest.request("daily_standing", type="daily_standing", draw=3)
        assert flagged_id not in [r["id"] for r in standing["rows"]]
        assert [r["rank"] for r in standing["rows"]] == [1, 2]
        assert [(r["id"], r["rank"]) for r in standing["under_review"]] == [(flagged_id, 0)]
        # the asker's own rank counts nobody set aside
        assert standing["me"]["rank"] == [r["id"] for r in standing["rows"]].index(ids[0]) + 1
        # confirmed: removed from the standing
        status, _ = await call(
            server,
            f"/admin/api/reviews/{case.result}/decide",
            headers=BEARER,
            body={"decision": "confirm"},
        )
        assert status == 200
        standing = await honest.request("daily_standing", type="daily_standing", draw=3)
        assert standing["under_review"] == [] and len(standing["rows"]) == 2
    finally:
        await store.close()
        await redis.aclose()


async def test_a_solver_line_is_caught_shown_under_review_and_confirmed(
    server_factory: ServerFactory, connect: Connect
) -> None:
    """The whole chain on the server's own rule: nothing flagged by hand. The
    line is played at about 10 ms a move, unevenly (the flag rule needs no
    pace: tests/server/test_signals_recorded.py plays one at 1 s a move on the
    manual clock, and ``bench-integrity`` at 0.3, 1 and 2 s on a real server)."""
    # a proven winnable deal however busy the machine (no fallback to a random one);
    # a long line at 10 ms a move outruns the shipped 50 messages a second on an idle
    # machine, so this server lets more through (the limit is test_server_edges.py's)
    server = server_factory(
        env={**ENV, "CANFIELD_PROVEN_DEAL_WAIT_S": "120", "CANFIELD_RATE_PER_S": "500"}
    )
    (honest, honest_token), (cheat, cheat_token) = (
        await identified(connect, server, HONEST),
        await identified(connect, server, FLAGGED),
    )
    room = (await honest.request("joined", type="quick", name="Honest", draw=3))["room"]
    assert (await cheat.request("joined", type="quick", name="Cheat", draw=3))["room"] == room
    for racer in (honest, cheat):
        await racer.expect("started", timeout=30)
    redis = Redis.from_url(server.redis_url)
    try:
        # the deal as the scouting identities of the issue would have worked it out
        stored: Any = await redis.hget(keys.room(room), "deal")
        deal = stored.decode() if isinstance(stored, bytes) else str(stored)
        # solved in another process: the clients' keepalives go on meanwhile
        with ProcessPoolExecutor(1) as solver:
            found = await asyncio.get_running_loop().run_in_executor(solver, solve, deal, 120)
        line = found.moves
        assert line, f"the quick race's deal {deal} is proven winnable"
        played = [line[0], "U", *line]  # a slip taken back, as a person would
        think = random.Random(3)
        for seq, move in enumerate(played, 1):
            await asyncio.sleep(0.01 * think.lognormvariate(0, 0.4))
            kind = "undo" if move == "U" else "move"
            fields = {"move": move} if kind == "move" else {}
            ack = await cheat.request("ack", type=kind, seq=seq, **fields)
            assert ack["type"] == "ack", ack
        await honest.send(type="give_up", seq=1)
        finished = await honest.expect("finished", timeout=30)
        by_name = {row["name"]: row for row in finished["standings"]}
        assert by_name["Cheat"]["status"] == "won" and by_name["Cheat"]["rank"] == 1

        # the server's own assessment flags it, off the move path
        status, queue = 0, {"open": []}  # type: tuple[int, Any]
        async with asyncio.timeout(180):
            while not queue["open"]:
                # the operator's own requests never run out (test_admin.py)
                await asyncio.sleep(0.2)
                status, queue = await call(server, "/admin/api/reviews", headers=BEARER)
                assert status == 200, queue
        (case,) = queue["open"]
        assert case["name"] == "Cheat" and case["identity"] == hashed(cheat_token)
        assert case["kind"] == "public" and case["network"] == "127.1.0.0/24"
        assert case["replay"] == finished["replay"] and case["reasons"]
        signals = case["signals"]
        assert signals["won"] and signals["solver_agreement"] >= 0.9
        assert signals["checked_moves"] >= 15 and len(signals["think_ms"]) == len(played)

        # the other racer sees it under review; it is off the ladder
        status, replay = await call(server, finished["replay"])
        assert status == 200
        reviews = {p["name"]: p.get("review") for p in replay["players"]}
        assert reviews == {"Cheat": "open", "Honest": None}
        assert await ladder_names(server) == ["Honest"]
        lost = await rating_of(server, honest_token)
        assert lost is not None and lost["races"] == 1

        # confirmed: the other racer's rating is as if the race had been unrated
        path = f"/admin/api/reviews/{case['result']}/decide"
        status, decided = await call(server, path, headers=BEARER, body={"decision": "confirm"})
        assert status == 200 and decided["status"] == "confirmed", decided
        mine = await rating_of(server, honest_token)
        assert mine is not None and mine["races"] == 0
        assert (mine["rating"], mine["deviation"]) == (shown(NEWCOMER), deviation(NEWCOMER))
        status, replay = await call(server, finished["replay"])
        assert {p["name"]: p.get("review") for p in replay["players"]}["Cheat"] == "confirmed"
    finally:
        await redis.aclose()
