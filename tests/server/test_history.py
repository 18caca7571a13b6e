"""Player identities and their history, on a real server process and Redis."""

from __future__ import annotations

import hashlib

import redis
from canfield_bench.processes import ServerProcess

from tests.conftest import ServerFactory
from tests.server.conftest import FAST_ENV, Connect
from tests.server.helpers import DEAL, get, race_once


async def test_history_after_races_download_and_delete(
    server_factory: ServerFactory, connect: Connect
) -> None:
    server = server_factory(
        env={**FAST_ENV, "CANFIELD_DAILY_DATE": "2031-06-01", "CANFIELD_DAILY_SECRET": "history"}
    )
    ann = await connect(server.ws_url)
    issued = await ann.request("identity", type="identify")
    assert issued["new"] is True and len(issued["token"]) == 24
    token = issued["token"]
    # only the token's hash is stored
    store = redis.Redis.from_url(server.redis_url)
    assert store.exists("cf:id:{" + hashlib.sha256(token.encode()).hexdigest() + "}")
    assert not any(token.encode() in key for key in store.keys("*"))

    await race_once(ann, "Ann")
    await ann.request("left", type="leave")
    finished = await race_once(ann, "Ann")  # a second race, in a new room
    # and the daily race
    await ann.request("left", type="leave")
    await ann.request("daily_started", type="daily", name="Ann", draw=3)
    await ann.request("ack", type="give_up", seq=1)
    await ann.expect("daily_finished")

    # the page reconnects with its token: the same history
    again = await connect(server.ws_url)
    known = await again.request("identity", type="identify", token=token)
    assert known["new"] is False and known["token"] is None and known["id"] == issued["id"]
    history = await again.request("history", type="history", limit=2)
    assert history["type"] == "history" and history["id"] == issued["id"]
    races = history["races"]
    assert [r["kind"] for r in races] == ["daily", "room"]  # newest first, last N
    room = races[1]
    assert room["deal"] == DEAL and room["place"] == 1 and room["players"] == 1
    assert room["status"] == "gave_up" and room["cards"] == 1 and room["moves"] == 1
    assert room["won"] is False and room["replay"].startswith("/replay/r-")
    assert room["replay"] == finished["replay"]  # the results gave everyone the same link
    (stats,) = history["stats"]
    assert stats["draw"] == 3 and stats["races"] == 3 and stats["wins"] == 0
    assert stats["win_rate"] == 0 and stats["best_time_ms"] is None
    assert history["streak"] == 1

    # the replay link opens for anyone, over plain HTTP
    status, replay = get(server.http_url + room["replay"])
    assert status == 200 and replay["deal"] == DEAL and replay["kind"] == "room"
    (player,) = replay["players"]
    assert player["name"] == "Ann" and player["moves_list"] == ["S", "G"]
    assert finished["replays"][player["id"]] == ["S", "G"]
    status, missing = get(server.http_url + "/replay/r-AAAAAAAAAAAAAAAA")
    assert status == 404 and "no replay" in missing["error"]
    status, missing = get(server.http_url + "/replay/whatever")
    assert status == 404 and "no replay" in missing["error"]

    # the download: every race, with the token in a header
    status, download = get(server.http_url + "/history", {"X-Canfield-Identity": token})
    assert status == 200 and len(download["races"]) == 3 and download["id"] == issued["id"]
    status, refused = get(server.http_url + "/history", {"X-Canfield-Identity": "A" * 24})
    assert status == 401 and refused["code"] == "bad-identity"
    status, refused = get(server.http_url + "/history")
    assert status == 401 and refused["code"] == "bad-identity"

    # delete: gone, here and in the download
    deleted = await again.request("history_deleted", type="delete_history")
    assert deleted["removed"] == 3
    assert (await again.request("history", type="history"))["races"] == []
    status, download = get(server.http_url + "/history", {"X-Canfield-Identity": token})
    assert status == 200 and download["races"] == [] and download["stats"] == []


async def test_forged_identities_are_refused(
    shared_server: ServerProcess, connect: Connect
) -> None:
    client = await connect(shared_server.ws_url)
    # well-formed but never issued
    forged = await client.request("identity", type="identify", token="q0vS1d3Xo9kVvV7n5mJ8bQ7c")
    assert forged["type"] == "error" and forged["code"] == "bad-identity"
    assert "unknown identity token" in forged["message"]
    # malformed
    for token in ("", "short", "x" * 200, "q0vS1d3Xo9kVvV7n5mJ8bQ7!"):
        bad = await client.request("identity", type="identify", token=token)
        assert bad["code"] == "bad-identity", (token, bad)
    bad = await client.request("identity", type="identify", token=12)
    assert bad["code"] == "bad-message"
    # nothing needing an identity works without one
    for kind in ("history", "delete_history"):
        refused = await client.request("history", type=kind)
        assert refused["code"] == "no-identity", refused
    refused = await client.request("daily_started", type="daily", name="Eve")
    assert refused["code"] == "no-identity"
    # the standing is public
    standing = await client.request("daily_standing", type="daily_standing")
    assert standing["type"] == "daily_standing" and standing["me"] is None
