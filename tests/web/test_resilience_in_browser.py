"""The page in Croatian, a host racing alone, and a server restart mid-race:
the page reconnects by itself with its stored token to the very same board."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.web.pages import board_text, new_page, wait_board


def test_croatian_labels_and_reconnect_after_server_restart(browser, server_factory) -> None:  # noqa: ANN001
    server = server_factory(env={"CANFIELD_COUNTDOWN_S": "1"})
    page = new_page(browser, locale="hr-HR", viewport={"width": 900, "height": 800})
    page.goto(server.http_url + "/")
    expect(page.locator("#create")).to_have_text("Nova igra")
    page.fill("#name", "Iva")
    page.click("#create")
    page.wait_for_selector("#view-lobby:not([hidden])")
    settings = page.locator("#room-settings")
    expect(settings).to_contain_text("3 karte / Teško")
    expect(settings).to_contain_text("1 karta / Lako")
    page.click("#settings summary")
    expect(page.locator("#settings")).to_contain_text("Dvostruki klik")
    page.select_option("#pref-lang", "en")
    expect(settings).to_contain_text("3 cards / Hard")
    expect(page.locator("#start")).to_have_text("Start")
    page.click("#settings summary")

    page.click("#start")
    wait_board(page)
    stock = page.locator("#board .stock .count")
    page.click("#board .stock")
    expect(stock).to_have_text("31")
    before = board_text(page)

    server.restart()  # SIGKILL, then a new process on the same port and redis
    expect(page.locator("#offline")).to_be_hidden(timeout=15_000)
    wait_board(page)
    assert board_text(page) == before
    page.click("#board .stock")
    expect(stock).to_have_text("28")
