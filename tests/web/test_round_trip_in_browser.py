"""The racer's round trip on the page, in a real browser on a real server.

The page answers the server's ``rtt_ping`` through a delaying proxy (its own
process, loopback only) adding 200 ms to every round trip: its lane shows a
signal icon of at most two bars whose title and label say the ms, in English
and in Croatian, and the results list the racer's median round trip. No test
here times anything: the proxy makes every round trip at least 200 ms.
"""

from __future__ import annotations

import re
from pathlib import Path

from canfield_bench.distance import solo_race
from canfield_bench.processes import DelayProxy
from playwright.sync_api import Browser, expect

from tests.conftest import ServerFactory
from tests.web.pages import give_up, new_page, pick_language

DEAL = "CF1-D3-AAADKOH"
#: a round trip of 200 ms or more, as the page writes it
FAR_MS = re.compile(r"\b([2-9]\d\d|\d{4,}) ms\b")


def test_lane_signal_and_median_in_the_results(
    browser: Browser, server_factory: ServerFactory, tmp_path: Path
) -> None:
    server = server_factory(env={"CANFIELD_COUNTDOWN_S": "0.3", "CANFIELD_RTT_PING_S": "0.5"})
    proxy = DelayProxy(server.port, 200, tmp_path).start()
    page = new_page(browser, viewport={"width": 1366, "height": 768})
    try:
        solo_race(page, proxy.http_url, DEAL)
        signal = page.locator("#race-lb .lane .signal")
        expect(signal).to_be_visible(timeout=60_000)
        expect(signal).to_have_attribute("title", FAR_MS)
        assert signal.get_attribute("data-bars") in ("1", "2"), signal.get_attribute("data-bars")
        assert FAR_MS.search(signal.get_attribute("aria-label") or "")
        assert FAR_MS.search(page.locator("#race-lb .lane").get_attribute("aria-label") or "")
        pick_language(page, "hr")
        expect(signal).to_have_attribute("title", re.compile(r"^Odziv poslužitelja: \d+ ms$"))
        pick_language(page, "en")
        expect(signal).to_have_attribute("title", re.compile(r"^Round trip to the server: \d+ ms$"))
        give_up(page)
        cell = page.locator("#final-lb td.c-rtt")
        expect(cell).to_have_text(FAR_MS, timeout=60_000)
        expect(page.locator("#final-lb th.c-rtt")).to_have_text("Round trip")
        expect(cell.locator(".signal")).to_be_visible()
        pick_language(page, "hr")
        expect(page.locator("#final-lb th.c-rtt")).to_have_text("Odziv")
    finally:
        page.close()
        proxy.stop()
