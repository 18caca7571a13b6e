"""Watching with no name, in a real browser on a real server: a live race in the
home page's list opens that race to watch (no Join form, no name typed), and a
TV that opens a room's link with ``?tv=1`` watches at once as "TV" ("TV 2" when
one is there), without the site's header, in big type, with the room's code and
a QR code of its link in a corner: beside the lobby's players, then beside the
race's clock. Its seat is its own (a racer's seat in the same browser stays
theirs), a reload keeps it a TV in the same seat, and the Big screen button
turns TV mode off. A TV's link may say its language (``&lang=hr``).
"""

from __future__ import annotations

import re

from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, expect
from websockets.sync.client import connect

from tests.conftest import ServerFactory
from tests.web.pages import WireRacer, new_page

#: the QR code's picture came and was drawn
QR_SHOWN = "img => img.complete && img.naturalWidth > 0"


def font_px(page: Page, selector: str) -> float:
    return float(
        page.locator(selector).first.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
    )


def spectators(page: Page) -> list[str]:
    return page.locator("#spectators .who").all_inner_texts()


def test_a_live_race_in_the_list_opens_it_to_watch_with_no_name(
    browser: Browser, server_factory: ServerFactory
) -> None:
    server = server_factory(env={"CANFIELD_COUNTDOWN_S": "0.3"})
    with connect(server.ws_url) as one, connect(server.ws_url) as two:
        ana, bob = WireRacer(one), WireRacer(two)
        room = ana.race_now("Ana")
        assert bob.race_now("Bob") == room
        ana.next_of("started")
        ana.act(type="move", move="S")

        home = new_page(browser)
        home.goto(server.http_url + "/")
        expect(home.locator("#name")).to_have_value("")  # nobody typed a name here
        race = home.locator("#live-list a.live-race")
        expect(race).to_contain_text("Ana, Bob")
        race.click()
        # the race, to watch: not the Join form
        expect(home.locator("#view-race")).to_be_visible()
        expect(home.locator("#view-home")).to_be_hidden()
        expect(home.locator("body.spectator")).to_have_count(1)
        expect(home.locator("#race-lb .lane")).to_have_count(2)
        expect(home).to_have_url(re.compile(rf"/r/{room}$"))


def test_a_tv_watches_a_room_with_no_name_and_shows_how_to_join(
    browser: Browser, server: ServerProcess
) -> None:
    base = server.http_url
    with connect(server.ws_url) as socket:
        host = WireRacer(socket)
        room = host.enter("Ana")

        # someone in this browser races in the room: the TV beside them gets a seat of its own
        tv = new_page(browser, viewport={"width": 1920, "height": 1080})
        tv.goto(f"{base}/r/{room}")
        tv.fill("#name", "Bob")
        tv.click("#join")
        expect(tv.locator("#players")).to_contain_text("Bob")
        racer = tv.context.new_page()

        tv.goto(f"{base}/r/{room}?tv=1")
        expect(tv.locator("#view-lobby")).to_be_visible()
        expect(tv.locator("#spectators li", has_text="TV")).to_contain_text("you")
        expect(tv.locator("#players")).to_contain_text("Bob")  # Bob keeps his seat
        expect(tv.locator("header.top")).to_be_hidden()  # no site header on a TV
        join = tv.locator("#view-lobby #tv-join")
        expect(join).to_be_visible()
        expect(join.locator(".tv-code")).to_have_text(room)
        expect(join.locator(".tv-link")).to_have_text(f"{base.split('//')[1]}/r/{room}")
        qr = join.locator("img.tv-qr")
        expect(qr).to_have_attribute("src", f"/r/{room}/qr.svg")
        tv.wait_for_function(QR_SHOWN, arg=qr.element_handle())
        box = qr.bounding_box()
        assert box and box["width"] >= 200, box  # big enough to scan from across a room
        # the host's settings are no business of a TV
        expect(tv.locator("#room-settings")).to_be_hidden()
        expect(tv.locator("#ready")).to_be_hidden()

        # Bob's own page is still Bob, racing
        racer.goto(f"{base}/r/{room}")
        expect(racer.locator("#view-lobby")).to_be_visible()
        expect(racer.locator("#ready")).to_be_visible()
        expect(racer.locator("#players li", has_text="Bob")).to_contain_text("you")

        # a second TV is "TV 2"
        other = new_page(browser)
        other.goto(f"{base}/r/{room}?tv=1")
        expect(other.locator("#spectators li", has_text="TV 2")).to_contain_text("you")

        # the race: the join box beside the clock, big type
        host.send(type="start", force=True)
        expect(tv.locator("#view-race")).to_be_visible()
        head = tv.locator("#view-race .race-head #tv-join")
        expect(head).to_be_visible()
        expect(head.locator(".tv-code")).to_have_text(room)
        expect(tv.locator("#race-lb .lane")).to_have_count(2)
        assert font_px(tv, "#race-lb .lane .name") >= 36  # a name read from 3 metres
        assert font_px(tv, "#race-clock") >= 40
        assert font_px(tv, "#race-lb .leaderboard td") >= 24
        assert font_px(tv, "#tv-join .tv-code") >= 40
        expect(head.locator(".tv-label")).to_have_text("Join the race")

        # a reload (in Croatian: a TV has no header to pick it in, its link does):
        # still a TV, in the same seat
        tv.goto(f"{base}/r/{room}?tv=1&lang=hr")
        expect(tv.locator("#view-race .race-head #tv-join .tv-label")).to_have_text(
            "Pridruži se utrci"
        )
        expect(tv).to_have_url(re.compile(r"\?tv=1$"))
        host.act(type="move", move="S")  # a leaderboard, and a room message's members
        expect(tv.locator("#race-lb .lane")).to_have_count(2)

        # the Big screen button turns TV mode off: the site's header is back
        toggle = tv.locator("#big-screen")
        expect(toggle).to_have_attribute("aria-pressed", "true")
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "false")
        expect(tv.locator("header.top")).to_be_visible()
        expect(tv.locator("#tv-join")).to_be_hidden()
        expect(tv).to_have_url(re.compile(rf"/r/{room}$"))
        host.send(type="end_race")
        expect(tv.locator("#view-results")).to_be_visible()
        room_now = host.next_of("room")
        while room_now["phase"] != "finished":
            room_now = host.next_of("room")
        names = sorted(m["name"] for m in room_now["members"])
        assert names == ["Ana", "Bob", "TV", "TV 2"], names  # no seat taken twice
