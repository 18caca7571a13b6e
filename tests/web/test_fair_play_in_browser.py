"""Unrated, and why, in the browser: two pages from one network (a household's
two browsers) race now in one public race; the results say neither was rated
and why, in English and Croatian, at a desktop and a phone size.

The pages reach ``serve`` through a proxy on this host, the one it ships
trusting (``CANFIELD_TRUSTED_PROXIES``), which names in ``X-Forwarded-For``
the address a proxy would have seen, on every request, the websocket's
upgrade included (``forwarded_from``): the server sees each page from that
address, as behind the shipped nginx.
"""

from __future__ import annotations

from pathlib import Path

from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, expect

from tests.web.conftest import ForwardedFrom
from tests.web.helpers import race_now
from tests.web.pages import give_up, new_page, pick_language, record_frames, wait_board

SHOTS = Path("/tmp/shots-fair-play")
SIZES = [(1366, 768), (390, 844)]


def test_two_pages_of_one_network_race_unrated_and_are_told_why(
    browser: Browser, server: ServerProcess, forwarded_from: ForwardedFrom
) -> None:
    ana_way, bob_way = (forwarded_from(server, ip) for ip in ("198.51.100.7", "198.51.100.9"))
    ana, bob = new_page(browser), new_page(browser)
    frames = record_frames(ana)
    race_now(ana, ana_way, "Ana")
    race_now(bob, bob_way, "Bob")
    assert bob.url.removeprefix(bob_way) == ana.url.removeprefix(ana_way)  # one public race
    for page in (ana, bob):
        wait_board(page)
    for page in (ana, bob):
        give_up(page)
    ratings = ana.locator("#race-ratings")
    expect(ratings).to_be_visible()
    (finished,) = [f for f in frames if f["type"] == "finished"]
    for row in finished["standings"]:
        assert row["unrated"] == "same-network" and "rating" not in row
    SHOTS.mkdir(parents=True, exist_ok=True)
    for lang, words in (
        ("en", "not rated: same network as another racer"),
        ("hr", "bez rejtinga: ista mreža kao drugi natjecatelj"),
    ):
        pick_language(ana, lang)
        for name in ("Ana", "Bob"):
            expect(ratings.locator(f'li:has-text("{name}")')).to_contain_text(words)
        for width, height in SIZES:
            ana.set_viewport_size({"width": width, "height": height})
            ratings.scroll_into_view_if_needed()
            ana.screenshot(path=str(SHOTS / f"results-{lang}-{width}.png"))
