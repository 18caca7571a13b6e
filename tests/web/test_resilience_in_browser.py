"""The page in Croatian, a host racing alone with the "Double click" setting
off and on, and a server restart mid-race: the page reconnects by itself
with its stored token to the very same board."""

from __future__ import annotations

from canfield import DealCode, Game
from playwright.sync_api import Browser, expect

from tests.conftest import ServerFactory
from tests.web.pages import (
    board_text,
    card,
    new_page,
    pick_language,
    picked_card,
    set_deal,
    tappable_moves,
    wait_board,
)


def column_only_deal() -> tuple[str, str, int]:
    """A deal whose first tappable card can only go onto a column: (code, card, column)."""
    for seed in range(2000):
        code = str(DealCode.from_seed(seed, 3))
        game = Game.deal(code)
        move = next(tappable_moves(game), None)
        if move is not None and move.dst == "T":
            return code, picked_card(game, move), move.dst_index
    raise AssertionError("no such deal in 2000 seeds")


def test_croatian_labels_and_reconnect_after_server_restart(
    browser: Browser, server_factory: ServerFactory
) -> None:
    server = server_factory(env={"CANFIELD_COUNTDOWN_S": "1"})
    page = new_page(browser, locale="hr-HR", viewport={"width": 900, "height": 800})
    page.goto(server.http_url + "/r/ZZZZZ2")  # a link to a room that does not exist
    page.fill("#name", "Iva")
    page.click("#join")
    expect(page.locator("#home-error")).to_have_text(
        "Sobe ZZZZZ2 više nema: utrka je gotova ili je poveznica stara."
        " Pokreni novu utrku ili upiši drugi kôd."
    )
    # and both ways on are there: a new race, another code
    expect(page.locator("#create")).to_be_visible()
    expect(page.locator("#room-code")).to_be_visible()
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
    page.click("#settings summary")
    pick_language(page, "en")
    expect(settings).to_contain_text("3 cards / Hard")
    expect(page.locator("#start")).to_have_text("Start")
    page.click("#settings summary")
    page.uncheck("#pref-double")
    page.click("#settings summary")
    code, tapped, column = column_only_deal()
    set_deal(page, code)

    page.click("#start")
    wait_board(page)
    before = board_text(page)
    card(page, tapped).click(position={"x": 12, "y": 8})  # "Double click" off: nowhere to go
    expect(page.locator("#toast")).to_be_visible()
    assert board_text(page) == before
    page.click("#settings summary")
    page.check("#pref-double")
    page.click("#settings summary")
    card(page, tapped).focus()  # by keyboard this time: Enter lifts the focused card,
    page.keyboard.press("Enter")  # the place a tap would choose is chosen first,
    page.keyboard.press("Enter")  # and Enter puts it there
    target = page.locator(f'#board .column[data-drop="T{column}"] .card[data-card="{tapped}"]')
    expect(target).to_be_visible()

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
