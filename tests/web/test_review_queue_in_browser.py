"""The review queue in a browser, on a real server: a room race's result and a
daily result, flagged through the ``IntegrityStore`` port in the server's Redis
(as the signals' computation records them), show "under review" on the replay
page the other racer opens and apart from the ranked rows of the daily
standing, in English and Croatian; the operator console lists both with their
evidence (the think-time chart, the solver agreement, the network, the
replay) and confirms one after its confirmation step, clears the other.

Screenshots at 1366x768 and 390x844 in both languages go to ``$REVIEW_SHOTS``
when it is set.
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import msgspec
import pytest
from canfield_bench.processes import ServerProcess
from canfield_server.room.ports import ReviewCase, daily_result, room_result
from canfield_server.storage.integrity_store import RedisIntegrityStore
from playwright.sync_api import Browser, Page, expect
from redis.asyncio import Redis
from websockets.sync.client import connect

from tests.conftest import ServerFactory
from tests.server.helpers import SIGNALS, flag
from tests.web.pages import (
    WireRacer,
    confirm_box,
    create_room,
    new_page,
    pick_language,
    race_button,
    wire_race,
)

TOKEN = "review-token-5b0e7c21"
DATE = "2026-03-14"
SIZES = [(1366, 768), (390, 844)]
DEAL = "CF1-D3-AAAAACL"


@pytest.fixture
def review_server(server_factory: ServerFactory) -> ServerProcess:
    return server_factory(
        env={
            "CANFIELD_ADMIN_TOKEN": TOKEN,
            "CANFIELD_COUNTDOWN_S": "0.3",
            "CANFIELD_DAILY_DATE": DATE,
        }
    )


def flag_all(server: ServerProcess, *cases: ReviewCase) -> None:
    async def go() -> None:
        redis = Redis.from_url(server.redis_url)
        store = RedisIntegrityStore(redis, retention_days=1)
        try:
            for case in cases:
                await flag(redis, store, case)
        finally:
            await redis.aclose()

    # Playwright runs an event loop in this thread: the port's in another
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, go()).result()


def quick_case(room: str, finished: dict[str, Any]) -> ReviewCase:
    """Quick's result in the room's first race (``finished``), flagged."""
    quick = next(r for r in finished["standings"] if r["name"] == "Quick")
    return ReviewCase(
        result=room_result(room, 1, quick["id"]),
        kind="room",
        at=1_773_500_000_000,
        draw=3,
        room=room,
        race_no=1,
        member_id=quick["id"],
        name="Quick",
        replay=finished["replay"],
        signals=SIGNALS,
        reasons=["think times as even as a metronome (spread 0.02)"],
    )


def flagged_room_race(server: ServerProcess) -> tuple[str, ReviewCase]:
    """Honest and Quick race a room; Quick's result is flagged. The replay's link."""
    with wire_race(server.ws_url, ["Honest", "Quick"], DEAL) as (room, racers):
        for racer in racers:
            racer.act(type="give_up")
        finished = racers[0].next_of("finished")
    case = msgspec.structs.replace(
        quick_case(room, finished), network="127.0.0.0/24", shares=["5f0c2a9e", "0b1c2d3e"]
    )
    return finished["replay"], case


def flagged_daily(server: ServerProcess) -> ReviewCase:
    """Three play today's daily and give up; Dora's result is flagged."""
    ids = {}
    for name in ("Ana", "Dora", "Ivo"):
        with connect(server.ws_url, open_timeout=10) as socket:
            racer = WireRacer(socket)
            racer.send(type="identify")
            racer.next_of("identity")
            racer.send(type="daily", name=name, draw=3)
            racer.next_of("daily_started")
            racer.act(type="give_up")
            ids[name] = racer.next_of("daily_finished")["row"]["id"]
    return ReviewCase(
        result=daily_result(DATE, 3, ids["Dora"]),
        kind="daily",
        at=1_773_500_100_000,
        draw=3,
        date=DATE,
        identity="d" * 64,
        public_id=ids["Dora"],
        member_id=ids["Dora"],
        name="Dora",
        network="127.0.0.0/24",
        signals=SIGNALS,
        reasons=["every checked move keeps a solver-winning line"],
    )


def fits(page: Page) -> bool:
    return bool(page.evaluate("document.scrollingElement.scrollWidth <= innerWidth + 0.5"))


def shoot(page: Page, name: str) -> None:
    out = os.environ.get("REVIEW_SHOTS")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(out) / f"{name}.png"), full_page=True)


def test_under_review_on_the_pages_and_decided_in_the_console(
    browser: Browser, review_server: ServerProcess
) -> None:
    base = review_server.http_url
    replay, room_case = flagged_room_race(review_server)
    daily_case = flagged_daily(review_server)
    flag_all(review_server, room_case, daily_case)

    for width, height in SIZES:
        for lang, under_review, aside in (
            ("en", "under review", "Not ranked"),
            ("hr", "u provjeri", "Bez plasmana"),
        ):
            size = f"{width}x{height}-{lang}"
            # the replay the other racer opens says the result is under review
            page = new_page(browser, viewport={"width": width, "height": height})
            page.goto(base + replay.replace("/replay/", "/replays/"))
            pick_language(page, lang)
            expect(page.locator("#rp-flags")).to_be_visible()
            expect(page.locator("#rp-flags li")).to_have_count(1)
            expect(page.locator("#rp-flags")).to_contain_text("Quick")
            expect(page.locator("#rp-flags")).to_contain_text(under_review)
            assert fits(page), size
            shoot(page, f"replay-{size}")

            # the daily standing ranks the others 1 and 2 and sets Dora apart
            page.goto(base + "/daily")
            expect(page.locator("#standing-aside")).to_be_visible()
            expect(page.locator("#standing-aside h3")).to_have_text(aside)
            expect(page.locator("#standing-aside li")).to_contain_text(f"Dora {under_review}")
            expect(page.locator("#standing")).not_to_contain_text("Dora")
            expect(page.locator("#standing")).to_contain_text("Ana")
            assert fits(page), size
            shoot(page, f"daily-{size}")
            page.context.close()

    console = new_page(browser)
    console.goto(base + "/admin")
    console.fill("#adm-token", TOKEN)
    console.click("#adm-login button[type=submit]")
    cases = console.locator(".adm-case")
    expect(cases).to_have_count(2)
    room_card = console.locator(".adm-case", has_text="Quick")
    expect(room_card).to_contain_text("metronome")
    expect(room_card).to_contain_text("100 % of 4 checked moves kept a winning line")
    expect(room_card).to_contain_text("127.0.0.0/24")
    expect(room_card).to_contain_text("5f0c2a9e, 0b1c2d3e")
    expect(room_card.locator("svg.adm-think rect")).to_have_count(len(SIGNALS.think_ms))
    expect(room_card.get_by_role("link", name="Open the replay")).to_have_attribute(
        "href", replay.replace("/replay/", "/replays/")
    )
    for width, height in SIZES:
        console.set_viewport_size({"width": width, "height": height})
        for lang in ("en", "hr"):
            pick_language(console, lang)
            expect(console.locator("#adm-review-panel h2").first).to_have_text(
                "Review queue" if lang == "en" else "Red za provjeru"
            )
            assert fits(console), (width, lang)
            shoot(console, f"console-{width}x{height}-{lang}")
    pick_language(console, "en")
    console.set_viewport_size({"width": 1366, "height": 768})

    # confirm, after its confirmation step: a "no" changes nothing
    daily_card = console.locator(".adm-case", has_text="Dora")
    daily_card.get_by_role("button", name="Confirm").click()
    expect(confirm_box(console)).to_contain_text("cannot be undone")
    console.click("#confirm-no")
    expect(cases).to_have_count(2)
    daily_card.get_by_role("button", name="Confirm").click()
    console.click("#confirm-yes")
    expect(cases).to_have_count(1)
    expect(console.locator("#adm-decided")).to_contain_text("Dora")
    expect(console.locator("#adm-decided")).to_contain_text("confirmed")
    # the confirmed daily result leaves the standing
    page = new_page(browser)
    page.goto(base + "/daily")
    expect(page.locator("#standing")).to_contain_text("Ana")
    expect(page.locator("#standing-aside")).to_be_hidden()
    expect(page.locator("#standing")).not_to_contain_text("Dora")

    # clear: the room race's result stands again
    room_card.get_by_role("button", name="Clear").click()
    console.click("#confirm-yes")
    expect(console.locator(".adm-case")).to_have_count(0)
    expect(console.locator("#adm-reviews")).to_contain_text("No flagged result waits")
    page.goto(base + replay.replace("/replay/", "/replays/"))
    expect(page.locator("#replay-player option")).to_have_count(2)
    expect(page.locator("#rp-flags")).to_be_hidden()


def test_the_results_screen_says_under_review_when_the_flag_comes(
    browser: Browser, review_server: ServerProcess
) -> None:
    """The racer's results are on screen when the other's result is flagged (its
    signals are computed after the race): the screen says so a few seconds later."""
    base = review_server.http_url
    page = new_page(browser)
    room = create_room(page, base, "Honest")
    with connect(review_server.ws_url, open_timeout=10) as socket:
        quick = WireRacer(socket)
        quick.enter("Quick", room)
        quick.send(type="ready", ready=True)
        expect(page.locator("#players .ready-mark.on")).to_have_count(1)
        page.click("#start")
        quick.next_of("started")
        quick.act(type="give_up")
        race_button(page, "#give-up").click()
        page.click("#give-up")
        finished = quick.next_of("finished")
    expect(page.locator("#view-results")).to_be_visible()
    expect(page.locator("#results-flags")).to_be_hidden()
    case = quick_case(room, finished)
    flag_all(review_server, case)
    expect(page.locator("#results-flags")).to_contain_text(
        "Quick: this result is under review", timeout=90_000
    )
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        for lang, words in (("en", "under review"), ("hr", "u provjeri")):
            pick_language(page, lang)
            expect(page.locator("#results-flags")).to_contain_text(words)
            assert fits(page), (width, lang)
            shoot(page, f"results-{width}x{height}-{lang}")
