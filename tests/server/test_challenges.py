"""Challenge links on a real server process and Redis: made from a finished
race's results, shown by their page, JSON and picture without the deal, bounded
per identity, and a 404 for what is not one; and in process, on the manual
clock, a link's 30 days."""

from __future__ import annotations

import struct
import urllib.error
import urllib.request

from canfield_bench.processes import ServerProcess

from tests.conftest import ServerFactory
from tests.server.conftest import FAST_ENV, Connect, MakeRooms
from tests.server.helpers import DEAL, FAST, get, identified, race_once

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
DAY_MS = 86_400_000


def fetch(url: str, lang: str = "en") -> tuple[int, str, bytes]:
    request = urllib.request.Request(url, headers={"Accept-Language": lang})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers.get("content-type", ""), response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("content-type", ""), err.read()


async def test_a_challenge_link_shows_its_racer_and_never_its_deal(
    server_factory: ServerFactory, connect: Connect
) -> None:
    server = server_factory(env={**FAST_ENV, "CANFIELD_CHALLENGES_PER_HOUR": "2"})
    ann, _ = await identified(connect, server.ws_url)
    finished = await race_once(ann, "Ann")
    replay = finished["replay"].rsplit("/", 1)[-1]
    (row,) = finished["standings"]

    made = await ann.request("challenge", type="challenge", replay=replay, player_id=row["id"])
    assert made["type"] == "challenge" and made["link"] == f"/c/{made['id']}"
    assert len(made["id"]) == 16 and made["expires_at"] > 0

    status, view = get(f"{server.http_url}/api/challenge/{made['id']}")
    assert status == 200
    assert (view["name"], view["status"], view["won"]) == ("Ann", "gave_up", False)
    assert (view["cards"], view["draw"], view["standing"]) == (1, 3, [])
    assert view["expires_at"] - view["created_at"] == 30 * 86_400_000  # the default, 30 days

    status, kind, body = fetch(f"{server.http_url}/c/{made['id']}")
    html = body.decode()
    assert status == 200 and kind.startswith("text/html")
    assert "Beat Ann&#x27;s 1 of 52 cards home on this deal - Canfield Race" in html
    assert f'property="og:image" content="{server.http_url}/c/{made["id"]}.png"' in html
    assert '<meta property="og:image:type" content="image/png">' in html
    status, kind, croatian = fetch(f"{server.http_url}/c/{made['id']}", "hr")
    assert "Ann – 1 od 52 karte na temeljima" in croatian.decode()
    assert f'/c/{made["id"]}.png?lang=hr"' in croatian.decode()

    status, kind, painted = fetch(f"{server.http_url}/c/{made['id']}.png")
    assert status == 200 and kind == "image/png" and painted[:8] == PNG_MAGIC
    assert struct.unpack(">II", painted[16:24]) == (1200, 630)
    status, kind, svg = fetch(f"{server.http_url}/c/{made['id']}.svg")
    assert status == 200 and kind.startswith("image/svg+xml")
    assert b"data-card" not in svg  # five cards face down, none of the deal

    # nothing a link serves names the deal or the replay it came from
    for path in ("/api/challenge/", "/c/", "/c/"):
        body = fetch(f"{server.http_url}{path}{made['id']}")[2]
        assert DEAL.encode() not in body and replay.encode() not in body
    assert DEAL.encode() not in svg and replay.encode() not in svg

    # bounded: two an hour here, per identity
    again = await ann.request("challenge", type="challenge", replay=replay, player_id=row["id"])
    assert again["type"] == "challenge" and again["id"] != made["id"]
    refused = await ann.request("error", type="challenge", replay=replay, player_id=row["id"])
    assert refused["code"] == "rate-limited" and refused["params"]["most"] == 2

    # what is not a challenge: a clear 404
    for missing in ("AAAAAAAAAAAAAAAA", "nope", "x" * 300):
        status, kind, page = fetch(f"{server.http_url}/c/{missing}")
        assert status == 404 and kind.startswith("text/html"), missing
        assert 'id="missing-text"' in page.decode()
        assert fetch(f"{server.http_url}/c/{missing}.png")[0] == 404
        status, error = get(f"{server.http_url}/api/challenge/{missing}")
        assert status == 404 and "no such challenge" in error["error"]


async def test_a_challenge_needs_an_identity_a_finished_race_and_one_of_its_racers(
    shared_server: ServerProcess, connect: Connect
) -> None:
    server = shared_server
    ann, _ = await identified(connect, server.ws_url)
    finished = await race_once(ann, "Ann")
    replay = finished["replay"].rsplit("/", 1)[-1]
    (row,) = finished["standings"]
    stranger = await connect(server.ws_url)
    refused = await stranger.request("error", type="challenge", replay=replay, player_id=row["id"])
    assert refused["code"] == "no-identity"
    for bad, code in (
        ({"replay": "r-AAAAAAAAAAAAAAAA", "player_id": row["id"]}, "not-allowed"),
        ({"replay": "../etc", "player_id": row["id"]}, "not-allowed"),
        ({"replay": replay, "player_id": "nobody"}, "unknown-player"),
        ({"replay": replay}, "bad-message"),
    ):
        refused = await ann.request("error", type="challenge", **bad)
        assert refused["code"] == code, bad


async def test_two_people_race_a_challenge_and_both_are_on_its_standing_and_histories(
    shared_server: ServerProcess, connect: Connect
) -> None:
    server = shared_server
    ann, _ = await identified(connect, server.ws_url)
    finished = await race_once(ann, "Ann")
    replay = finished["replay"].rsplit("/", 1)[-1]
    (row,) = finished["standings"]
    made = await ann.request("challenge", type="challenge", replay=replay, player_id=row["id"])

    takers = []
    for name in ("Bo", "Cy"):
        taker, _ = await identified(connect, server.ws_url)
        frames: list[dict] = []
        joined = await taker.request(
            "joined", type="take_challenge", challenge=made["id"], name=name
        )
        frames.append(joined)
        state = joined["state"]
        # the race is a ghost race of Ann's run, its replay (and so its deal) hidden
        assert state["challenge"] == made["id"] and state["ghost_of"] == "custom"
        assert [m["name"] for m in state["members"] if m.get("ghost")] == ["Ann"]
        frames.append(await taker.expect("started"))
        if name == "Bo":  # Bo draws once and gives up; Cy gives up at once
            assert (await taker.request("ack", type="move", seq=1, move="S"))["type"] == "ack"
            await taker.request("ack", type="give_up", seq=2)
        else:
            await taker.request("ack", type="give_up", seq=1)
        raced = await taker.expect("finished")
        assert raced["deal"] == DEAL  # the deal once the race is over
        for frame in frames:  # and not before
            assert DEAL not in str(frame) and replay not in str(frame), frame
        takers.append(taker)

    status, view = get(f"{server.http_url}/api/challenge/{made['id']}")
    assert status == 200
    assert sorted(r["name"] for r in view["standing"]) == ["Bo", "Cy"]
    first, second = view["standing"]
    tied = (first["cards"], first["time_ms"]) == (second["cards"], second["time_ms"])
    assert (first["rank"], second["rank"]) == ((1, 1) if tied else (1, 2))  # a tie shares
    assert all(r["status"] == "gave_up" and not r["beat"] for r in view["standing"])
    for taker in takers:
        history = await taker.request("history", type="history")
        assert history["races"][0]["challenge"] == f"/c/{made['id']}"

    gone = await takers[0].request("error", type="take_challenge", challenge="A" * 16, name="Bo")
    assert gone["code"] == "unknown-challenge"


async def test_a_challenge_lasts_its_30_days_and_not_a_minute_more(rooms: MakeRooms) -> None:
    """Taken on its 30th day; a minute past its 30 days, gone: its page, its JSON
    and taking it all say so (the manual clock: nobody waits 30 days)."""
    world = await rooms(**FAST)
    ann = await world.open()
    await ann.request("identity", type="identify")
    finished = await race_once(ann, "Ann")
    replay = finished["replay"].rsplit("/", 1)[-1]
    (row,) = finished["standings"]
    made_at = world.clock.now_ms()
    made = await ann.request("challenge", type="challenge", replay=replay, player_id=row["id"])
    assert made["type"] == "challenge" and made["expires_at"] == made_at + 30 * DAY_MS
    await ann.close()
    challenges = world.hubs[0].challenges

    await world.clock.advance((made["expires_at"] - world.clock.now_ms()) / 1000 - 60)
    view = await challenges.view(made["id"])
    assert view is not None and view.expires_at == made["expires_at"]
    bo = await world.open()
    await bo.request("identity", type="identify")
    taken = await bo.request("joined", type="take_challenge", challenge=made["id"], name="Bo")
    assert taken["type"] == "joined" and taken["state"]["challenge"] == made["id"]
    assert (await bo.request("left", type="leave"))["type"] == "left"

    await world.clock.advance(61)
    assert world.clock.now_ms() > made["expires_at"]
    assert await challenges.view(made["id"]) is None
    late = await bo.request("error", type="take_challenge", challenge=made["id"], name="Bo")
    assert late["code"] == "unknown-challenge"
