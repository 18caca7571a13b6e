"""The spectator screen, in a real browser on a real server: three racers play
over their own websockets, and one page watches, having come in after the
start. Its race chart starts at the race's start (the server's ``progress``),
the lanes, the standings and the feed of finishes show a give-up and a win as
they happen, nobody's cards reach it, and at 1920x1080, 1366x768, 390x844 and
360x740, in English and Croatian, the screen fits (no page scroll on a wide
screen, lanes in the first screen, chart text of 11 px or more with no tick
labels over one another). Big-screen mode makes the type larger and is
remembered after a reload; the results' chart on a phone keeps its text too.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from canfield import Game
from canfield.solver import solve
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, FloatRect, Page, expect

from tests.conftest import ServerFactory
from tests.web.pages import (
    leaderboard_row,
    low_contrast,
    new_page,
    pick_language,
    record_frames,
    wire_race,
)

#: the solver wins it in milliseconds: a line all the way to 52 cards
DEAL = "CF1-D3-AAADKOH"
SIZES = [(1920, 1080), (1366, 768), (390, 844), (360, 740)]

#: the rendered size of the chart's text and the tick labels that overlap
CHART_TEXT = """(root) => {
  const svg = document.querySelector(root + ' svg.chart-svg');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const px = (t) => parseFloat(getComputedStyle(t).fontSize) * scale;
  const sizes = [...svg.querySelectorAll('text')].map(px);
  const labels = [...svg.querySelectorAll('.chart-grid text, text.end-label')]
    .map((t) => [t.textContent, t.getBoundingClientRect()]);
  const overlaps = [];
  labels.forEach(([a, r], i) => labels.slice(i + 1).forEach(([b, s]) => {
    const apart = r.right <= s.left || s.right <= r.left || r.bottom <= s.top || s.bottom <= r.top;
    if (!apart) overlaps.push([a, b]);
  }));
  const ticks = [...svg.querySelectorAll('.tick-label')].map((t) => t.textContent);
  return { min: Math.min(...sizes), overlaps, ticks };
}"""

#: the chart has been drawn for the width its box has now
CHART_FITS = """(root) => {
  const box = document.querySelector(root + ' .chart-box');
  const svg = box && box.querySelector('svg');
  if (!svg || !box.clientWidth) return false;
  return Math.abs(svg.width.baseVal.value - Math.max(240, box.clientWidth)) <= 4;
}"""

PAGE = """() => ({
  width: innerWidth, height: innerHeight,
  scrollWidth: document.documentElement.scrollWidth,
  scrollHeight: document.documentElement.scrollHeight,
})"""


@pytest.fixture
def watch_server(server_factory: ServerFactory) -> ServerProcess:
    # the racers play solver lines at full speed: a message rate no person reaches
    return server_factory(env={"CANFIELD_COUNTDOWN_S": "0.3", "CANFIELD_RATE_PER_S": "1000"})


def box(page: Page, selector: str) -> FloatRect:
    found = page.locator(selector).first.bounding_box()
    assert found, f"{selector} is not on screen"
    return found


def chart_text(page: Page, root: str) -> dict[str, Any]:
    page.wait_for_function(CHART_FITS, arg=root)
    return page.evaluate(CHART_TEXT, root)


def test_the_spectator_screen_from_a_late_join_to_the_results(
    browser: Browser, watch_server: ServerProcess
) -> None:
    line = solve(DEAL, 30).moves
    assert line, "the solver wins this deal"
    with wire_race(watch_server.ws_url, ["Ana", "Bob", "Cy"], DEAL) as (room, (ana, bob, cy)):
        early = line[:24]
        for move in early:
            ana.act(type="move", move=move)
        ana_cards = Game.replay(DEAL, early).on_foundations
        assert ana_cards >= 4

        # a spectator comes in after the start
        vi = new_page(browser, viewport={"width": 1920, "height": 1080})
        frames = record_frames(vi)
        vi.goto(f"{watch_server.http_url}/r/{room}")
        vi.fill("#name", "Big screen")
        vi.click("#watch")
        expect(vi.locator("#view-race")).to_be_visible()

        # its chart starts at 0:00 with Ana's progress from before it came
        ana_line = vi.locator('#race-watch path.line[data-name="Ana"]')
        expect(ana_line).to_have_attribute("data-last", str(ana_cards))
        expect(ana_line).to_have_attribute("data-from", "0")
        assert int(ana_line.get_attribute("data-points") or 0) >= 3
        expect(vi.locator("#race-watch path.line")).to_have_count(3)
        assert "0:00" in chart_text(vi, "#race-watch")["ticks"]  # the time axis starts at the start
        # what the server sent for it: the counts of whoever had moved (Ana), no card
        progress = [f for f in frames if f["type"] == "progress"]
        ana_id = next(
            r["id"]
            for f in frames
            if f["type"] == "leaderboard"
            for r in f["rows"]
            if r["name"] == "Ana"
        )
        assert [(r["id"], len(r["reached"])) for r in progress[0]["racers"]] == [
            (ana_id, ana_cards + 1)
        ]
        expect(vi.locator("#race-lb .lane")).to_have_count(3)
        expect(vi.locator("#race-lb .lane .name").first).to_have_text("Ana")
        expect(vi.locator("#watch-feed .feed-empty")).to_be_visible()

        # a give-up, then a win, as they happen: lanes, standings and the feed
        bob.act(type="move", move=line[0])
        bob.act(type="give_up")
        lane = vi.locator("#race-lb .lane", has_text="Bob")
        expect(lane).to_have_attribute("data-status", "gave_up")
        expect(leaderboard_row(vi, "Bob").locator("td.c-status")).to_have_text("gave up")
        expect(vi.locator("#watch-feed .feed-item .what")).to_have_text(
            [f"Bob gave up with {Game.replay(DEAL, line[:1]).on_foundations} cards home"]
        )
        for move in line[len(early) :]:
            ana.act(type="move", move=move)
        expect(vi.locator("#race-lb .lane").first).to_have_attribute("data-status", "won")
        expect(vi.locator("#race-lb .lane").first.locator(".mark")).to_have_text("won")
        expect(leaderboard_row(vi, "Ana").locator("td.c-status")).to_have_text("won")
        feed = vi.locator("#watch-feed .feed-item")
        expect(feed).to_have_count(2)
        expect(feed.first).to_contain_text("Ana finished 1st in")
        expect(feed.first.locator(".place")).to_have_text("1st")
        expect(feed.first.locator(".detail")).to_contain_text("52 cards home")
        expect(feed.first).to_have_class(re.compile(r"\bfresh\b"))  # news: it lights up
        # the lanes in place order, as the standings
        places = vi.locator("#race-lb tbody td.c-player").all_inner_texts()
        expect(vi.locator("#race-lb .lane .name")).to_have_text(places)

        # fair: no racer's cards ever reached the spectator during the race
        assert vi.locator(".card").count() == 0
        assert vi.locator("#board .board").count() == 0
        assert not [f for f in frames if f["type"] in ("ack", "board") or f.get("board")]
        # every word on the screen readable, its background included
        assert low_contrast(vi) == []

        # every size, both languages: it fits, the lanes come first, the chart reads
        for lang in ("en", "hr"):
            pick_language(vi, lang)
            for width, height in SIZES:
                vi.set_viewport_size({"width": width, "height": height})
                where = f"{lang} {width}x{height}"
                text = chart_text(vi, "#race-watch")
                assert text["min"] >= 11, (where, text)
                assert text["overlaps"] == [], (where, text)
                size = vi.evaluate(PAGE)
                assert size["scrollWidth"] <= size["width"], where
                lanes = box(vi, "#race-lb .lanes")
                assert lanes["y"] >= 0 and lanes["y"] + lanes["height"] <= height, (where, lanes)
                if width > 760:
                    assert size["scrollHeight"] <= size["height"], where  # the screen is the page
                if width == 1920:
                    # filled: the chart reaches the bottom, the feed too, beside the lanes
                    chart, feed_box = box(vi, "#race-watch .chart-panel"), box(vi, "#watch-feed")
                    assert chart["y"] + chart["height"] >= height - 40, (where, chart)
                    assert feed_box["y"] + feed_box["height"] >= height - 40, (where, feed_box)
                    assert chart["width"] + feed_box["width"] >= 0.85 * width, (
                        where,
                        chart,
                        feed_box,
                    )
                    assert feed_box["x"] >= chart["x"] + chart["width"], where
        expect(vi.locator("#watch-feed h2")).to_have_text("Na cilju")

        # big screen: larger type, still one screen, remembered after a reload
        pick_language(vi, "en")
        vi.set_viewport_size({"width": 1920, "height": 1080})
        name_px = "el => parseFloat(getComputedStyle(el).fontSize)"
        normal = vi.locator("#race-lb .lane .name").first.evaluate(name_px)
        normal_chart = chart_text(vi, "#race-watch")["min"]
        vi.click("#big-screen")
        expect(vi.locator("#big-screen")).to_have_attribute("aria-pressed", "true")
        big = vi.locator("#race-lb .lane .name").first.evaluate(name_px)
        assert big >= 1.3 * normal, (normal, big)
        vi.wait_for_function(
            "px => parseFloat(document.querySelector('#race-watch svg').style.fontSize) > px",
            arg=normal_chart,
        )
        size = vi.evaluate(PAGE)
        assert size["scrollHeight"] <= size["height"] and size["scrollWidth"] <= size["width"]
        vi.reload()
        expect(vi.locator("#view-race")).to_be_visible()
        expect(vi.locator("#big-screen")).to_have_attribute("aria-pressed", "true")
        expect(vi.locator("body")).to_have_class(re.compile(r"\bbig-screen\b"))
        assert vi.locator("#race-lb .lane .name").first.evaluate(name_px) == big
        # the reloaded page draws the chart from the start again
        expect(vi.locator('#race-watch path.line[data-name="Ana"]')).to_have_attribute(
            "data-from", "0"
        )

        # the race ends: the results' chart on a phone keeps readable, separate labels
        cy.act(type="give_up")
        expect(vi.locator("#view-results")).to_be_visible()
        vi.set_viewport_size({"width": 390, "height": 844})
        text = chart_text(vi, "#results-chart")
        assert text["min"] >= 11 and text["overlaps"] == [], text
