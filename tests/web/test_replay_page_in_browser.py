"""A replay worth sharing, on one real server: a finished race (Ana & Bo's wins
on the solver's line, Mo gives up), played by two websocket clients, opened
by its link in a real browser at 1920x1080, 1366x768, 390x844 and 360x740,
in English and Croatian; and the same link fetched as a link preview would
fetch it (plain HTTP, no browser).

In the browser: the heading names the result and the players; the board is
on screen and its cards are as large as the race board's rule makes them;
every move of the list lies inside the window, the list scrolling inside
itself; on a phone, stepping (the buttons, or a move of the list) keeps the
board and the stepper in view without scrolling the page. The older link
(``/replay.html#<id>``) still opens it. Over HTTP: the
page carries its Open Graph and Twitter card tags, every value escaped, and
its picture answers as an SVG; an unknown id is a 404 for both.
"""

from __future__ import annotations

import asyncio
import json
import re
import struct
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser

import msgspec
import pytest
import redis
from canfield.solver import solve
from canfield_bench.processes import ServerProcess
from canfield_client.client import RaceClient
from canfield_protocol import RoomReplay, RoomSettings
from canfield_server.storage import player_keys
from playwright.sync_api import Browser, Page, expect

from tests.web.pages import low_contrast, new_page, pick_language, quick_server

#: the solver wins this one in milliseconds
WINNABLE_DEAL = "CF1-D3-AAADKOH"
#: a name the page and the preview must print as text, never as markup
WINNER = "Ana & Bo's"
SIZES = [(1920, 1080), (1366, 768), (390, 844), (360, 740)]
#: the smallest card width (px) the race board's rule gives at each size, with
#: this page's heading above the board (board-fit.js fit: a 1920x1080 window fits
#: cards of about 150 px, a phone four-wide ones of about 70)
MIN_CARD = {(1920, 1080): 130, (1366, 768): 85, (390, 844): 70, (360, 740): 62}
EVERY_MOVE_INSIDE = """() => [...document.querySelectorAll('#rp-moves li')].every((li) => {
    const r = li.getBoundingClientRect();
    return r.left >= -0.5 && r.right <= innerWidth + 0.5;
})"""

MEASURE = """() => {
    const box = (el) => el.getBoundingClientRect();
    const inside = (r, o) => r.left >= o.left - 0.5 && r.right <= o.right + 0.5
        && r.top >= o.top - 0.5 && r.bottom <= o.bottom + 0.5;
    const screen = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
    const board = box(document.querySelector('#replay-board .board'));
    const list = document.querySelector('#rp-moves');
    const listBox = box(list);
    const current = box(list.querySelector('button.current').parentElement);
    return {
        card: document.querySelector('#replay-board .card').getBoundingClientRect().width,
        boardInside: inside(board, screen),
        boardBottom: board.bottom,
        stepperInside: inside(box(document.querySelector('#rp-stepper')), screen),
        listInside: listBox.left >= -0.5 && listBox.right <= innerWidth + 0.5,
        currentInside: inside(current, listBox),
        listScrolls: list.scrollHeight > list.clientHeight + 1
            || list.scrollWidth > list.clientWidth + 1,
        pageWidth: document.scrollingElement.scrollWidth,
        scrollY,
    };
}"""


@pytest.fixture(scope="module")
def replay_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for the module (its own redis-server), with one finished race."""
    with quick_server(tmp_path_factory.mktemp("replay")) as server:
        yield server


@pytest.fixture(scope="module")
def replay_id(replay_server: ServerProcess) -> str:
    # in a thread of its own: Playwright's sync API may already run a loop in this one
    with ThreadPoolExecutor(1) as worker:
        return worker.submit(asyncio.run, finished_race(replay_server.ws_url)).result()


async def finished_race(ws_url: str) -> str:
    """Ana & Bo's wins on the solver's line; Mo draws once and gives up. The replay's id."""
    async with RaceClient(ws_url) as ana, RaceClient(ws_url) as mo:
        await ana.create(WINNER, RoomSettings(deal=WINNABLE_DEAL))
        assert ana.room
        await mo.join(ana.room, "Mo")
        await ana.start(force=True)
        await ana.wait_started(20)
        await mo.wait_started(20)
        await mo.move("S")
        await mo.give_up()
        for move in solve(WINNABLE_DEAL, 30).moves:
            await ana.move(move)
        finished = await ana.wait_finished(20)
    assert finished.replay, finished
    return finished.replay.rsplit("/", 1)[1]


def fetch(url: str, lang: str = "en") -> tuple[int, str, bytes]:
    """(status, content type, body) of a plain GET."""
    request = urllib.request.Request(url, headers={"Accept-Language": lang})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers.get("content-type", ""), response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("content-type", ""), err.read()


class MetaTags(HTMLParser):
    """The page's <meta property|name=... content=...> values, unescaped."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        key = found.get("property") or found.get("name")
        if tag == "meta" and key and found.get("content") is not None:
            self.tags[key] = found["content"] or ""


def measure(page: Page) -> dict[str, float]:
    found: dict[str, float] = page.evaluate(MEASURE)
    return found


def test_the_shared_link_previews_with_escaped_tags_and_a_picture(
    replay_server: ServerProcess, replay_id: str
) -> None:
    base = replay_server.http_url
    status, kind, body = fetch(f"{base}/replays/{replay_id}")
    assert status == 200 and kind.startswith("text/html")
    html = body.decode()
    assert "Ana &amp; Bo&#x27;s wins! - Canfield Race" in html  # escaped where inserted
    assert "Ana & Bo's" not in html
    parser = MetaTags()
    parser.feed(html)
    tags = parser.tags
    assert tags["og:title"] == "Ana & Bo's wins! - Canfield Race"
    assert tags["twitter:card"] == "summary_large_image"
    description = tags["og:description"]
    assert description.startswith("All 52 cards home in ")
    assert "Players: Ana & Bo's and Mo" in description and "draw 3" in description
    assert tags["og:url"] == f"{base}/replays/{replay_id}"
    assert tags["og:image"] == tags["twitter:image"] == f"{base}/replays/{replay_id}.png"
    assert tags["og:image:type"] == "image/png"
    status, kind, painted = fetch(tags["og:image"])
    assert status == 200 and kind == "image/png"
    assert painted[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", painted[16:24]) == (1200, 630)  # the IHDR's width and height
    assert fetch(tags["og:image"])[2] == painted  # painted once, kept
    status, kind, picture = fetch(f"{base}/replays/{replay_id}.svg")
    assert status == 200 and kind.startswith("image/svg+xml")
    cards = [
        el.attrib["data-card"] for el in ET.fromstring(picture).iter() if "data-card" in el.attrib
    ]
    assert cards == ["6C", "6D", "6S", "6H"]  # all home: the foundations' tops

    croatian = MetaTags()
    croatian.feed(fetch(f"{base}/replays/{replay_id}", "hr-HR,hr;q=0.9")[2].decode())
    assert croatian.tags["og:title"] == "Ana & Bo's pobjeđuje! - Canfield Race"
    assert croatian.tags["og:image"].endswith(".png?lang=hr")
    hr_png = fetch(croatian.tags["og:image"])[2]
    assert hr_png[:8] == b"\x89PNG\r\n\x1a\n" and hr_png != painted  # its own words

    for unknown in ("r-AAAAAAAAAAAAAAAA", "nothing"):
        assert fetch(f"{base}/replays/{unknown}")[0] == 404
        assert fetch(f"{base}/replays/{unknown}.svg")[0] == 404
        assert fetch(f"{base}/replays/{unknown}.png")[0] == 404


def test_the_replay_page_puts_the_board_first_at_every_size_in_both_languages(
    browser: Browser, replay_server: ServerProcess, replay_id: str
) -> None:
    page = new_page(browser, viewport={"width": 1920, "height": 1080})
    page.goto(f"{replay_server.http_url}/replays/{replay_id}")
    expect(page.locator("#rp-title")).to_have_text("Ana & Bo's wins!")
    expect(page.locator("#rp-what")).to_contain_text("Players: Ana & Bo's and Mo")
    assert low_contrast(page) == []  # every word readable, the page's background included
    for lang, title in (("en", "Ana & Bo's wins!"), ("hr", "Ana & Bo's pobjeđuje!")):
        pick_language(page, lang)
        expect(page.locator("#rp-title")).to_have_text(title)
        expect(page.locator("#rp-how")).to_contain_text("52")
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.evaluate("window.scrollTo(0, 0)")
            page.click("#rp-last")
            expect(page.locator("#rp-moves button.current")).to_have_count(1)
            found = measure(page)
            where = f"{width}x{height} {lang}: {found}"
            assert found["boardInside"] and found["card"] >= MIN_CARD[(width, height)], where
            assert found["listInside"], where  # its moves cut only by its own scroll
            assert found["listScrolls"] and found["currentInside"], where
            assert found["pageWidth"] <= width and found["stepperInside"], where
            if width > 800:  # the list beside the board: every move lies inside the window
                assert page.evaluate(EVERY_MOVE_INSIDE), where
            if width > 800:
                continue
            # a phone: stepping, by the buttons or the list, never moves the page
            page.click("#rp-first")
            for _ in range(3):
                page.click("#rp-forward")
            expect(page.locator("#rp-step")).to_contain_text("3")
            page.locator("#rp-moves button").nth(60).click()
            expect(page.locator("#rp-moves button.current")).to_have_attribute("data-step", "61")
            after = measure(page)
            assert after["scrollY"] == 0 and after["boardInside"], after
            assert after["stepperInside"] and after["currentInside"], after

    # the older link, under the page's file name, opens the same replay
    page.goto(f"{replay_server.http_url}/replay.html#{replay_id}")
    expect(page.locator("#rp-title")).to_have_text("Ana & Bo's pobjeđuje!")  # Croatian, kept
    expect(page.locator("#replay-board .card").first).to_be_visible()
    page.context.close()


def step_clock(ms: int) -> str:
    """The page's clock of a move: minutes, seconds and tenths ("0:12.4")."""
    return f"{ms // 60_000}:{ms // 1000 % 60:02d}.{ms // 100 % 10}"


def test_each_move_shows_when_it_was_played_and_an_older_replay_still_opens(
    browser: Browser, replay_server: ServerProcess, replay_id: str
) -> None:
    base = replay_server.http_url
    status, _, raw = fetch(f"{base}/replay/{replay_id}")
    assert status == 200
    body = json.loads(raw)
    ana = body["players"][0]
    assert ana["name"] == WINNER and len(ana["times_ms"]) == len(ana["moves_list"])
    page = new_page(browser, viewport={"width": 1366, "height": 768})
    page.goto(f"{base}/replays/{replay_id}")
    pick_language(page, "en")
    expect(page.locator("#rp-title")).to_have_text("Ana & Bo's wins!")
    clock_of = page.locator("#rp-time")
    expect(clock_of).to_have_text("\u00b7 0:00.0")  # the start
    page.click("#rp-forward")
    expect(clock_of).to_have_text(f"\u00b7 {step_clock(ana['times_ms'][0])}")
    page.click("#rp-last")
    expect(clock_of).to_have_text(f"\u00b7 {step_clock(ana['times_ms'][-1])}")
    expect(clock_of).to_have_attribute("title", re.compile("server received"))
    page.screenshot(path="/tmp/times-replay-1366.png")
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("#rp-moves button").nth(40).click()
    expect(clock_of).to_have_text(f"\u00b7 {step_clock(ana['times_ms'][40])}")
    assert measure(page)["stepperInside"]
    page.screenshot(path="/tmp/times-replay-390.png")
    pick_language(page, "hr")
    expect(clock_of).to_have_attribute("title", re.compile("poslužitelj"))

    # a replay kept before times were kept: the same race, no times_ms
    old_id = "r-OLDREPLAY0000000"
    for player in body["players"]:
        del player["times_ms"]
    body["id"] = old_id
    store = redis.Redis.from_url(replay_server.redis_url)
    try:
        store.set(player_keys.replay(old_id), json.dumps(body))
    finally:
        store.close()
    status, _, raw = fetch(f"{base}/replay/{old_id}")
    assert status == 200
    old = json.loads(raw)
    assert [p.get("times_ms") for p in old["players"]] == [None, None]  # served as kept
    assert msgspec.convert(old, RoomReplay).players[0].times_ms is None  # the Python client
    assert old["players"][0]["moves_list"] == ana["moves_list"]
    page.goto(f"{base}/replays/{old_id}")
    pick_language(page, "en")
    expect(page.locator("#rp-title")).to_have_text("Ana & Bo's wins!")
    for _ in range(3):
        page.click("#rp-forward")
    expect(page.locator("#rp-step")).to_contain_text("3")
    expect(clock_of).to_be_hidden()  # no clock where no time was kept
    page.click("#rp-play")  # and it still plays, at an even pace
    # past move 3 (a busy machine may look only once it is well past move 4)
    page.wait_for_function(
        "() => Number((/Move (\\d+) of/.exec("
        "document.querySelector('#rp-step').textContent) || [0, 0])[1]) > 3"
    )
    page.click("#rp-play")
    page.context.close()
