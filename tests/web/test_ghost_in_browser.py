"""Racing a replay in a real browser against a real server: "Race this" on a
replay page, on the results and on a history row; the ghosts' lanes marked and
moving by themselves; losing to and beating a ghost worded right, in English
and Croatian."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import msgspec
from canfield import Game
from canfield.solver import solve
from canfield_bench.processes import ServerProcess
from canfield_client.client import RaceClient
from canfield_protocol import Finished, RoomSettings
from canfield_server.storage.matchmaking import RedisMatchQueue
from playwright.sync_api import Browser, Page, expect
from redis.asyncio import Redis

from tests.web.helpers import DEAL, play_home, race_now
from tests.web.pages import give_up, new_page, pick_language, wait_board

SHOTS = Path("/tmp/shots-ghost")
#: the solver wins this Draw 3 deal in milliseconds
WINNABLE_DEAL = "CF1-D3-AAADKOH"


async def _record(ws_url: str, deal: str, lines: dict[str, tuple[list[str], float]]) -> Finished:
    """A finished race on ``deal``: each racer plays its line (``G`` gives up)
    with its pause before each action, all at once."""
    clients = [RaceClient(ws_url) for _ in lines]
    for client in clients:
        await client.connect()
    try:
        names = list(lines)
        await clients[0].create(names[0], RoomSettings(deal=deal))
        for client, name in zip(clients[1:], names[1:], strict=True):
            await client.join(clients[0].room or "", name)
        await clients[0].start(force=True)
        for client in clients:
            await client.wait_started(30)

        async def play(client: RaceClient, line: list[str], gap: float) -> None:
            for entry in line:
                await asyncio.sleep(gap)
                await (client.give_up() if entry == "G" else client.move(entry))

        await asyncio.gather(*(play(c, *lines[n]) for c, n in zip(clients, names, strict=True)))
        return await clients[0].wait_finished(30)
    finally:
        for client in clients:
            await client.close()


def record(ws_url: str, deal: str, lines: dict[str, tuple[list[str], float]]) -> Finished:
    with ThreadPoolExecutor(1) as aside:  # the page's event loop runs in this thread
        return aside.submit(asyncio.run, _record(ws_url, deal, lines)).result()


def lane(page: Page, name: str) -> Any:
    return page.locator(
        "#race-lb .lane", has=page.locator(".who", has_text=re.compile(f"^{name}$"))
    )


def test_a_replay_raced_from_its_page_loses_to_a_winning_ghost_whose_lane_moves(
    browser: Browser, shared_server: ServerProcess
) -> None:
    win = solve(WINNABLE_DEAL, 30).moves
    recorded = record(
        shared_server.ws_url,
        WINNABLE_DEAL,
        {"Ana": ([*win], 0.05), "Cy": (["S", "S", "S", "G"], 0.3)},
    )
    assert recorded.replay is not None
    rows = {r.name: r for r in recorded.standings}
    assert rows["Ana"].status == "won"
    page = new_page(browser)
    page.goto(shared_server.http_url + "/replays/" + recorded.replay.rsplit("/", 1)[-1])
    page.click("#rp-race-this")
    wait_board(page)
    expect(page.locator("#race-lb .lane")).to_have_count(3)
    expect(page.locator("#race-lb .lane.lane-ghost")).to_have_count(2)
    expect(lane(page, "Ana").locator(".ghost-tag")).to_have_text("ghost")
    expect(lane(page, "Guest").locator(".ghost-tag")).to_be_hidden()
    start = Game.deal(WINNABLE_DEAL).view()["on_foundations"]  # the base card
    # the ghost plays by itself: its lane fills as Ana's cards went home
    page.wait_for_function(
        """([start]) => [...document.querySelectorAll('#race-lb .lane.lane-ghost')]
             .some((l) => Number(l.querySelector('.count').textContent) > start)""",
        arg=[start],
    )
    expect(lane(page, "Ana")).to_have_attribute("data-status", "won", timeout=60_000)
    give_up(page)
    page.wait_for_selector("#view-results:not([hidden])")
    # the headline names the winner as the ghost it is, in both languages
    expect(page.locator("#winner-call .winner")).to_have_text("\u2605Ana's ghost wins!")
    pick_language(page, "hr")
    expect(page.locator("#winner-call .winner")).to_have_text("\u2605Ana (duh) pobjeđuje!")
    pick_language(page, "en")
    mine = start  # given up at once: the base card home, no more
    compare = page.locator("#ghost-compare li")
    expect(compare).to_have_count(2)
    ana_time = f"{rows['Ana'].time_ms // 60000}:{rows['Ana'].time_ms // 1000 % 60:02d}"
    expect(compare.nth(0)).to_have_text(
        f"Ana's ghost won in {ana_time}; you had {mine}/52 cards home."
    )
    cy = rows["Cy"].on_foundations
    expect(compare.nth(1)).to_have_text(
        f"Cy's ghost beat you on cards home: {cy} to {mine}."
        if cy > mine
        else f"You and Cy's ghost had the same cards home: {mine}."
    )
    # the standings mark each ghost's row in words; the live racer's row is not one
    table = page.locator("#final-lb tbody tr")
    expect(table.filter(has_text="Ana").locator(".ghost-tag")).to_have_text("ghost")
    expect(table.filter(has_text="Cy").locator(".ghost-tag")).to_have_text("ghost")
    expect(table.filter(has_text="Guest").locator(".ghost-tag")).to_be_hidden()
    expect(page.locator("#final-lb tbody tr.ghost-row")).to_have_count(2)
    expect(page.locator("#race-this")).to_be_hidden()  # Race again races the same ghosts
    expect(page.locator("#race-again")).to_be_visible()

    # the race is in this browser's history, with Race this on its row
    page.goto(shared_server.http_url + "/me")
    row_link = page.locator("#me-history a.race-this").first
    expect(row_link).to_have_text("Race this")
    row_link.click()
    wait_board(page)
    expect(page.locator("#race-lb .lane.lane-ghost")).to_have_count(1)  # the race's winner: Ana


def test_beating_a_ghost_in_croatian_then_racing_it_again(
    browser: Browser, shared_server: ServerProcess
) -> None:
    recorded = record(shared_server.ws_url, DEAL, {"Ana": (["S", "S", "G"], 0.2)})
    assert recorded.replay is not None
    ana = recorded.standings[0]
    page = new_page(browser, locale="hr-HR")
    page.goto(f"{shared_server.http_url}/?ghost={recorded.replay.rsplit('/', 1)[-1]}")
    wait_board(page)
    expect(lane(page, "Ana").locator(".ghost-tag")).to_have_text("duh")
    expect(lane(page, "Ana")).to_have_attribute("data-status", "gave_up")
    game = play_home(page)
    give_up(page)
    page.wait_for_selector("#view-results:not([hidden])")
    mine = game.view()["on_foundations"]
    assert mine > ana.on_foundations
    expect(page.locator("#ghost-compare li")).to_have_text(
        f"Više karata na temeljima nego duh Ana: {mine} prema {ana.on_foundations}."
    )
    expect(page.locator("#ghost-compare li")).to_have_class("won")
    ghost_row = page.locator("#final-lb tbody tr.ghost-row")
    expect(ghost_row).to_have_count(1)
    expect(ghost_row.locator(".ghost-tag")).to_have_text("duh")
    expect(ghost_row.locator("td.c-player")).to_contain_text("Ana")
    pick_language(page, "en")
    expect(ghost_row.locator(".ghost-tag")).to_have_text("ghost")
    pick_language(page, "hr")
    room = page.url
    page.click("#race-again")  # a new ghost race against the same ghost
    page.wait_for_function("(before) => location.href !== before", arg=room)
    wait_board(page)
    expect(page.locator("#race-lb .lane.lane-ghost")).to_have_count(1)


def test_time_against_a_ghost_is_worded_both_ways_in_both_languages(module_page: Page) -> None:
    said = module_page.evaluate(
        """async () => {
            const { setLang } = await import('/js/i18n.js');
            const { ghostComparisons } = await import('/js/ghosts.js');
            const members = [{ id: 'me' }, { id: 'a', ghost: true }];
            const row = (id, name, status, time_ms, on_foundations) =>
              ({ id, name, status, time_ms, on_foundations });
            const out = {};
            for (const lang of ['en', 'hr']) {
              setLang(lang);
              const say = (mine, ana) => ghostComparisons([mine, ana], members, 'me')[0].text;
              out[lang] = [
                say(row('me', 'Ivo', 'won', 178000, 52), row('a', 'Ana', 'won', 192000, 52)),
                say(row('me', 'Ivo', 'won', 196200, 52), row('a', 'Ana', 'won', 192000, 52)),
                say(row('me', 'Ivo', 'won', 100000, 52), row('a', 'Ana', 'gave_up', 90000, 20)),
                say(row('me', 'Ivo', 'gave_up', 100000, 12),
                    row('a', 'Ana', 'timed_out', 90000, 20)),
              ];
            }
            return out;
        }"""
    )
    assert said["en"] == [
        "You beat Ana's 3:12 by 14 s.",
        "Ana's 3:12 beat you by 4.2 s.",
        "You won; Ana's ghost had 20/52 cards home.",
        "Ana's ghost beat you on cards home: 20 to 12.",
    ]
    assert said["hr"] == [
        "Duh Ana (3:12) pobijeđen je za 14 s.",
        "Duh Ana (3:12) bio je brži za 4,2 s.",
        "Pobjeda! Duh Ana na temeljima: 20/52.",
        "Duh Ana ima više karata na temeljima: 20 prema 12.",
    ]


async def _keep_for_offers(redis_url: str, finished: Finished) -> None:
    """The recorded race's racer kept in the Draw 3 pool as a finished public race's
    would be (the in-process tests show a public race's end keeps it so)."""
    redis = Redis.from_url(redis_url)
    try:
        queue = RedisMatchQueue(redis, redis_url)
        row = finished.standings[0]
        assert finished.replay is not None
        entry = msgspec.json.encode(
            [
                finished.replay.rsplit("/", 1)[-1],
                row.id,
                row.name,
                row.status,
                row.time_ms,
                row.on_foundations,
            ]
        ).decode()
        await queue.keep_past("d3", entry, 1000, 10)
    finally:
        await redis.aclose()


def shoot_waiting(page: Page) -> None:
    """The waiting screen with its ghost offer, four sizes, both languages."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for lang in ("hr", "en"):
        pick_language(page, lang)
        for width, height in ((1920, 1080), (1366, 768), (390, 844), (360, 740)):
            page.set_viewport_size({"width": width, "height": height})
            page.screenshot(path=str(SHOTS / f"waiting-offer-{lang}-{width}x{height}.png"))
    page.set_viewport_size({"width": 1280, "height": 860})


def test_a_lone_racer_races_the_ghost_offered_on_the_waiting_screen(
    browser: Browser, server: ServerProcess
) -> None:
    recorded = record(server.ws_url, DEAL, {"Ana": (["S", "S", "G"], 0.2)})
    with ThreadPoolExecutor(1) as aside:
        aside.submit(asyncio.run, _keep_for_offers(server.redis_url, recorded)).result()
    page = new_page(browser)
    race_now(page, server.http_url, "Ivo")
    offer = page.locator("#ghost-offer")
    expect(offer).to_be_visible()
    cards = recorded.standings[0].on_foundations
    expect(page.locator("#ghost-offer-text")).to_have_text(
        f"Or race the ghost of a real past race: Ana, {cards}/52 cards home."
    )
    expect(page.locator("#race-ghost")).to_have_text("Race Ana's ghost")
    shoot_waiting(page)
    page.click("#race-ghost")
    wait_board(page)
    expect(page.locator("#race-lb .lane.lane-ghost")).to_have_count(1)
    expect(lane(page, "Ana").locator(".ghost-tag")).to_have_text("ghost")


def test_on_a_phone_the_newest_finish_shows_over_the_header_alone(
    browser: Browser, shared_server: ServerProcess
) -> None:
    """Two ghosts give up at the start: a phone shows the newest of the two
    finishes, on top of the site's header (not under it), and not the older one
    over the racer's own clock."""
    recorded = record(
        shared_server.ws_url, DEAL, {"Ana": (["G"], 0.3), "Cyrus the Great": (["S", "G"], 0.4)}
    )
    assert recorded.replay is not None
    ids = ",".join(r.id for r in recorded.standings)
    page = new_page(browser, viewport={"width": 360, "height": 740}, has_touch=True)
    page.goto(f"{shared_server.http_url}/?ghost={recorded.replay.rsplit('/', 1)[-1]}&racers={ids}")
    wait_board(page)
    news = page.locator("#race-news .news")
    expect(news).to_have_count(2)
    expect(news.first).to_be_visible()
    expect(news.nth(1)).to_be_hidden()
    on_top = page.evaluate(
        """() => {
            const box = document.querySelector('#race-news');
            box.style.pointerEvents = 'auto'; // hit-testable, to see what is drawn on top
            const item = box.querySelector('.news');
            item.style.pointerEvents = 'auto';
            const r = item.getBoundingClientRect();
            const el = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            box.style.pointerEvents = item.style.pointerEvents = '';
            return el && el.closest('#race-news') ? true : (el?.outerHTML || '').slice(0, 80);
        }"""
    )
    assert on_top is True, f"drawn over the news: {on_top}"
