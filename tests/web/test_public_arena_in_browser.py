"""The home page's public arena announcement in a real browser against a real
server whose timetable runs one: its name in the reader's language, a countdown
that ticks, and one click from the home page to racing in it; the home page and
the public arena's page at four sizes in both languages while bots race heats
in it. Screenshots go to /tmp/shots-arena2/."""

from __future__ import annotations

import asyncio
import json
import queue
import random
import re
import threading
import urllib.request
from pathlib import Path
from typing import Any

from canfield_bench.processes import ServerProcess
from canfield_client.arena import race_arena
from canfield_client.client import RaceClient
from canfield_client.strategy import Strategy
from playwright.sync_api import Browser, Page, expect

from tests.conftest import ServerFactory
from tests.web.pages import new_page

SHOTS = Path("/tmp/shots-arena2")
#: an hourly Draw 3 arena on the hour and an hourly Draw 1 one on the half hour,
#: each 45 minutes: one of them always has minutes to run
ENV = {
    "CANFIELD_PUBLIC_ARENAS": "60@00:00/3/45;60@00:30/1/45",
    "CANFIELD_COUNTDOWN_S": "0.5",
    "CANFIELD_ARENA_TICK_S": "0.5",
    "CANFIELD_ARENA_GATHER_S": "1",
    "CANFIELD_ARENA_SEAT_WAIT_S": "2",
}
SIZES = [(1920, 1080), (1366, 768), (390, 844), (360, 740)]
BOTS = ["Ana", "Ivo", "Mara"]
NAMES = {
    "en": re.compile(r"Hourly arena · Draw [13] cards?"),
    "hr": re.compile(r"Arena svakog sata · Izvlačenje [13] karte"),
}


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def running(server: ServerProcess) -> dict[str, Any]:
    """The public arena the home page announces, once it runs with minutes to go
    (the first that is not in its last minute)."""
    for _ in range(400):
        with urllib.request.urlopen(server.http_url + "/api/arenas", timeout=10) as reply:
            body = json.load(reply)
        open_ = [a for a in body["arenas"] if a["status"] != "closing"]
        if open_ and open_[0]["status"] == "running":
            if open_[0]["ends_at"] - body["server_time"] > 180_000:
                return open_[0]
        threading.Event().wait(0.5)
    raise AssertionError("no public arena runs")


class Bots:
    """Bots racing the public arena from a thread of their own, until told."""

    def __init__(self, url: str, code: str) -> None:
        self.url, self.code = url, code
        self.end = threading.Event()
        self.ready: queue.Queue[bool] = queue.Queue()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _run(self) -> None:
        clients = [await RaceClient(self.url).connect() for _ in BOTS]
        for client in clients:
            await client.identify(None)
        tasks = [
            asyncio.create_task(
                race_arena(c, self.code, name, Strategy("normal", random.Random(n)), pace_s=0.05)
            )
            for n, (c, name) in enumerate(zip(clients, BOTS, strict=True))
        ]
        self.ready.put(True)
        while not self.end.is_set():
            await asyncio.sleep(0.2)
        for client in clients:
            await client.close()
        await asyncio.wait(tasks, timeout=30)


def test_the_home_page_announces_the_public_arena_and_races_in_it_in_one_click(
    browser: Browser, server_factory: ServerFactory
) -> None:
    server: ServerProcess = server_factory(env=ENV)
    arena = running(server)
    bots = Bots(server.ws_url, arena["code"])
    bots.thread.start()
    bots.ready.get(timeout=60)
    try:
        for lang in ("en", "hr"):
            for width, height in SIZES:
                page = new_page(browser, viewport={"width": width, "height": height})
                page.goto(f"{server.http_url}/?lang={lang}")
                promo = page.locator("#arena-promo")
                expect(promo).to_be_visible(timeout=30_000)
                expect(page.locator("#arena-promo-title")).to_have_text(NAMES[lang])
                when = page.locator("#arena-promo-when")
                expect(when).to_have_text(re.compile(r"(Ends in|Završava za) \d+:\d\d"))
                first = when.inner_text()
                expect(when).not_to_have_text(first, timeout=5_000)  # the countdown ticks
                expect(page.locator("#arena-promo-after")).to_be_visible()
                assert page.evaluate("() => document.documentElement.scrollWidth") <= width
                promo.scroll_into_view_if_needed()
                shoot(page, f"home-{width}x{height}-{lang}")
                page.close()
        # one click from the home page: the name typed there races in the arena
        page = new_page(browser, viewport={"width": 1366, "height": 768})
        page.goto(f"{server.http_url}/?lang=en")
        page.fill("#name", "Vesna")
        page.locator("#arena-promo-go").click()
        page.wait_for_url(f"**/a/{arena['code']}?join=1")
        expect(page.locator("#arena-me")).to_contain_text("You", timeout=30_000)
        expect(page.locator("#arena-status")).to_contain_text("public, heats rated")
        page.close()
        for lang in ("en", "hr"):
            for width, height in SIZES:
                page = new_page(browser, viewport={"width": width, "height": height})
                page.goto(f"{server.http_url}/a/{arena['code']}?lang={lang}")
                expect(page.locator("#arena-name")).to_have_text(NAMES[lang])
                expect(page.locator("#arena-table tbody tr").first).to_be_visible(timeout=30_000)
                expect(page.locator("#arena-share")).to_be_hidden()
                assert page.evaluate("() => document.documentElement.scrollWidth") <= width
                if width == 1366:
                    page.locator("#arena-howto summary").click()
                    expect(page.locator("#arena-howto p").last).to_be_visible()
                shoot(page, f"arena-{width}x{height}-{lang}")
                page.close()
    finally:
        bots.end.set()
        bots.thread.join(timeout=60)
