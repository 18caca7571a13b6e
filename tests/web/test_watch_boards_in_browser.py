"""The racers' boards on a watcher's screen, in a real browser on a real server.

The host ticks "Watchers see the boards" in the lobby (its hint says plainly
that a watcher then sees every racer's cards); three racers race and a TV
watches: it shows every racer's live board, the leader's first and large, and
a racer's board follows their moves. In a room without the setting, and in a
public race, the same watcher sees lanes and a chart and no card at all. The
screen is shot at 1920x1080, 1366x768, 390x844 and 360x740, in English and
Croatian (``/tmp/shots-watch``).
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, expect
from websockets.sync.client import connect

from tests.conftest import ServerFactory
from tests.web.pages import WireRacer, create_room, new_page, pick_language, record_frames

DEAL = "CF1-D3-AAADKOH"
SIZES = [(1920, 1080), (1366, 768), (390, 844), (360, 740)]
SHOTS = Path("/tmp/shots-watch")


def cell(page: Page, racer_id: str) -> str:
    return f'#watch-boards .wb-cell[data-id="{racer_id}"]'


def no_cards(page: Page, frames: list[dict[str, object]]) -> None:
    """Lanes and the chart, never a card: none drawn, none sent."""
    expect(page.locator("#race-lb .lane")).to_have_count(3)
    expect(page.locator("#race-watch .chart-panel")).to_be_visible()
    assert page.locator("#watch-boards .card").count() == 0
    expect(page.locator("#watch-boards")).to_be_hidden()
    assert not [f for f in frames if f["type"] == "boards"]


def test_watchers_see_the_boards_only_where_the_host_shows_them(
    browser: Browser, server_factory: ServerFactory
) -> None:
    server: ServerProcess = server_factory(
        env={"CANFIELD_COUNTDOWN_S": "0.3", "CANFIELD_RATE_PER_S": "1000"}
    )
    base = server.http_url
    ana = new_page(browser)
    room = create_room(ana, base, "Ana")
    box = ana.locator('#room-settings input[name="spectator_boards"]')
    expect(box).not_to_be_checked()  # off unless the host says so
    hint = ana.locator("#spectator_boards-hint")
    expect(hint).to_contain_text("sees every racer's cards")
    pick_language(ana, "hr")
    expect(hint).to_contain_text("vidi karte svih natjecatelja")
    pick_language(ana, "en")
    box.check()
    ana.check("#room-settings input[name=deal_kind][value=code]")
    ana.fill("#room-settings input[name=deal_code]", DEAL)
    ana.press("#room-settings input[name=deal_code]", "Enter")

    with connect(server.ws_url) as one, connect(server.ws_url) as two:
        bob, cy = WireRacer(one), WireRacer(two)
        bob.enter("Bob", room)
        cy.enter("Cyrus the Great", room)
        tv = new_page(browser, viewport={"width": 1920, "height": 1080})
        frames = record_frames(tv)
        tv.goto(f"{base}/r/{room}?tv=1")
        expect(tv.locator("#spectators")).to_contain_text("TV")
        expect(box).to_be_checked()
        for racer in (bob, cy):
            racer.send(type="ready")
        ana.click("#ready")
        ana.click("#start")
        expect(tv.locator("#view-race")).to_be_visible()
        expect(tv.locator("#watch-boards .wb-cell")).to_have_count(3)
        expect(tv.locator("#watch-boards .wb-cell.lead")).to_have_count(1)

        # Bob turns the stock: his board on the TV follows
        bob.next_of("started")
        for _ in range(3):
            ack = bob.act(type="move", move="S")
        bob_id = next(
            r["id"]
            for f in frames
            if f["type"] == "leaderboard"
            for r in f["rows"]
            if r["name"] == "Bob"
        )
        top = ack["board"]["waste"]["fan"][-1]
        bob_cell = tv.locator(cell(tv, bob_id))
        expect(bob_cell.locator(f'.card[data-card="{top}"]')).to_have_count(1)
        expect(bob_cell.locator(".stock .count")).to_have_text(str(ack["board"]["stock"]["count"]))
        expect(bob_cell.locator(".wb-head .name")).to_have_text("Bob")
        # every board the TV got is a racer's own view: the stock face down, counted only
        sent = [b["board"] for f in frames if f["type"] == "boards" for b in f["boards"]]
        assert sent and all(set(b["stock"]) == {"count"} for b in sent)
        assert all(set(b["reserve"]) == {"top", "count"} for b in sent)

        for lang in ("en", "hr"):
            tv.goto(f"{base}/r/{room}?tv=1&lang={lang}")
            expect(tv.locator("#watch-boards .wb-cell")).to_have_count(3)
            for width, height in SIZES:
                tv.set_viewport_size({"width": width, "height": height})
                tv.wait_for_timeout(300)
                size = tv.evaluate("() => [innerWidth, document.documentElement.scrollWidth]")
                assert size[1] <= size[0], (lang, width, size)
                SHOTS.mkdir(parents=True, exist_ok=True)
                tv.screenshot(path=str(SHOTS / f"boards-{lang}-{width}.png"))


def test_no_boards_without_the_setting_nor_in_a_public_race(
    browser: Browser, server_factory: ServerFactory
) -> None:
    server = server_factory(env={"CANFIELD_COUNTDOWN_S": "0.3"})
    base = server.http_url
    with ExitStack() as stack:
        ana, bob, cy = (WireRacer(stack.enter_context(connect(server.ws_url))) for _ in range(3))
        # a room that keeps its boards to its racers
        room = ana.enter("Ana")
        bob.enter("Bob", room)
        cy.enter("Cy", room)
        watcher = new_page(browser, viewport={"width": 1366, "height": 768})
        frames = record_frames(watcher)
        watcher.goto(f"{base}/r/{room}?tv=1")
        expect(watcher.locator("#spectators")).to_contain_text("TV")
        ana.send(type="start", force=True)
        ana.next_of("started")
        ana.act(type="move", move="S")
        expect(watcher.locator("#view-race")).to_be_visible()
        no_cards(watcher, frames)

        # a public race: lanes and the chart, whatever anyone asks
        for racer in (ana, bob, cy):
            racer.send(type="leave")
            racer.next_of("left")
            racer.seq = 0
        room = ana.race_now("Ana")
        assert bob.race_now("Bob") == room and cy.race_now("Cy") == room
        ana.next_of("started")
        ana.act(type="move", move="S")
        public = new_page(browser, viewport={"width": 1366, "height": 768})
        frames = record_frames(public)
        public.goto(f"{base}/r/{room}?tv=1")
        expect(public.locator("#view-race")).to_be_visible()
        ana.act(type="move", move="S")
        no_cards(public, frames)
