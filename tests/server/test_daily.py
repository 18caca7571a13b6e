"""The daily race on real server processes sharing one Redis.

Each test sets the server's test clock (``CANFIELD_DAILY_DATE``), so it can
move to tomorrow by starting servers with the next date on the same Redis.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request

import redis
from canfield import Game
from canfield.solver import WINNABLE, solve
from canfield_bench.processes import ServerProcess

from tests.conftest import ServerFactory, decoded
from tests.server.conftest import Client, Connect
from tests.server.helpers import DAY, NEXT, env, get, identified


def redis_client(server: ServerProcess) -> redis.Redis:
    return redis.Redis.from_url(server.redis_url)


def frames_text(client: Client) -> str:
    return json.dumps(client.log)


async def test_two_processes_serve_one_daily_deal_and_one_standing(
    server_factory: ServerFactory, connect: Connect
) -> None:
    a = server_factory(env=env(DAY))
    b = server_factory(env=env(DAY))
    ann, _ = await identified(connect, a.ws_url)
    bob, _ = await identified(connect, b.ws_url)
    # both start at once: the two processes prove the day's deal together
    started = await asyncio.gather(
        ann.request("daily_started", type="daily", name="Ann", draw=3),
        bob.request("daily_started", type="daily", name="Bob", draw=3),
    )
    assert [s["type"] for s in started] == ["daily_started", "daily_started"], started
    assert started[0]["board"] == started[1]["board"]  # the same deal on both
    assert started[0]["date"] == DAY and started[0]["last_seq"] == 0
    # one stored code, and the solver wins it
    store = redis_client(a)
    codes = store.keys("cf:{dly:" + DAY + ":3}:code")
    assert len(codes) == 1
    code = decoded(store.get(codes[0]))
    assert code.startswith("CF2-D3-")
    assert solve(code, 10).result == WINNABLE
    assert Game.deal(code).view() == {
        k: v for k, v in started[0]["board"].items() if k != "useful_move"
    }

    ack = await ann.request("ack", type="move", seq=1, move="S")
    assert ack["type"] == "ack" and ack["seq"] == 1
    done = await bob.request("ack", type="give_up", seq=1)
    assert done["type"] == "ack" and done["move"] == "G"
    finished = await bob.expect("daily_finished")
    assert finished["row"]["status"] == "gave_up" and finished["players"] == 2

    # one standing, whichever process answers
    sa = await ann.request("daily_standing", type="daily_standing", draw=3)
    sb = await bob.request("daily_standing", type="daily_standing", draw=3)
    assert sa["players"] == sb["players"] == 2
    assert [r["id"] for r in sa["rows"]] == [r["id"] for r in sb["rows"]]
    assert [r["rank"] for r in sa["rows"]] == [1, 2]
    assert sa["me"]["name"] == "Ann" and sb["me"]["name"] == "Bob"
    assert sa["over"] is False and sa["deal"] is None and sa["replays"] is None
    by_name = {r["name"]: r for r in sa["rows"]}
    assert by_name["Ann"]["moves"] == 1 and by_name["Bob"]["status"] == "gave_up"

    # a second attempt the same day is refused, and nothing changes
    before = store.hgetall("cf:{dly:" + DAY + ":3}:rows")
    again = await bob.request("daily_started", type="daily", name="Bob", draw=3)
    assert again["type"] == "error" and again["code"] == "daily-played", again
    assert "already" in again["message"]
    assert store.hgetall("cf:{dly:" + DAY + ":3}:rows") == before
    # the daily race needs an identity
    ann2 = await connect(b.ws_url)
    assert (await ann2.request("error", type="daily", name="Ann"))["code"] == "no-identity"

    # the deal code went to nobody
    for client in (ann, bob, ann2):
        assert code not in frames_text(client)


async def test_today_and_tomorrow_are_proven_before_anyone_asks(
    server_factory: ServerFactory, connect: Connect
) -> None:
    a = server_factory(env={**env(DAY), "CANFIELD_DAILY_AHEAD_EVERY_S": "3600"})
    store = redis_client(a)
    wanted = [f"cf:{{dly:{date}:{draw}}}:code" for date in (DAY, NEXT) for draw in (1, 3)]
    async with asyncio.timeout(180):  # another process's work: polled, no event to await
        while not all(store.exists(key) for key in wanted):
            await asyncio.sleep(0.1)
    # tomorrow, the day's first player plays the deal proven the day before
    b = server_factory(env=env(NEXT))
    ann, _ = await identified(connect, b.ws_url)
    started = await ann.request("daily_started", type="daily", name="Ann", draw=1)
    code = decoded(store.get(f"cf:{{dly:{NEXT}:1}}:code"))
    assert Game.deal(code).view() == {
        k: v for k, v in started["board"].items() if k != "useful_move"
    }
    assert code not in frames_text(ann)


async def test_resume_and_second_attempt_across_processes(
    server_factory: ServerFactory, connect: Connect
) -> None:
    a = server_factory(env=env(DAY))
    b = server_factory(env=env(DAY))
    ann, token = await identified(connect, a.ws_url)
    await ann.request("daily_started", type="daily", name="Ann")
    assert (await ann.request("ack", type="move", seq=1, move="S"))["type"] == "ack"
    # the same identity on the other process resumes the same board
    again = await connect(b.ws_url)
    assert (await again.request("identity", type="identify", token=token))["new"] is False
    resumed = await again.request("daily_started", type="daily", name="Ann")
    assert resumed["resumed"] is True and resumed["last_seq"] == 1
    ack = await again.request("ack", type="give_up", seq=2)
    assert ack["type"] == "ack"
    refused = await ann.request("daily_started", type="daily", name="Ann")
    assert refused["code"] == "daily-played"
    standing = await again.request("daily_standing", type="daily_standing")
    assert standing["players"] == 1 and standing["me"]["moves"] == 1


async def test_the_code_and_replays_show_only_once_the_day_is_over(
    server_factory: ServerFactory, connect: Connect
) -> None:
    today = server_factory(env=env(DAY))
    ann, token = await identified(connect, today.ws_url)
    await ann.request("daily_started", type="daily", name="Ann", draw=1)
    await ann.request("ack", type="move", seq=1, move="S")
    await ann.request("ack", type="give_up", seq=2)
    finished = await ann.expect("daily_finished")
    link = finished["replay"]
    standing = await ann.request("daily_standing", type="daily_standing", draw=1)
    assert standing["deal"] is None and standing["over"] is False
    status, body = get(today.http_url + link)
    assert status == 403 and "over" in body["error"]
    history = await ann.request("history", type="history")
    assert history["races"][0]["kind"] == "daily"
    assert history["races"][0]["deal"] is None and history["races"][0]["replay"] is None
    # a future day cannot be asked for
    future = await ann.request("daily_standing", type="daily_standing", draw=1, date=NEXT)
    assert future["code"] == "bad-date"
    # nor a day that is no day, nor one in other digits or with a newline after it
    for date, code in [
        ("2020-13-45", "bad-date"),
        ("2021-02-29", "bad-date"),
        ("\u0662\u0660\u0662\u0666-\u0661\u0662-\u0660\u0661", "bad-message"),
        (DAY + "\n", "bad-message"),
    ]:
        refused = await ann.request("daily_standing", type="daily_standing", draw=1, date=date)
        assert refused["code"] == code, (date, refused)
    arabic = urllib.parse.quote("d-\u0662\u0660\u0662\u0666-\u0661\u0662-\u0660\u0661")
    for bad in ("d-2020-13-45-1-0123abcd", f"d-{DAY}-1-0123abcd%0A", f"{arabic}-1-0123abcd"):
        assert get(today.http_url + "/replay/" + bad)[0] == 404
    code = decoded(redis_client(today).get("cf:{dly:" + DAY + ":1}:code"))
    assert code not in frames_text(ann)
    today.stop()

    # tomorrow, on the same Redis: yesterday's code, winners and replays are out
    tomorrow = server_factory(env=env(NEXT))
    ann2 = await connect(tomorrow.ws_url)
    await ann2.request("identity", type="identify", token=token)
    past = await ann2.request("daily_standing", type="daily_standing", draw=1, date=DAY)
    assert past["over"] is True and past["deal"] == code
    assert past["rows"][0]["name"] == "Ann" and past["players"] == 1
    assert past["replays"][past["rows"][0]["id"]] == link
    status, body = get(tomorrow.http_url + link)
    assert status == 200 and body["deal"] == code
    assert body["players"][0]["moves_list"] == ["S", "G"]
    history = await ann2.request("history", type="history")
    assert history["races"][0]["deal"] == code and history["races"][0]["replay"] == link
    # today's deal is a new one, and the streak goes on
    started = await ann2.request("daily_started", type="daily", name="Ann", draw=1)
    assert started["streak"] == 2
    now = await ann2.request("daily_standing", type="daily_standing", draw=1)
    assert now["date"] == NEXT and now["players"] == 1 and now["deal"] is None
