"""Every moment says the right thing, in real browsers on a real server, in
English and Croatian: who the next race waits for (the reader as "you", never by
their own name), a lobby where everyone is ready tells the host to start, a
win's place is final and its clock stops at the finish, a win's place and time
are the leaderboard's row that says won (never the row before it, should the
board say won first), a shared place in "My
races" says it is shared, and Croatian that fits every player (no masculine
past participles for a racer).
"""

from __future__ import annotations

import json
import re

import pytest
from canfield import Game
from canfield.solver import solve
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, expect
from websockets.sync.client import connect

from tests.conftest import ServerFactory
from tests.web.helpers import DEAL, HeldSocket, start_race
from tests.web.pages import (
    WireRacer,
    create_room,
    give_up,
    join_by_link,
    leaderboard_row,
    new_page,
    pick_language,
    room_of,
    set_deal,
    wait_board,
)

HR = {"locale": "hr-HR"}
#: the solver wins this one in milliseconds
WINNABLE_DEAL = "CF1-D3-AAADKOH"


@pytest.fixture
def line_server(server_factory: ServerFactory) -> ServerProcess:
    """Races start after 0.3 s, and a line may go as fast as its acks come back."""
    fast = {"CANFIELD_RATE_PER_S": "1000", "CANFIELD_RATE_BURST": "1000"}
    return server_factory(env={"CANFIELD_COUNTDOWN_S": "0.3", **fast})


def win_from_another_tab(page: Page, ws_url: str, deal: str) -> None:
    """The page's racer plays the solver's winning line from a second connection
    to the same seat (its token): the page sees the win as the server tells it."""
    line = solve(deal, 30).moves
    assert line, "the solver wins this deal"
    assert Game.replay(deal, line).on_foundations == 52
    play_from_another_tab(page, ws_url, line)


def play_from_another_tab(page: Page, ws_url: str, line: list[str]) -> None:
    """The page's racer plays ``line`` from a second connection to the same seat."""
    room = page.url.rsplit("/", 1)[1]
    seat = json.loads(page.evaluate(f"sessionStorage.getItem('cfr.seat.{room}')"))
    with connect(ws_url, open_timeout=10) as socket:
        tab = WireRacer(socket)
        tab.send(type="resume", room=room, token=seat["token"])
        tab.seq = tab.next_of("joined").get("last_seq") or 0
        for move in line:
            tab.act(type="move", move=move)


def test_race_again_says_you_and_a_ready_lobby_tells_the_host_to_start(
    browser: Browser, shared_server: ServerProcess
) -> None:
    ana, bo, cy = room_of(browser, shared_server.http_url, ("Ana", {}), ("Bo", {}), ("Cy", HR))
    set_deal(ana, DEAL)
    start_race(ana, [bo, cy])
    give_up(cy)
    # a racer who gave up reads it in words that fit anyone
    expect(cy.locator(".finish-card .what b")).to_have_text("Predaja")
    expect(cy.locator("#race-note")).to_have_text("Predaja. Gledaj kako drugi završavaju.")
    for page in (ana, bo):
        give_up(page)
    for page in (ana, bo, cy):
        page.wait_for_selector("#view-results:not([hidden])")
    expect(cy.locator("#final-lb td.c-status").first).to_have_text("predaja")

    ana.click("#race-again")
    expect(ana.locator("#again-wait")).to_have_text("Waiting for Bo and Cy to race again")
    expect(bo.locator("#again-wait")).to_have_text("Waiting for you and Cy to race again")
    expect(cy.locator("#again-wait")).to_have_text("Čeka se na tebe i: Bo")
    bo.click("#race-again")
    expect(cy.locator("#again-wait")).to_have_text("Svi ostali su za: čeka se na tebe")
    expect(bo.locator("#again-wait")).to_have_text("Waiting for Cy to race again")
    pick_language(cy, "en")
    expect(cy.locator("#again-wait")).to_have_text(
        "Everyone else is in: waiting for you to race again"
    )
    pick_language(cy, "hr")

    # the host takes the room back to the lobby instead: Ana and Bo asked, so they
    # are ready; once Cy is too, the host is told to start, the others whom they wait for
    ana.click("#rematch")
    for page in (ana, bo, cy):
        page.wait_for_selector("#view-lobby:not([hidden])")
    expect(ana.locator("#lobby-wait")).to_have_text("")
    expect(cy.locator("#players .ready-mark.on")).to_have_text(["✓ Čeka start", "✓ Čeka start"])
    expect(cy.locator("#players .ready-mark:not(.on)")).to_have_text("Priprema se")
    expect(cy.locator("#ready")).to_have_text("Mogu krenuti")
    cy.click("#ready")
    expect(ana.locator("#lobby-wait")).to_have_text("Everyone is ready: press Start.")
    ana.set_viewport_size({"width": 390, "height": 844})  # a phone: said in sight, by the players
    expect(ana.locator("#lobby-wait")).to_be_in_viewport()
    expect(bo.locator("#lobby-wait")).to_have_text(
        "Everyone is ready: waiting for the host to start."
    )
    expect(cy.locator("#lobby-wait")).to_have_text("Sve je spremno: čeka se da domaćin započne.")
    pick_language(ana, "hr")
    expect(ana.locator("#lobby-wait")).to_have_text("Sve je spremno: pritisni Započni.")
    ana.click("#start")
    for page in (ana, bo, cy):
        wait_board(page)


def test_a_win_is_a_final_place_and_its_clock_stops_at_the_finish(
    browser: Browser, line_server: ServerProcess
) -> None:
    ana, bo = room_of(browser, line_server.http_url, ("Ana", {}), ("Bo", {}))
    set_deal(ana, WINNABLE_DEAL)
    start_race(ana, [bo])
    win_from_another_tab(ana, line_server.ws_url, WINNABLE_DEAL)
    # the page's header and title have the board its racer won on, whichever tab played
    won = Game.replay(WINNABLE_DEAL, solve(WINNABLE_DEAL, 30).moves)
    expect(ana.locator("#score")).to_have_text(str(won.score))
    expect(ana).to_have_title(re.compile(r"^Won - 52 cards - "))

    finish = ana.locator(".finish-card")
    expect(finish).to_contain_text("You won!")
    # Bo still races, but nothing he does can change a win's place
    expect(finish.locator(".place .hint")).to_have_text("your place")
    expect(finish).not_to_contain_text("so far")
    detail = ana.locator("#moment .moment-detail")
    expect(detail).to_have_text(re.compile(r"^1st of 2 \u00b7 \d+:\d\d$"))
    won_at = detail.inner_text().rsplit(" ", 1)[1]
    expect(ana.locator("#race-clock")).to_have_text(won_at)
    # Bo's clock runs on past her finish; Ana's stays there while it does
    minutes, seconds = map(int, won_at.split(":"))
    bo.wait_for_function(  # at least two seconds on, however slow the box is to look
        """later => {
            const [m, s] = document.getElementById("race-clock").textContent.split(":");
            return Number(m) * 60 + Number(s) >= later;
        }""",
        arg=minutes * 60 + seconds + 2,
        timeout=20_000,
    )
    expect(ana.locator("#race-clock")).to_have_text(won_at)
    pick_language(ana, "hr")
    expect(finish.locator(".what b")).to_have_text("Pobjeda!")
    expect(finish.locator(".place .hint")).to_have_text("tvoje mjesto")


def test_a_win_says_its_place_and_time_once_the_leaderboard_has_it(
    browser: Browser, line_server: ServerProcess
) -> None:
    """The page hears of its racer's win from the board before the leaderboard's
    row says it (rows are coalesced, and late on a busy server; here the test
    holds them): the win shows at once, its place and time come with the row
    that says won, the time the race clock stops at and the leaderboard says,
    never the place and time of the row before the win."""
    ana, bo = new_page(browser), new_page(browser)
    socket = HeldSocket(ana, held=("leaderboard",))
    room = create_room(ana, line_server.http_url, "Ana")
    join_by_link(bo, line_server.http_url, room, "Bo")
    set_deal(ana, WINNABLE_DEAL)
    start_race(ana, [bo])
    line = solve(WINNABLE_DEAL, 30).moves or []
    ahead = next(
        n for n in range(len(line)) if Game.replay(WINNABLE_DEAL, line[:n]).on_foundations > 2
    )
    cards = Game.replay(WINNABLE_DEAL, line[:ahead]).on_foundations
    play_from_another_tab(bo, line_server.ws_url, line[:ahead])
    # Ana's page has the rows of a race Bo leads (Ana 2nd, no move made), a second in
    expect(leaderboard_row(ana, "Bo").locator("td.c-cards")).to_have_text(str(cards))
    expect(leaderboard_row(ana, "Ana").locator("td.c-cards")).to_have_text("1")
    ana.wait_for_function(
        """() => {
            const [m, s] = document.getElementById("race-clock").textContent.split(":");
            return Number(m) * 60 + Number(s) >= 1;
        }""",
        timeout=20_000,
    )
    socket.holding = True
    win_from_another_tab(ana, line_server.ws_url, WINNABLE_DEAL)
    expect(ana).to_have_title(re.compile(r"^Won - 52 cards - "))
    finish = ana.locator(".finish-card")
    expect(finish.locator(".what b")).to_have_text("You won!")
    expect(ana.locator("#moment .moment-title")).to_have_text("You won!")
    # the rows still say Ana races, 2nd: no place or time from them
    assert leaderboard_row(ana, "Ana").locator("td.c-cards").inner_text() == "1"
    expect(finish.locator(".place")).to_have_count(0)
    expect(finish.locator(".what span")).to_have_text("")
    expect(ana.locator("#moment .moment-detail")).to_have_text("")
    socket.release()
    detail = ana.locator("#moment .moment-detail")
    expect(detail).to_have_text(re.compile(r"^1st of 2 \u00b7 \d+:\d\d$"))
    won_at = (detail.text_content() or "").rsplit(" ", 1)[1]
    expect(ana.locator("#race-clock")).to_have_text(won_at)
    expect(leaderboard_row(ana, "Ana").locator("td.c-time")).to_have_text(won_at)
    expect(finish.locator(".place-text")).to_have_text("1st of 2")
    expect(finish.locator(".place .hint")).to_have_text("your place")
    expect(finish.locator(".what span")).to_have_text(won_at)


def test_a_three_way_tie_reads_as_tied_in_my_races(
    browser: Browser, shared_server: ServerProcess
) -> None:
    ana, bo, cy = room_of(browser, shared_server.http_url, ("Ana", {}), ("Bo", {}), ("Cy", HR))
    set_deal(ana, DEAL)
    start_race(ana, [bo, cy])
    for page in (ana, bo, cy):  # nobody moves: one card home each, a true tie
        give_up(page)
    for page in (ana, bo, cy):
        page.wait_for_selector("#view-results:not([hidden])")
    for page, place in ((ana, "1st of 3 (tied)"), (cy, "1. od 3 (dijeljeno)")):
        page.goto(shared_server.http_url + "/me")
        row = page.locator("#me-history tbody tr")
        expect(row).to_have_count(1)
        expect(row.locator("td").nth(3)).to_have_text(place)
