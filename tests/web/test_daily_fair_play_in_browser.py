"""Unranked in the daily standing, and why, in the browser: a throwaway page
starts today's daily from one network; a second page from the same network
(another browser of that household) plays it and gives up. It is shown apart,
unranked, with the reason, on its result and in the standing, in English and
Croatian, at a desktop and a phone size.

The pages reach ``serve`` through a proxy on this host, the one it ships
trusting, which names their address in ``X-Forwarded-For`` (``forwarded_from``).
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.conftest import ServerFactory
from tests.web.conftest import ForwardedFrom
from tests.web.helpers import DAY, daily_env
from tests.web.pages import new_page, pick_language

SHOTS = Path("/tmp/shots-fair-play")
SIZES = [(1366, 768), (390, 844)]


def start_daily(page: Page, base: str, name: str) -> None:
    page.goto(base + "/daily")
    page.fill("#daily-name", name)
    page.click("#daily-play")
    expect(page.locator("#daily-board .board")).to_be_visible()


def test_a_second_identity_of_one_network_plays_the_daily_unranked(
    browser: Browser, server_factory: ServerFactory, forwarded_from: ForwardedFrom
) -> None:
    server = server_factory(env=daily_env(DAY))
    scout = new_page(browser)
    start_daily(scout, forwarded_from(server, "198.51.100.7"), "Scout")
    ana = new_page(browser)
    start_daily(ana, forwarded_from(server, "198.51.100.9"), "Ana")
    ana.click("#daily-give-up")
    ana.click("#daily-give-up")  # "Sure?"
    expect(ana.locator("#daily-result")).to_be_visible()
    apart = ana.locator("#standing-aside")
    mine = apart.locator("li.me")
    # ranks count only ranked rows: the scout is first, Ana is listed apart
    expect(ana.locator("#standing tr td.c-player")).to_have_text(["Scout"])
    expect(ana.locator("#standing tr td.c-rank")).to_have_text(["1"])
    SHOTS.mkdir(parents=True, exist_ok=True)
    for lang, why, you in (
        (
            "en",
            "unranked: another identity from this network played today",
            "You played unranked: another identity from this network played today.",
        ),
        (
            "hr",
            "bez plasmana: s ove je mreže danas već igrao drugi identitet",
            "Tvoja je igra bez plasmana: s ove je mreže danas već igrao drugi identitet.",
        ),
    ):
        pick_language(ana, lang)
        expect(mine.locator("b")).to_have_text("Ana")
        expect(mine.locator(".rv-tag")).to_have_text(why)
        expect(ana.locator("#result-body .place-text")).to_contain_text(you)
        for width, height in SIZES:
            ana.set_viewport_size({"width": width, "height": height})
            apart.scroll_into_view_if_needed()
            ana.screenshot(path=str(SHOTS / f"daily-{lang}-{width}.png"))
