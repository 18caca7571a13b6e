"""The race board in a real browser on a real server: it fits the window
(desktop and phone, English and Croatian), animates, plays by keyboard
alone, takes a double click as one move, and notices a dead link fast.
"""

from __future__ import annotations

import re
import time
from typing import Any

from canfield import DealCode, Game, Move
from canfield.cards import card_text
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from tests.web.pages import (
    card,
    create_room,
    leaderboard_row,
    new_page,
    pick_language,
    picked_card,
    set_deal,
    tappable_moves,
    wait_board,
)

DEAL = "CF1-D3-AAAAACL"
SUIT = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}

#: (width, height, the least card width, the least share of the width the board takes, four-wide)
SIZES = [
    (1920, 1080, 150, 0.7, False),
    (1366, 768, 105, 0.6, False),
    (390, 844, 80, 0.9, True),
    (360, 740, 74, 0.9, True),
]

#: the board's geometry, and whatever sticks out of the window on the right
MEASURE = """() => {
    const grid = document.querySelector('#board .board');
    const box = (el) => el.getBoundingClientRect();
    const piles = [...grid.querySelectorAll(':scope > .pile')].map((el) => {
        const r = box(el);
        const cls = el.className.replace('pile ', '').split(' ')[0];
        const bottom = r.top + box(el.querySelector('.card')).height;
        return { cls, left: r.left, right: r.right, top: r.top, bottom };
    });
    const sticking = [...document.querySelectorAll('body *')]
        .filter((el) => el.getClientRects().length && box(el).right > innerWidth + 0.5
            && !el.closest('.sr-only') && getComputedStyle(el).position !== 'fixed')
        .map((el) => el.id || el.className || el.tagName);
    return {
        cw: box(grid.querySelector('.stock .card')).width,
        gridWidth: box(grid).width,
        narrow: grid.classList.contains('narrow'),
        scrollWidth: document.scrollingElement.scrollWidth,
        innerWidth, innerHeight,
        lb: box(document.querySelector('#race-lb')),
        piles, sticking,
    };
}"""

SETTLE = """() => new Promise((done) =>
    requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"""


def solo_race(page: Page, base: str, deal: str = DEAL, name: str = "Ana") -> str:
    """A host alone in a room starts a race on a known deal; returns the room code."""
    room = create_room(page, base, name)
    set_deal(page, deal)
    page.click("#start")
    wait_board(page)
    expect(page.locator("#countdown")).to_be_hidden()
    return room


def overlaps(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return (
        a["left"] < b["right"] - 1
        and b["left"] < a["right"] - 1
        and a["top"] < b["bottom"] - 1
        and b["top"] < a["bottom"] - 1
    )


def test_the_board_fits_the_window_in_both_languages(
    browser: Browser, shared_server: ServerProcess
) -> None:
    page = new_page(browser)
    solo_race(page, shared_server.http_url)
    page.click("#board .stock")  # a waste fan to measure too
    expect(page.locator("#board .waste .card[data-card]")).not_to_have_count(0)
    for lang in ("en", "hr"):
        pick_language(page, lang)
        for width, height, least_card, least_share, four in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.evaluate(SETTLE)
            got = page.evaluate(MEASURE)
            where = f"{lang} {width}x{height}: {got}"
            assert got["scrollWidth"] <= width, where  # nothing scrolls sideways
            assert not got["sticking"], where
            assert got["cw"] >= least_card, where
            assert got["gridWidth"] / width >= least_share, where
            assert got["narrow"] is four, where
            piles = got["piles"]
            for i, a in enumerate(piles):  # no two places overlap
                assert all(not overlaps(a, b) for b in piles[i + 1 :]), where
            if four:
                # four places a row, three rows, every slot used
                rows: dict[int, list[str]] = {}
                for pile in piles:
                    rows.setdefault(round(pile["top"]), []).append(pile["cls"])
                sizes = sorted(len(v) for v in rows.values())
                assert sizes == [3, 4, 4], where  # the waste takes two slots of its row
                # the racers' lanes: a strip above the board, always in view
                assert got["lb"]["bottom"] <= min(p["top"] for p in piles), where
            else:
                assert got["lb"]["left"] >= got["gridWidth"], where  # the leaderboard beside it
                # the opening board fits the window's height
                assert max(p["bottom"] for p in piles) <= height, where


def test_moves_animate_and_reduced_motion_turns_it_off(
    browser: Browser, shared_server: ServerProcess
) -> None:
    base = shared_server.http_url
    page = new_page(browser)
    solo_race(page, base, name="Ana")
    page.click("#board .stock")
    # the drawn cards slide out of the stock (Web Animations on the board)
    page.wait_for_function(
        "() => document.querySelector('#board').getAnimations({subtree: true}).length > 0",
        polling="raf",
    )
    # any input finishes the animation at once: the board answers straight away
    left = page.evaluate(
        """() => {
            const root = document.querySelector('#board');
            root.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true, button: 0}));
            const running = (a) => a.playState === 'running';
            return root.getAnimations({subtree: true}).filter(running).length;
        }"""
    )
    assert left == 0
    expect(page.locator("#board")).to_have_attribute("data-animated", re.compile(r"^[1-9]"))

    calm = new_page(browser)
    calm.emulate_media(reduced_motion="reduce")
    solo_race(calm, base, name="Iva")
    for count in ("1", "2"):
        calm.click("#board .stock")
        expect(leaderboard_row(calm, "Iva").locator("td.c-moves")).to_have_text(count)
        assert (
            calm.evaluate("document.querySelector('#board').getAnimations({subtree: true}).length")
            == 0
        )
    expect(calm.locator("#board .waste .card[data-card]")).not_to_have_count(0)
    assert calm.locator("#board").get_attribute("data-animated") is None


def keyboard_deal() -> tuple[str, list[Move]]:
    """A deal whose first actions (no stock taps) include a foundation move and a column move."""
    for seed in range(3000):
        code = str(DealCode.from_seed(seed, 3))
        game = Game.deal(code)
        moves: list[Move] = []
        for _ in range(5):
            legal = [m for m in game.legal_moves() if m.text() != "S" and m.src != "F"]
            if not legal:
                break
            legal.sort(key=lambda m: m.dst != "F")
            moves.append(legal[0])
            game.push(legal[0])
        kinds = {m.dst for m in moves}
        if len(moves) >= 3 and kinds == {"F", "T"}:
            return code, moves
    raise AssertionError("no suitable deal in 3000 seeds")


def name_of(text: str) -> str:
    return ("10" if text[0] == "T" else text[0]) + SUIT[text[1]]


def press_until(page: Page, key: str, test: str, limit: int = 80) -> None:
    """Press key until the focused element passes test (JS, given the element)."""
    for _ in range(limit):
        if page.evaluate(
            f"(() => {{ const el = document.activeElement; return Boolean({test}); }})()"
        ):
            return
        page.keyboard.press(key)
    raise AssertionError(f"{key} x{limit} never reached {test}")


def test_a_whole_race_by_keyboard_alone(browser: Browser, shared_server: ServerProcess) -> None:
    code, moves = keyboard_deal()
    page = new_page(browser)
    room = solo_race(page, shared_server.http_url, code, "Ana")
    expect(page).to_have_title(re.compile(rf"^Racing - \d+ cards - {room} - Canfield Race$"))
    live = page.locator("#board-live")
    game = Game.deal(code)
    # every place says what it is
    for pile in page.locator("#board .pile").all():
        assert pile.get_attribute("aria-label"), pile.evaluate("el => el.outerHTML.slice(0, 120)")
    expect(page.locator("#board .stock")).to_have_attribute("aria-label", "Stock, 34 cards")
    expect(page.locator('#board .column[data-drop="T0"]')).to_have_attribute(
        "aria-label", re.compile(r"^Column 1: ")
    )

    for step, move in enumerate(moves):
        picked = picked_card(game, move)
        # pick the card with Tab
        press_until(page, "Tab", f"el.dataset.card === '{picked}'")
        target = "F" if move.dst == "F" else f"T{move.dst_index}"
        if step % 2 == 0:
            # Enter lifts; the arrows walk the places until the right one is chosen
            page.keyboard.press("Enter")
            expect(page.locator("#board .card.picked")).to_have_count(1)
            press_until(page, "ArrowRight", f"el.dataset.drop === '{target}'", limit=6)
        else:
            # a number (or F) lifts the card and chooses that place at once
            page.keyboard.press("f" if move.dst == "F" else str(move.dst_index + 1))
            expect(page.locator("#board .pile.hover")).to_have_attribute("data-drop", target)
        page.keyboard.press("Enter")
        game.push(move)
        expect(leaderboard_row(page, "Ana").locator("td.c-moves")).to_have_text(str(step + 1))
        placed = page.locator(
            "#board .foundation"
            if move.dst == "F"
            else f'#board .column[data-drop="T{move.dst_index}"]'
        ).locator(f'.card[data-card="{picked}"]')
        expect(placed).to_be_visible()
        expect(live).to_contain_text(name_of(picked))  # the move is said
        # focus stays with the moved card (or its place), never lost to the page
        assert page.evaluate("document.querySelector('#board').contains(document.activeElement)")

    # Space draws; a foundation's top card can be lifted (a take-back); Escape puts it back
    page.keyboard.press("Space")
    expect(leaderboard_row(page, "Ana").locator("td.c-moves")).to_have_text(str(len(moves) + 1))
    top = card_text(next(pile for pile in reversed(game.foundations) if pile)[-1])
    press_until(page, "Tab", f"el.dataset.card === '{top}'")
    page.keyboard.press("Enter")
    expect(page.locator(f'#board .foundation .card.picked[data-card="{top}"]')).to_have_count(1)
    page.keyboard.press("Escape")
    expect(page.locator("#board .card.picked")).to_have_count(0)
    expect(live).to_have_text(re.compile("Put back"))
    assert page.evaluate("document.activeElement.dataset.card") == top

    # the arrows move between cards too
    press_until(page, "Tab", "el.classList.contains('stock')")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.closest('.waste') !== null")

    # give up by keyboard: Shift+Tab to the button, Enter twice (it asks first)
    press_until(page, "Shift+Tab", "el.id === 'give-up'")
    page.keyboard.press("Enter")
    expect(page.locator("#give-up")).to_have_text(re.compile("Sure"))
    page.keyboard.press("Enter")
    page.wait_for_selector("#view-results:not([hidden])")
    expect(page).to_have_title(f"Results - {room} - Canfield Race")


def test_a_double_click_is_one_move(browser: Browser, shared_server: ServerProcess) -> None:
    code = None
    for seed in range(2000):  # a card that a tap sends somewhere
        candidate = str(DealCode.from_seed(seed, 3))
        if next(tappable_moves(Game.deal(candidate)), None) is not None:
            code = candidate
            break
    assert code
    game = Game.deal(code)
    picked = picked_card(game, next(tappable_moves(game)))
    page = new_page(browser)
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(str(payload))))
    solo_race(page, shared_server.http_url, code)
    card(page, picked).dblclick(position={"x": 12, "y": 8})
    expect(leaderboard_row(page, "Ana").locator("td.c-moves")).to_have_text("1")
    assert sum('"type": "tap"' in frame or '"type":"tap"' in frame for frame in sent) == 1, sent
    expect(page.locator("#toast")).to_be_hidden()


def test_a_dead_link_shows_within_seconds_and_small_fixes(
    browser: Browser, shared_server: ServerProcess
) -> None:
    page = new_page(browser)
    dead = {"on": False}

    def relay(route: WebSocketRoute) -> None:
        if dead["on"]:  # no network: a new connection never opens
            route.close()
            return
        server = route.connect_to_server()
        route.on_message(lambda message: None if dead["on"] else server.send(message))
        server.on_message(lambda message: None if dead["on"] else route.send(message))

    page.route_web_socket(re.compile(r"/ws$"), relay)
    room = create_room(page, shared_server.http_url, "Ana")
    expect(page).to_have_title(f"Room {room} - Canfield Race")

    # the header menu closes on a click outside it
    page.click("#settings summary")
    expect(page.locator("#settings .menu-body")).to_be_visible()
    page.click("#lobby-title")
    expect(page.locator("#settings .menu-body")).to_be_hidden()

    # the focus ring on the yellow Start button is not yellow
    page.focus("#share-link")
    press_until(page, "Tab", "el.id === 'start'")
    ring = page.evaluate("getComputedStyle(document.activeElement).outlineColor")
    accent = page.evaluate("getComputedStyle(document.activeElement).backgroundColor")
    assert ring != accent and ring != "rgb(255, 207, 63)", ring

    # the network dies silently (no close, no pong): the page says so within a few seconds
    dead["on"] = True
    cut = time.monotonic()
    expect(page.locator("#offline")).to_be_visible(timeout=8_000)
    assert time.monotonic() - cut < 8  # was about 22 s: a 10 s ping and 8 s of silence
    expect(page).to_have_title(re.compile(r"^Connection lost - "))
    dead["on"] = False
    expect(page.locator("#offline")).to_be_hidden()

    # "Starting in" sits on a dark panel of its own
    page.click("#start")
    panel = page.locator("#countdown > div")
    expect(panel).to_be_visible()
    background = panel.evaluate("el => getComputedStyle(el).backgroundColor")
    red, green, blue = (int(v) for v in re.findall(r"\d+", background)[:3])
    assert max(red, green, blue) < 90, background
