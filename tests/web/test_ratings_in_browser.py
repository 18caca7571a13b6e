"""The ladder page and the rating chart on /me, in a real browser against a real
server: ratings written through the rating store as public races would write
them, then read by the pages at a desktop and a phone size, in English and
Croatian."""

from __future__ import annotations

import asyncio
import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from canfield_bench.processes import ServerProcess
from canfield_protocol import MemberStatus, Row
from canfield_server.room.rating_races import rate_public_race
from canfield_server.storage.rating_store import RedisRatingStore
from playwright.sync_api import Browser, Page, expect
from redis.asyncio import Redis

from tests.web.pages import new_page, pick_language

SHOTS = Path("/tmp/shots-rating")
#: the rated races the browser's identity runs (the shipped minimum is 5)
RACES = 6


def row(member: str, rank: int) -> Row:
    return Row(
        rank=rank,
        id=member,
        name=member,
        score=0,
        on_foundations=10 - rank,
        moves=30,
        status=MemberStatus.GAVE_UP,
        time_ms=90_000,
    )


async def rate_races(redis_url: str, mine: str) -> None:
    """``RACES`` public races: "Ana" (the browser) wins most; "Ivo" joins late."""
    redis = Redis.from_url(redis_url)
    store = RedisRatingStore(redis, retention_days=1, max_points=200)
    identities = {"Ana": mine, "Bea": "hb", "Cvita": "hc", "Ivo": "hi"}
    try:
        for n in range(RACES):
            names = ["Ana", "Bea", "Cvita"] if n % 3 else ["Bea", "Ana", "Cvita"]
            names += ["Ivo"] if n >= RACES - 2 else []
            order = [row(name, place) for place, name in enumerate(names, start=1)]
            await rate_public_race(store, 3, order, identities, min_races=5, now_ms=n * 60_000)
    finally:
        await redis.aclose()


def identity_hash(page: Page) -> str:
    stored = page.evaluate("() => localStorage.getItem('cfr.identity')")
    return hashlib.sha256(json.loads(stored)["token"].encode()).hexdigest()


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_the_ladder_and_my_rating_chart(browser: Browser, server: ServerProcess) -> None:
    base = server.http_url
    page = new_page(browser, viewport={"width": 1366, "height": 768})
    page.goto(base + "/me")
    expect(page.locator("#me-rating")).to_contain_text("No rated races yet")
    page.wait_for_function("() => localStorage.getItem('cfr.identity')")
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, rate_races(server.redis_url, identity_hash(page))).result()

    page.reload()
    line = page.locator("#me-rating .rating-line[data-draw='3']")
    expect(line).to_contain_text(f"after {RACES} rated races")
    # on the ladder already (5 races), but six races leave the rating uncertain: "?"
    expect(line).not_to_contain_text("on the ladder after")
    expect(line).to_contain_text("? \u00b1")
    expect(line).to_contain_text("provisional: still uncertain")
    expect(page.locator("#me-rating svg.rating-chart circle.dot")).to_have_count(RACES)
    shoot(page, "me-1366-en")

    page.goto(base + "/ladder")
    rows = page.locator("#ladder tbody tr")
    # Ivo has two races: not on the ladder yet
    expect(rows).to_have_count(3)
    expect(rows.locator("td.c-name")).to_have_text(["Ana", "Bea", "Cvita"])
    expect(rows.first.locator("td.c-rating")).to_contain_text("? \u00b1")
    expect(page.locator("#ladder-lead")).to_contain_text("the order is a cautious rating")
    # the browser's own line: Ana's rating, as the ladder shows it
    ana = rows.first.locator("td.c-rating").inner_text()
    you = f"You: 3 cards: {ana} after {RACES} rated races \u00b7 provisional: still uncertain"
    expect(page.locator("#ladder-you")).to_have_text(you)
    expect(page.locator("#ladder-lead")).to_contain_text("after 5 rated races")
    expect(page.locator(".site-nav a[href='/ladder']")).to_have_attribute("aria-current", "page")
    shoot(page, "ladder-1366-en")
    page.click("#draw-tabs .tab[data-draw='1']")
    expect(page.locator("#ladder-empty")).to_be_visible()
    expect(rows).to_have_count(0)
    expect(page.locator("#ladder-you")).to_have_text("Race in public races to get a rating.")

    page.set_viewport_size({"width": 390, "height": 844})
    pick_language(page, "hr")
    page.click("#draw-tabs .tab[data-draw='3']")
    expect(rows).to_have_count(3)
    expect(page.locator("#ladder-lead")).to_contain_text("nakon 5 ocijenjenih utrka")
    expect(page.locator("#ladder thead")).to_contain_text("Rejting")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width  # the table fits a phone: no sideways scroll
    shoot(page, "ladder-390-hr")
    page.goto(base + "/me")
    expect(line).to_contain_text(f"nakon {RACES} ocijenjenih utrka")
    expect(page.locator("#me-rating svg.rating-chart circle.dot")).to_have_count(RACES)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width
    shoot(page, "me-390-hr")
