"""The small frictions a newcomer trips on, gone, in real browsers on a real
server, in English and Croatian: Enter in the name field, a deal code typed
without its choice picked first, a "Sure? Give up" that waits long enough for a
phone, the share sheet where the browser has one, links in the site's colours,
the Settings menu over a server notice, a way home from a room the operator
closed, and the console's tables on a phone.
"""

from __future__ import annotations

import json
import urllib.request

import pytest
from canfield import Game, Move
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, expect

from tests.conftest import ServerFactory
from tests.web.helpers import DEAL, start_race
from tests.web.pages import (
    PHONE,
    create_room,
    give_up,
    join_by_link,
    new_page,
    pick_language,
    race_button,
    room_of,
    set_deal,
    wait_board,
)

TOKEN = "frictions-token-5c1f0e77"
HR = {"locale": "hr-HR"}
#: the site's link colour on a panel (--felt-dark), and the browser's own blue
FELT_DARK = "rgb(18, 74, 48)"
BROWSER_BLUE = "rgb(0, 0, 238)"


@pytest.fixture
def console_server(server_factory: ServerFactory) -> ServerProcess:
    return server_factory(env={"CANFIELD_ADMIN_TOKEN": TOKEN, "CANFIELD_COUNTDOWN_S": "0.3"})


def operator(server: ServerProcess, path: str, body: dict[str, object]) -> None:
    """What the console's buttons send: a POST with the operator's token."""
    request = urllib.request.Request(
        f"{server.http_url}/admin/api/{path}",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=20) as reply:
        assert reply.status == 200


def focused_id(page: Page) -> str:
    return str(page.evaluate("document.activeElement?.id || ''"))


def test_enter_in_the_name_goes_on_and_a_typed_deal_code_picks_its_choice(
    browser: Browser, shared_server: ServerProcess
) -> None:
    base = shared_server.http_url
    ana = new_page(browser)
    ana.goto(base + "/")
    ana.fill("#name", "Ana")
    ana.press("#name", "Enter")
    # no code typed: on to "Race now", not an error about a code
    expect(ana.locator("#home-error")).to_have_text("")
    assert focused_id(ana) == "quick-3"
    ana.click("#create")
    ana.wait_for_url("**/r/*")
    room = ana.url.rsplit("/", 1)[1]

    # a code typed, then Enter back in the name: that room, joined
    bo = new_page(browser, **HR)
    bo.goto(base + "/")
    bo.fill("#room-code", room)
    bo.fill("#name", "Bo")
    bo.press("#name", "Enter")
    expect(bo.locator("#view-lobby")).to_be_visible()
    expect(bo.locator("#players .who")).to_have_text(["Ana", "Bo"])

    # the host types a deal code straight into its field: its choice is picked,
    # and Enter sets it (the guest is told the deal is a known one)
    form = ana.locator("#room-settings")
    code = form.locator("input[name=deal_code]")
    expect(code).to_be_enabled()
    code.click()
    expect(form.locator("input[name=deal_kind][value=code]")).to_be_checked()
    code.fill(DEAL)
    code.press("Enter")
    expect(bo.locator("#known-deal")).to_have_text("Poznato dijeljenje: izbor domaćina")
    expect(bo.locator("#room-settings input[name=deal_kind][value=code]")).to_be_checked()
    expect(bo.locator("#room-settings input[name=deal_code]")).to_be_disabled()  # host only


def test_watching_needs_no_name(browser: Browser, shared_server: ServerProcess) -> None:
    base = shared_server.http_url
    ana = new_page(browser)
    room = create_room(ana, base, "Ana")
    for options, guest in (({}, "Guest"), (HR, "Gost")):
        watcher = new_page(browser, **options)
        watcher.goto(f"{base}/r/{room}")  # the share link, nothing typed
        watcher.click("#watch")
        expect(watcher.locator("#view-lobby")).to_be_visible()
        expect(watcher.locator("#home-error")).to_have_text("")
        expect(ana.locator("#spectators .who", has_text=guest)).to_have_count(1)
    # a code typed on the home page, no name: watching too
    third = new_page(browser)
    third.goto(base + "/")
    third.fill("#room-code", room)
    third.click("#watch")
    expect(third.locator("#view-lobby")).to_be_visible()
    expect(ana.locator("#spectators .who")).to_have_text(["Guest", "Gost", "Guest 2"])


def test_sure_give_up_waits_long_enough_to_tap_again(
    browser: Browser, shared_server: ServerProcess
) -> None:
    ana, bo = room_of(browser, shared_server.http_url, ("Ana", PHONE), ("Bo", {**PHONE, **HR}))
    start_race(ana, [bo])
    for page, sure, done in (
        (ana, "Sure? Give up", "You gave up. Watch the others finish."),
        (bo, "Sigurno? Odustani", "Predaja. Gledaj kako drugi završavaju."),
    ):
        button = race_button(page, "#give-up")
        button.click()
        expect(button).to_have_text(sure)
        page.wait_for_timeout(4000)  # a thumb's time to find it again; nothing to await
        expect(button).to_have_text(sure)
        button.click()
        expect(page.locator("#race-note")).to_have_text(done)


def test_a_draw_3_waste_shows_its_top_three_on_a_phone(
    browser: Browser, shared_server: ServerProcess
) -> None:
    ana, bo = room_of(browser, shared_server.http_url, ("Ana", PHONE), ("Bo", {**PHONE, **HR}))
    set_deal(ana, DEAL)
    start_race(ana, [bo])
    game = Game.deal(DEAL)
    for _ in range(12):  # the twelfth draw turns the stock's last card alone
        game.push(Move.parse("S"))
    waste = game.view()["waste"]
    assert len(waste["fan"]) == 1 and len(waste["under"]) == 2
    for page, label in ((ana, "Waste, 34 cards"), (bo, "Otpad, karata: 34")):
        for _ in range(12):
            before = page.locator("#board .stock .count").inner_text()
            page.click("#board .stock")
            expect(page.locator("#board .stock .count")).not_to_have_text(before)
        fanned = page.locator("#board .waste .card.fanned")
        # the one turned, and the two seen beneath it: the next plays are in sight
        expect(fanned).to_have_count(3)
        assert [c.get_attribute("data-card") for c in fanned.all()] == [
            *waste["under"],
            *waste["fan"],
        ]
        page.wait_for_function("() => document.getAnimations().length === 0")  # cards landed
        lefts = [c.bounding_box()["x"] for c in fanned.all()]  # type: ignore[index]
        assert lefts[0] < lefts[1] < lefts[2], lefts
        expect(page.locator("#board .waste")).to_have_attribute("aria-label", label)


def test_the_share_sheet_where_the_browser_has_one_and_copy_everywhere(
    browser: Browser, shared_server: ServerProcess
) -> None:
    base = shared_server.http_url
    desk = new_page(browser)
    create_room(desk, base, "Ana")
    expect(desk.locator("#copy-link")).to_be_visible()
    expect(desk.locator("#share-room")).to_be_hidden()  # this Chromium has no share sheet

    phone = new_page(browser, **PHONE, **HR)
    # a phone's share sheet, as the page sees it: what it is handed is kept
    phone.add_init_script("navigator.share = async (data) => { window.sharedData = data; };")
    room = desk.url.rsplit("/", 1)[1]
    join_by_link(phone, base, room, "Bo")
    expect(phone.locator("#copy-link")).to_have_text("Kopiraj")
    share = phone.locator("#share-room")
    expect(share).to_have_text("Podijeli")
    share.click()
    phone.wait_for_function("() => window.sharedData !== undefined")
    shared = phone.evaluate("window.sharedData")
    assert shared["url"] == f"{base}/r/{room}"
    assert room in shared["text"] and shared["text"].startswith("Utrkuj se sa mnom")


def test_the_menu_opens_over_a_notice_and_a_closed_room_has_a_way_home(
    browser: Browser, console_server: ServerProcess
) -> None:
    base = console_server.http_url
    ana, bo = room_of(browser, base, ("Ana", PHONE), ("Bo", HR))
    operator(console_server, "notice", {"text": "Restart at 22:00", "seconds": 600})
    for page in (ana, bo):
        expect(page.locator(".banner.notice")).to_contain_text("Restart at 22:00")
        page.click("#settings summary")
        first = page.locator("#settings .menu-body label").first
        expect(first).to_be_visible()
        box = first.bounding_box()
        assert box
        # the first setting is what a tap there reaches, not the banner
        hit = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y)?.closest('#settings') !== null",
            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        assert hit, "the notice covers the Settings menu"
        page.keyboard.press("Escape")

    start_race(ana, [bo])
    for page in (ana, bo):
        give_up(page)
    for page in (ana, bo):
        page.wait_for_selector("#view-results:not([hidden])")
    operator(console_server, f"rooms/{ana.url.rsplit('/', 1)[1]}/close", {})
    for page, said, leave in (
        (ana, "The server's operator closed this room.", "Leave"),
        (bo, "Ova je soba zatvorena odlukom operatera poslužitelja.", "Napusti"),
    ):
        expect(page.locator(".banner.notice")).to_contain_text(said)
        expect(page.locator("#winner-call")).to_be_visible()  # the results stay
        expect(page.locator("#race-again")).to_be_hidden()
        button = page.locator("#leave-results")
        expect(button).to_have_text(leave)
        button.click()
        expect(page.locator("#view-home")).to_be_visible()
        assert page.url == base + "/"


def test_links_in_the_sites_colours_and_the_console_fits_a_phone(
    browser: Browser, console_server: ServerProcess
) -> None:
    base = console_server.http_url
    ana = new_page(browser)
    create_room(ana, base, "Ana")
    ana.click("#start")
    wait_board(ana)
    give_up(ana)
    ana.wait_for_selector("#view-results:not([hidden])")
    ana.goto(base + "/me")
    link = ana.locator("#me-history a.replay-link")
    expect(link).to_have_css("color", FELT_DARK)
    assert link.evaluate("a => getComputedStyle(a).color") != BROWSER_BLUE

    watcher = new_page(browser)
    code = create_room(watcher, base, "Cy")
    console = new_page(browser, viewport={"width": 360, "height": 740})
    console.goto(base + "/admin")
    console.fill("#adm-token", TOKEN)
    console.click("#adm-login button[type=submit]")
    for lang, close in (("en", "Close the room"), ("hr", "Zatvori sobu")):
        pick_language(console, lang)
        row = console.locator("#adm-rooms tbody tr", has_text=code)
        button = row.get_by_role("button", name=close)
        expect(button).to_be_visible()
        box = button.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360, box
        drain = console.locator("#adm-procs tbody tr").first.get_by_role("button")
        drain_box = drain.bounding_box()
        assert drain_box and drain_box["x"] + drain_box["width"] <= 360, drain_box
        assert console.evaluate("document.scrollingElement.scrollWidth <= innerWidth + 0.5")
