"""The arena page in a real browser against a real server: made from its form,
raced (the page is seated in a heat, races it on the race page and comes back),
and watched at four sizes in both languages while bots race heats and after
the host ends it (the podium). Screenshots go to /tmp/shots-arena/."""

from __future__ import annotations

import asyncio
import queue
import random
import re
import threading
from pathlib import Path

from canfield_bench.processes import ServerProcess
from canfield_client.arena import race_arena
from canfield_client.client import RaceClient
from canfield_client.strategy import Strategy
from playwright.sync_api import Browser, Page, expect

from tests.conftest import ServerFactory
from tests.web.pages import give_up, new_page

SHOTS = Path("/tmp/shots-arena")
ENV = {
    "CANFIELD_COUNTDOWN_S": "0.5",
    "CANFIELD_ARENA_TICK_S": "0.5",
    "CANFIELD_ARENA_GATHER_S": "1",
    "CANFIELD_ARENA_SEAT_WAIT_S": "2",
}
SIZES = [(1920, 1080), (1366, 768), (390, 844), (360, 740)]
BOTS = ["Ana", "Ivo", "Mara", "Luka", "Petra"]


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


class Bots:
    """Bots racing an arena from a thread of their own: the first makes it and
    ends it when told."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.code: queue.Queue[str] = queue.Queue()
        self.end = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _run(self) -> None:
        clients = [await RaceClient(self.url).connect() for _ in BOTS]
        for client in clients:
            await client.identify(None)
        made = await clients[0].arena_create("Petak", BOTS[0], minutes=15)
        self.code.put(made.arena.code)
        tasks = [
            asyncio.create_task(
                race_arena(
                    c, made.arena.code, name, Strategy("normal", random.Random(n)), pace_s=0.05
                )
            )
            for n, (c, name) in enumerate(zip(clients, BOTS, strict=True))
        ]
        while not self.end.is_set():
            await asyncio.sleep(0.2)
        await clients[0].arena_end()
        await asyncio.wait(tasks, timeout=60)
        for client in clients:
            await client.close()


def rival(url: str, code: str) -> threading.Thread:
    """A bot that races one heat of arena ``code`` (a heat is never of one), gives
    up at its start and goes: the page then waits alone, on its arena page."""

    async def run() -> None:
        client = await RaceClient(url).connect()
        try:
            await client.identify(None)
            await client.arena_join(code, "Ivo")
            await client.wait_started(60)
            await client.give_up()
        finally:
            await client.close()

    thread = threading.Thread(target=lambda: asyncio.run(run()), daemon=True)
    thread.start()
    return thread


def drawn_not_emoji(page: Page) -> None:
    """Every mark of the page is drawn (a streak's flame an SVG icon with its words), none
    an emoji: a system without a colour-emoji font shows an emoji as an empty box."""
    text = page.evaluate("document.body.innerText")
    assert not re.search("[\U0001f000-\U0001faff]", text), text
    flames = page.eval_on_selector_all(
        "#arena-table .flame",
        """els => els.map(el => [el.getAttribute('aria-label'),
            el.querySelector('svg').getBoundingClientRect().width, el.outerHTML])""",
    )
    for label, width, html in flames:
        assert width >= 10, html
        assert re.match(r"^(\d+ podiums in a row|Postolja zaredom: \d+)", label), label


def test_a_trophys_medal_is_drawn_and_worded_in_both_languages(module_page: Page) -> None:
    said = module_page.evaluate(
        """async () => {
            await import('/js/chrome.js');
            const { setLang } = await import('/js/i18n.js');
            const { medal } = await import('/js/arena-words.js');
            const out = {};
            for (const lang of ['en', 'hr']) {
                setLang(lang);
                out[lang] = [1, 2, 3].map((place) => {
                    const el = medal(place);
                    return [el.className, el.getAttribute('aria-label'), el.textContent,
                            el.querySelector('use').getAttribute('href')];
                });
            }
            return out;
        }"""
    )
    assert said["en"][0] == ["medal medal-1", "Trophy: place 1 in a public arena", "", "#i-medal"]
    assert said["hr"][2] == ["medal medal-3", "Trofej: 3. mjesto u javnoj areni", "", "#i-medal"]


def test_an_arena_is_made_raced_and_back_on_its_page(
    browser: Browser, server_factory: ServerFactory
) -> None:
    server: ServerProcess = server_factory(env=ENV)
    page = new_page(browser, viewport={"width": 1366, "height": 768})
    page.goto(server.http_url + "/a?lang=en")
    page.fill("#create-player", "Vesna")
    page.fill("#create-name", "Friday")
    page.click("#arena-create-form button[type=submit]")
    page.wait_for_url("**/a/*")
    code = page.url.rsplit("/", 1)[1]
    expect(page.locator("#arena-name")).to_have_text("Friday")
    expect(page.locator("#arena-me")).to_contain_text("You")
    # a rival comes: a heat of two; the page races it on the race page
    ivo = rival(server.ws_url, code)
    page.wait_for_url(f"**/r/*?arena={code}", timeout=30_000)
    ivo.join(timeout=60)
    expect(page.get_by_role("cell", name="playing").first).to_be_visible(timeout=30_000)
    give_up(page)
    page.wait_for_url(f"**/a/{code}", timeout=30_000)
    expect(page.locator("#arena-me")).to_contain_text(re.compile(r"[1-5] points?"), timeout=30_000)
    expect(page.locator("#arena-table tbody tr.mine")).to_contain_text("Vesna")
    shoot(page, "raced-1366x768-en")
    # the host ends it; its place is in the racer's history on /me
    page.locator("#arena-end").click()
    page.locator("#arena-end").click()  # sure
    expect(page.locator("#arena-podium")).to_be_visible(timeout=30_000)
    for lang, words in (("en", r"place [12] of 2"), ("hr", r"[12]\. mjesto od 2")):
        page.goto(f"{server.http_url}/me?lang={lang}")
        expect(page.locator("#me-arenas li")).to_contain_text(["Friday"])
        expect(page.locator("#me-arenas li").first).to_contain_text(re.compile(words))
        shoot(page, f"me-1366x768-{lang}")
    page.close()


def test_the_arena_page_during_and_after_an_arena(
    browser: Browser, server_factory: ServerFactory
) -> None:
    server: ServerProcess = server_factory(env=ENV)
    bots = Bots(server.ws_url)
    bots.thread.start()
    code = bots.code.get(timeout=60)
    try:
        for lang in ("en", "hr"):
            for width, height in SIZES:
                page = new_page(browser, viewport={"width": width, "height": height})
                page.goto(f"{server.http_url}/a/{code}?lang={lang}")
                expect(page.locator("#arena-table tbody tr")).to_have_count(
                    len(BOTS), timeout=30_000
                )
                expect(page.locator("#arena-heats li").first).to_be_visible(timeout=30_000)
                expect(page.locator("#arena-join")).to_be_visible()
                # nothing spills past the window's width
                assert page.evaluate("() => document.documentElement.scrollWidth") <= width
                if width == 1366:
                    page.locator("#arena-howto summary").click()
                    expect(page.locator("#arena-howto p").first).to_be_visible()
                shoot(page, f"during-{width}x{height}-{lang}")
                page.close()
        # a heat is one click from its spectator view
        page = new_page(browser, viewport={"width": 1366, "height": 768})
        page.goto(f"{server.http_url}/a/{code}?lang=en")
        page.locator("#arena-heats a").first.click()
        page.wait_for_url("**/r/*?watch")
        page.close()
        bots.end.set()
        for lang in ("en", "hr"):
            for width, height in SIZES:
                page = new_page(browser, viewport={"width": width, "height": height})
                page.goto(f"{server.http_url}/a/{code}?lang={lang}")
                expect(page.locator("#arena-podium")).to_be_visible(timeout=60_000)
                expect(page.locator("#podium li")).to_have_count(3)
                expect(page.locator("#arena-join")).to_be_hidden()
                drawn_not_emoji(page)
                shoot(page, f"over-{width}x{height}-{lang}")
                page.close()
    finally:
        bots.end.set()
        bots.thread.join(timeout=90)
