"""The operator console in a browser: it asks for the token (a wrong one is told
so), then shows a room made on the race page, posts a notice the race page shows
as a banner, blocks and unblocks an address and a range, removes a member
(told it was the operator), and closes the room (its player is
told why) - at the four sizes, in English and Croatian, with the site's header
and no sideways scroll; last, drains the process, which exits.

Screenshots of each size and language go to ``$ADMIN_SHOTS`` when it is set.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, expect

from tests.conftest import ServerFactory
from tests.web.pages import create_room, join_by_link, new_page, pick_language

TOKEN = "console-token-8d2e61b0"
SIZES = [(1920, 1080), (1366, 768), (390, 844), (360, 740)]


@pytest.fixture
def console_server(server_factory: ServerFactory) -> ServerProcess:
    return server_factory(env={"CANFIELD_ADMIN_TOKEN": TOKEN, "CANFIELD_PRESENCE_S": "0.5"})


def fits(page: Page) -> bool:
    return bool(page.evaluate("document.scrollingElement.scrollWidth <= innerWidth + 0.5"))


def test_console_shows_the_server_and_acts(browser: Browser, console_server: ServerProcess) -> None:
    base = console_server.http_url
    player = new_page(browser)
    code = create_room(player, base, "Ann")
    guest = new_page(browser)
    join_by_link(guest, base, code, "Bo", watch=True)

    console = new_page(browser)
    console.goto(base + "/admin")
    expect(console.locator("header.top .brand")).to_be_visible()  # the site's own header
    console.fill("#adm-token", "not-the-token")
    console.click("#adm-login button[type=submit]")
    expect(console.locator("#adm-login-error")).to_have_text("That token is not right.")
    console.fill("#adm-token", TOKEN)
    console.click("#adm-login button[type=submit]")
    room_row = console.locator("#adm-rooms tbody tr", has_text=code)
    expect(room_row).to_contain_text("Lobby")
    expect(room_row).to_contain_text("1: Ann")
    expect(console.locator("#adm-procs tbody tr")).to_have_count(1)
    # the load of every process (its beat's figures), the solver queue, the activity
    load_row = console.locator("#adm-load tbody tr")
    expect(load_row).to_have_count(1)
    expect(load_row).to_contain_text("running: 0/")
    expect(console.locator("#adm-queue tbody")).to_contain_text("No job is waiting for the solver.")
    expect(console.locator("#adm-activity")).to_contain_text("Public races on")

    # a notice reaches the race page as a banner
    console.fill("#adm-notice-text", "Restart at 22:00")
    console.click("#adm-notice-form button")
    expect(player.locator(".banner.notice")).to_contain_text("Restart at 22:00")
    expect(console.locator("#adm-notice-now")).to_contain_text("Restart at 22:00")

    # an address, then a range, is blocked, listed and lifted; bad input is refused
    for target, bad, why in (
        ("203.0.113.9", "not an address", "not an IP address"),
        ("198.51.100.0/24", "198.51.100.0/33", "CIDR"),
    ):
        console.fill("#adm-block-addr", target)
        console.click("#adm-block-form button")
        block_row = console.locator("#adm-blocks tbody tr", has_text=target)
        expect(block_row).to_contain_text("59 minutes")
        console.fill("#adm-block-addr", bad)
        console.click("#adm-block-form button")
        expect(console.locator("#adm-error")).to_contain_text(why)
        block_row.get_by_role("button").click()
        expect(console.locator("#adm-blocks tbody")).to_contain_text("No address is blocked.")

    shots = os.environ.get("ADMIN_SHOTS")
    for lang, heading, lobby, load_head in (
        ("en", "Operator console", "Lobby", "Leaderboard p99"),
        ("hr", "Upravljačka konzola", "Predvorje", "Ljestvica p99"),
    ):
        for width, height in SIZES:
            console.set_viewport_size({"width": width, "height": height})
            pick_language(console, lang)
            expect(console.locator("h1")).to_have_text(heading)
            expect(room_row).to_contain_text(lobby)
            expect(console.locator("#adm-load thead")).to_contain_text(load_head)
            assert fits(console), f"sideways scroll at {width}x{height} {lang}"
            if shots:
                Path(shots).mkdir(parents=True, exist_ok=True)
                shot = f"{shots}/admin-{lang}-{width}x{height}.png"
                console.screenshot(path=shot, full_page=True)
    player.set_viewport_size({"width": 390, "height": 844})
    pick_language(player, "hr")
    expect(player.locator(".banner.notice strong")).to_have_text("Obavijest poslužitelja")
    if shots:
        player.screenshot(path=f"{shots}/notice-hr-390x844.png")

    # removing a member (after a confirmation): they are told the operator removed them
    expect(room_row).to_contain_text("2 člana")
    room_row.locator(".adm-members summary").click()
    bo_item = room_row.locator(".adm-members li", has_text="Bo")
    expect(bo_item).to_contain_text("gledatelj")
    bo_item.get_by_role("button", name="Ukloni").click()
    expect(console.locator("#confirm-text")).to_contain_text("Ukloniti Bo iz sobe")
    console.locator("#confirm-yes").click()
    expect(guest.get_by_text("The server's operator removed you from the room.")).to_be_visible()
    expect(room_row).to_contain_text("1 član")
    expect(room_row.locator(".adm-members li")).to_have_count(1)  # still open after a poll
    if shots:
        console.screenshot(path=f"{shots}/removed-console-hr-360x740.png", full_page=True)
        guest.screenshot(path=f"{shots}/removed-guest-en.png")

    # closing the room (after a confirmation) sends its player home, told why
    room_row.get_by_role("button", name="Zatvori sobu").click()
    console.locator("#confirm-yes").click()
    expect(
        player.get_by_text("Ova je soba zatvorena odlukom operatera poslužitelja.")
    ).to_be_visible()
    expect(console.locator("#adm-rooms tbody")).to_contain_text("Nema soba.")
    expect(console.locator("#adm-queue-sum")).to_have_text("0 poslova čeka na svim procesima")
    if shots:
        player.screenshot(path=f"{shots}/closed-hr-390x844.png")
        console.screenshot(path=f"{shots}/closed-console-hr-360x740.png", full_page=True)

    # draining the process (after a confirmation): it empties and exits cleanly
    proc_row = console.locator("#adm-procs tbody tr").first
    expect(proc_row).to_contain_text("Radi")
    proc_row.get_by_role("button", name="Isprazni").click()
    expect(console.locator("#confirm-text")).to_contain_text("Isprazniti proces")
    console.locator("#confirm-yes").click()
    expect(console.get_by_text("Pražnjenje zatraženo: proces se prazni i gasi.")).to_be_visible()
    assert console_server.process is not None
    assert console_server.process.wait(30) == 0, console_server.log()
