"""Two real browsers race on a real server: create, join by link, drag, tap, draw,
undo, an illegal drop, a reload, giving up, results and the replay.

The guest first tries a hostile display name (markup), which the server
refuses with a clear error; the name it then uses holds characters that
mean something in HTML (entities without ';' still decode in innerHTML),
and it must show as plain text everywhere (lobby, leaderboard, results).
"""

from __future__ import annotations

import re

import pytest
from canfield import DealCode, Game, IllegalMoveError, Move
from canfield.cards import card_text
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Dialog, Locator, Page, Position, expect

from tests.conftest import ServerFactory
from tests.web.pages import (
    PHONE,
    board_text,
    card,
    create_room,
    drag,
    join_by_link,
    leaderboard_row,
    new_page,
    picked_card,
    race_button,
    set_deal,
    tappable_moves,
    wait_board,
)

HOSTILE = "<img src=x onerror=alert(1)>"
TRICKY = "Mo &lt'b&gt (1)"
TOP_STRIP: Position = {"x": 12, "y": 8}  # the visible corner of a card in a fanned column


def pick_deal() -> tuple[str, Move, Move, Move]:
    """The first deal with two tappable moves in a row, then an illegal column drop."""
    for seed in range(2000):
        code = str(DealCode.from_seed(seed, 3))
        game = Game.deal(code)
        first = next(tappable_moves(game), None)
        if first is None:
            continue
        game.push(first)
        second = next(tappable_moves(game), None)
        if second is None:
            continue
        game.push(second)
        for i in range(4):
            for j in range(4):
                bad = Move("T", i, 1, "T", j)
                if i != j and game.tableau[i] and game.tableau[j] and not game.is_legal(bad):
                    return code, first, second, bad
    raise AssertionError("no suitable deal in 2000 seeds")


def card_label(text: str) -> str:
    """A card as the page words it: rank and suit symbol ("TS" -> "10\u2660")."""
    suits = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
    return ("10" if text[0] == "T" else text[0]) + suits[text[1]]


def target(page: Page, move: Move) -> Locator:
    if move.dst == "F":
        return page.locator("#board .foundation").first
    return page.locator(f'#board .column[data-drop="T{move.dst_index}"]')


def settled(page: Page) -> None:
    """Until the board's cards stop sliding (the last move's animation): a click
    aimed at a card while its neighbours still move can land on another card."""
    page.wait_for_function(
        "() => !document.querySelector('#board').getAnimations({subtree: true}).length"
    )


def expect_in_place(page: Page, game: Game, move: Move, text: str) -> None:
    """After a move, the card lies where the engine put it."""
    if move.dst == "F":
        expect(page.locator(f'#board .foundation .card[data-card="{text}"]')).to_be_visible()
    else:
        column = page.locator(f'#board .column[data-drop="T{move.dst_index}"]')
        expect(column.locator(f'.card[data-card="{text}"]')).to_be_visible()


@pytest.fixture
def fast_server(server_factory: ServerFactory) -> ServerProcess:
    return server_factory(env={"CANFIELD_COUNTDOWN_S": "1"})


def test_two_browsers_race_from_lobby_to_replay(
    browser: Browser, fast_server: ServerProcess
) -> None:
    code, first, second, bad = pick_deal()
    engine = Game.deal(code)
    base = fast_server.http_url
    host = new_page(browser)
    guest = new_page(browser, **PHONE)
    dialogs: list[str] = []

    def note(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    for page in (host, guest):
        page.on("dialog", note)

    # lobby: create, join by the share link, pick the deal, see each other
    room = create_room(host, base, "Ana")
    expect(host.locator("#share-link")).to_have_value(f"{base}/r/{room}")
    guest.goto(f"{base}/r/{room}")
    guest.fill("#name", HOSTILE)
    guest.click("#join")
    expect(guest.locator("#home-error")).to_contain_text("may not contain")
    assert guest.locator("img").count() == 0
    join_by_link(guest, base, room, TRICKY)
    watcher = new_page(browser)
    join_by_link(watcher, base, room, "Big screen", watch=True)
    expect(host.locator("#spectators .who")).to_have_text(["Big screen"])
    expect(host.locator("#players .who").nth(1)).to_have_text(TRICKY)
    assert host.locator("#players img").count() == 0
    set_deal(host, code)
    guest.click("#ready")
    expect(host.locator("#players .ready-mark.on")).to_have_count(1)
    # the guest's page shows the countdown (noted as it happens: on a busy machine
    # its second can pass before a check could look)
    # and "Go!" stands alone at the start (noted the same way: it shows for 0.7 s)
    guest.evaluate(
        """() => {
             const box = document.querySelector('#countdown');
             new MutationObserver(() => {
               if (box.hidden) return;
               window.sawCountdown = true;
               const go = box.querySelector('b').textContent === 'Go!';
               if (go) window.goLabel = box.querySelector('p').hidden ? 'alone' : 'with label';
             }).observe(box, { attributes: true, childList: true, subtree: true });
           }"""
    )
    host.click("#start")
    wait_board(host)
    wait_board(guest)
    assert guest.evaluate("window.sawCountdown === true")
    guest.wait_for_function("window.goLabel !== undefined")
    assert guest.evaluate("window.goLabel") == "alone"

    # first move: the host drags, the guest taps (a touch tap on the phone)
    text1 = picked_card(engine, first)
    drag(host, card(host, text1), target(host, first))
    card(guest, text1).tap(position=TOP_STRIP)
    engine.push(first)
    expect_in_place(host, engine, first, text1)
    expect_in_place(guest, engine, first, text1)
    expect(leaderboard_row(guest, "Ana").locator("td.c-moves")).to_have_text("1")
    expect(leaderboard_row(host, TRICKY).locator("td.c-moves")).to_have_text("1")
    for name in ("Ana", TRICKY):  # the spectator sees everyone's progress, and no board
        expect(leaderboard_row(watcher, name).locator("td.c-moves")).to_have_text("1")
    expect(watcher.locator("#board")).to_be_hidden()
    leaderboard_row(guest, "Ana").evaluate("row => { row.dataset.seen = 'yes'; }")
    assert guest.locator("#race-lb img").count() == 0

    # second move: the other way round
    text2 = picked_card(engine, second)
    settled(host)
    card(host, text2).click(position=TOP_STRIP)
    settled(guest)
    drag(guest, card(guest, text2), target(guest, second))
    engine.push(second)
    expect_in_place(host, engine, second, text2)
    expect_in_place(guest, engine, second, text2)
    expect(leaderboard_row(guest, "Ana").locator("td.c-moves")).to_have_text("2")
    # rows are updated in place (no flicker): still the very same element
    expect(leaderboard_row(guest, "Ana")).to_have_attribute("data-seen", "yes")
    expect(leaderboard_row(guest, "Ana").locator("td.c-score")).to_have_text(str(engine.score))

    # an illegal drop snaps back with the reason, worded by the page from the rule (cards as 6♥)
    before = board_text(host)
    bad_card = card_text(engine.tableau[bad.src_index][-1])
    onto = card_text(engine.tableau[bad.dst_index][-1])
    with pytest.raises(IllegalMoveError) as reason:
        engine.push(bad)
    assert reason.value.rule == "column-build"
    drag(host, card(host, bad_card), target(host, bad))
    expect(host.locator("#toast")).to_contain_text(
        f"{card_label(bad_card)} cannot go on {card_label(onto)}"
    )
    expect(host.locator(".ghost")).to_have_count(0)
    assert board_text(host) == before

    # draw by click and by Space, undo by button and by U
    stock = host.locator("#board .stock .count")
    expect(stock).to_have_text("34")
    host.click("#board .stock")
    expect(stock).to_have_text("31")
    engine.push(Move.parse("S"))
    fan = [card_text(c) for c in engine.waste[-3:]]
    expect(host.locator("#board .waste .card[data-card]")).to_have_count(3)
    assert (
        host.eval_on_selector_all(
            "#board .waste .card[data-card]", "els => els.map(e => e.dataset.card)"
        )
        == fan
    )
    host.keyboard.press("Space")
    expect(stock).to_have_text("28")
    host.click("#undo")
    expect(stock).to_have_text("31")
    host.keyboard.press("u")
    expect(stock).to_have_text("34")
    host.keyboard.press("Space")
    expect(stock).to_have_text("31")

    # a reload finds the same board
    before = board_text(host)
    host.reload()
    wait_board(host)
    expect(host.locator("#board .stock .count")).to_have_text("31")
    assert board_text(host) == before
    final_host_board = before

    # both give up: results, deal code, replay of the host's race
    for page in (host, guest):
        race_button(page, "#give-up").click()  # on the phone: behind More
        page.click("#give-up")
    for page in (host, guest):
        page.wait_for_selector("#view-results:not([hidden])")
        expect(page.locator("#deal-code")).to_have_text(code)
        expect(page.locator("#final-lb tbody tr")).to_have_count(2)
    expect(host.locator("#final-lb td.c-player", has_text="Mo")).to_have_text(TRICKY)
    assert host.locator("#final-lb img").count() == 0
    host.click("#rp-last")
    expect(host.locator("#rp-step")).to_have_text(re.compile(r"Move (\d+) of \1"))
    assert board_text(host, "#replay-board") == final_host_board
    host.click("#rp-first")
    expect(host.locator("#rp-step")).to_have_text(re.compile(r"Move 0 of \d+"))
    host.click("#rp-forward")
    expect(host.locator("#rp-move")).to_have_text(first.text())
    host.click("#rp-forward")
    expect(host.locator("#rp-move")).to_have_text(second.text())
    # play goes on by itself to the end and stops there (each step shows for
    # 450 ms: a check of one passing step could miss it on a loaded machine)
    host.click("#rp-play")  # from move 2: reaching the end shows it played
    expect(host.locator("#rp-step")).to_have_text(re.compile(r"Move (\d+) of \1"))
    expect(host.locator("#rp-move")).to_have_text("G")  # the give-up is the last action
    expect(host.locator("#rp-play")).to_have_attribute("aria-label", "Play")
    assert board_text(host, "#replay-board") == final_host_board

    # the race's own replay page: anyone with the link, no seat, no identity
    share = guest.locator("#replay-link")
    expect(share).to_be_visible()
    href = share.get_attribute("href")
    assert href and href.startswith("/replays/r-")
    assert host.locator("#replay-link").get_attribute("href") == href
    stranger = new_page(browser)
    stranger.goto(base + href)
    expect(stranger.locator("#rp-deal")).to_have_text(code)
    expect(stranger.locator("#rp-players td.c-player")).to_have_count(2)
    stranger.context.close()

    # the host's rematch brings everyone back to the lobby of the same room
    expect(guest.locator("#rematch")).to_be_hidden()
    host.click("#rematch")
    for page in (host, guest):
        page.wait_for_selector("#view-lobby:not([hidden])")
        expect(page.locator("#players li")).to_have_count(2)
    assert dialogs == []
