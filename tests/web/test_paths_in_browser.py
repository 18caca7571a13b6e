"""Every path leads somewhere: one header on every page, a 404 that helps, a
room link that cannot be a room, focus that follows the screens and rings only
for the keyboard, readable text on every page, and phone chrome that stays one
row - at 1920x1080, 1366x768, 390x844 and 360x740, in English and Croatian.

A real server and a real Chromium; one page is resized through the sizes."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.error import HTTPError

import pytest
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, expect

from tests.conftest import NO_ROOM_BUDGET, servers_of_their_own
from tests.web.helpers import DAY, daily_env
from tests.web.pages import (
    PHONE,
    create_room,
    join_by_link,
    low_contrast,
    new_page,
    pick_language,
    set_deal,
    wait_board,
)

DEAL = "CF1-D3-AAAAACL"
SIZES = [(1920, 1080), (1366, 768), (390, 844), (360, 740)]
PAGES = ["/", "/daily", "/me", "/ladder", "/replay.html", "/no/such/page"]
SMALL_PHONE: dict[str, Any] = {**PHONE, "viewport": {"width": 360, "height": 740}}
LINKS = {
    "en": ["Race", "Daily race", "My races", "Ladder"],
    "hr": ["Utrka", "Dnevna utrka", "Moje utrke", "Ljestvica"],
}

# the tops and bottoms of what a bar shows, to tell one row from two
ROWS = """sel => {
  const bar = document.querySelector(sel);
  const drawn = (el) => el.getClientRects().length > 0;
  const boxed = (el) => drawn(el) && getComputedStyle(el).display !== "contents";
  const shown = [...bar.children].filter(boxed);
  const inline = [...bar.querySelectorAll(":scope > .fold-panel:not(.open) > *")].filter(drawn);
  const parts = shown.concat(inline);
  const r = parts.map(el => el.getBoundingClientRect());
  return {
    tops: r.map(x => Math.round(x.top + x.height / 2)),
    right: Math.max(...r.map(x => x.right)),
    width: innerWidth,
    scroll: document.documentElement.scrollWidth,
  };
}"""


# whether the focused element draws a focus ring (an outline, or a pile's ring)
RING = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return false;
  const own = getComputedStyle(el), after = getComputedStyle(el, "::after");
  return (own.outlineStyle !== "none" && parseFloat(own.outlineWidth) > 0)
    || (after.content !== "none" && after.boxShadow !== "none");
}"""


@pytest.fixture(scope="module")
def fast_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for the file's tests (each its own pages, so identities, and rooms;
    the daily is played by the last alone)."""
    # the daily race on a fixed day: a run at midnight never waits for a new day's deal
    env = {
        "CANFIELD_COUNTDOWN_S": "0.2",
        "CANFIELD_POOL_TARGET": "0",
        **daily_env(DAY),
        **NO_ROOM_BUDGET,
    }
    with servers_of_their_own(tmp_path_factory.mktemp("paths"), env) as (server,):
        yield server


def one_row(page: Page, selector: str, where: str) -> None:
    got = page.evaluate(ROWS, selector)
    centres = got["tops"]
    assert max(centres) - min(centres) <= 8, f"{selector} wraps at {where}: {centres}"
    assert got["right"] <= got["width"] + 0.5, f"{selector} runs off the screen at {where}"
    assert got["scroll"] <= got["width"], f"the page scrolls sideways at {where}"


def test_one_header_on_every_page_one_row_at_every_size(
    browser: Browser, fast_server: ServerProcess
) -> None:
    base = fast_server.http_url
    page = new_page(browser)
    for path in PAGES:
        page.goto(base + path)
        header = page.locator("header.top")
        expect(header.locator(".brand")).to_have_text("Canfield Race")
        for lang in ("en", "hr"):
            pick_language(page, lang)
            for width, height in SIZES:
                page.set_viewport_size({"width": width, "height": height})
                where = f"{path} {lang} {width}x{height}"
                expect(header.locator(".brand")).to_be_visible()
                one_row(page, "header.top", where)
                nav = header.locator(".site-nav a")
                if not nav.first.is_visible():  # a narrow screen: the links wait in the Menu
                    header.locator(".site-toggle").click()
                expect(nav).to_have_text(LINKS[lang])
                expect(header.locator("#pref-lang")).to_be_visible()
                if header.locator(".site-panel.open").count():
                    page.keyboard.press("Escape")
                    expect(header.locator(".site-panel")).to_be_hidden()
                    expect(header.locator(".site-toggle")).to_be_focused()
        page.set_viewport_size({"width": 1366, "height": 768})
        pick_language(page, "en")


def test_a_wrong_link_says_so_and_offers_the_ways_on(
    browser: Browser, fast_server: ServerProcess
) -> None:
    base = fast_server.http_url
    # an unknown path, or a replay that is not there: the status says so, and so
    # does a page in the reader's language
    for path in ("/no/such/page", "/replays/nosuchreplay"):
        with pytest.raises(HTTPError) as missing:
            urllib.request.urlopen(base + path, timeout=10)
        assert missing.value.code == 404
        assert "text/html" in missing.value.headers["content-type"]
        assert 'src="/js/notfound.js"' in missing.value.read().decode()
    page = new_page(browser, locale="hr-HR")
    response = page.goto(base + "/no/such/page")
    assert response is not None and response.status == 404
    expect(page.locator("main h1")).to_have_text("Ovdje nema stranice")
    expect(page.locator("#missing-text")).to_contain_text("/no/such/page")
    expect(page.locator("#missing-home")).to_be_focused()
    pick_language(page, "en")
    expect(page.locator("main h1")).to_have_text("No page here")
    page.click("#missing-home")
    expect(page.locator("#view-home")).to_be_visible()

    # a room link that cannot be a room: say so, show the code field and New race
    for lang, words in (("en", "is not a room code"), ("hr", "nije kôd sobe")):
        pick_language(page, lang)
        page.goto(base + "/r/ZZZZ")
        expect(page.locator("#home-error")).to_contain_text("ZZZZ")
        expect(page.locator("#home-error")).to_contain_text(words)
        expect(page.locator("#room-code")).to_be_visible()
        expect(page.locator("#create")).to_be_visible()
        expect(page.locator("#join-title")).to_be_hidden()
    # and the field it shows takes a real code
    room = create_room(new_page(browser), base, "Ana")
    page.fill("#name", "Bob")
    page.fill("#room-code", room.lower())
    page.click("#join")
    expect(page.locator("#view-lobby")).to_be_visible()


def test_focus_follows_the_screens_and_rings_only_for_the_keyboard(
    browser: Browser, fast_server: ServerProcess
) -> None:
    base = fast_server.http_url
    page = new_page(browser)
    page.goto(base + "/")
    expect(page.locator("#name")).to_be_focused()  # a new reader's first step
    create_room(page, base, "Ana")
    expect(page.locator("#start")).to_be_focused()  # the host's next step
    set_deal(page, DEAL)
    page.click("#start")
    wait_board(page)
    expect(page.locator("#board .stock")).to_be_focused()  # the race: the keys work at once

    # a click on the stock draws; no ring is left on the board to look like a selection
    page.click("#board .stock")
    expect(page.locator("#board .waste .card[data-card]")).not_to_have_count(0)
    assert not page.evaluate(RING)
    # the keyboard brings the ring back
    page.keyboard.press("Tab")
    assert page.evaluate(RING)


def test_every_text_on_every_page_is_readable(browser: Browser, fast_server: ServerProcess) -> None:
    base = fast_server.http_url
    page = new_page(browser)
    found: dict[str, list[str]] = {}
    for path in ["/", "/daily", "/me", "/no/such/page", "/r/ZZZZ"]:
        page.goto(base + path)
        expect(page.locator("header.top .brand")).to_be_visible()
        page.wait_for_load_state("networkidle")
        found[path] = low_contrast(page)
    create_room(page, base, "Ana")
    found["lobby"] = low_contrast(page)
    set_deal(page, DEAL)
    page.click("#start")
    wait_board(page)
    expect(page.locator("#countdown")).to_be_hidden()
    found["race"] = low_contrast(page)
    page.click("#give-up")
    page.click("#give-up")
    expect(page.locator("#view-results")).to_be_visible()
    found["results"] = low_contrast(page)
    assert {where: problems for where, problems in found.items() if problems} == {}


def test_phone_race_and_daily_headers_are_one_row(
    browser: Browser, fast_server: ServerProcess
) -> None:
    base = fast_server.http_url
    host = new_page(browser, **SMALL_PHONE)
    room = create_room(host, base, "Ana")
    guest = new_page(browser)
    join_by_link(guest, base, room, "Bob")
    set_deal(host, DEAL)
    guest.click("#ready")
    expect(host.locator("#players .ready-mark.on")).to_have_count(1)
    host.click("#start")
    wait_board(host)
    daily = new_page(
        browser, viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True
    )
    daily.goto(base + "/daily")
    daily.fill("#daily-name", "Ana")
    daily.click("#daily-play")
    # today's deal is solved on the first ask: give it time on a busy machine
    expect(daily.locator("#daily-board .card").first).to_be_visible(timeout=60_000)
    for lang in ("en", "hr"):
        for page in (host, daily):
            pick_language(page, lang)
        for width, height in [(390, 844), (360, 740)]:
            where = f"{lang} {width}x{height}"
            for page in (host, daily):
                page.set_viewport_size({"width": width, "height": height})
                one_row(page, "header.top", where)
            one_row(host, "#view-race .race-head", where)  # the host's: undo, end, leave, give up
            one_row(daily, "#daily-race .race-head", where)
            # the daily board starts near the top, as a room race's does
            board_top = daily.locator("#daily-board").bounding_box()
            race_top = host.locator("#board").bounding_box()
            assert board_top and race_top and board_top["y"] < 0.2 * height, where
            width_daily = daily.locator("#daily-board .column .card").first.bounding_box()
            width_race = host.locator("#board .column .card").first.bounding_box()
            assert width_daily and width_race and width_daily["width"] >= width_race["width"] - 1, (
                where
            )
    # what folded away is one tap off: end the race from the fold
    host.click("#race-more")
    expect(host.locator("#end-race")).to_be_visible()
    expect(host.locator("#leave-race")).to_be_visible()
    host.keyboard.press("Escape")
    expect(host.locator("#end-race")).to_be_hidden()
