"""Practice rooms in a real browser on a real server: the host turns practice
on (a spectator sees it, read-only), races alone, presses H, and the page
lights up the move the server's solver sent; the player then makes it."""

from __future__ import annotations

import json
import re

from canfield import Game, Move
from canfield.cards import parse_card
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, WebSocket, expect

from tests.web.pages import (
    create_room,
    drag,
    join_by_link,
    new_page,
    picked_card,
    set_deal,
    wait_board,
)

#: a Draw 3 deal the solver wins in milliseconds (tests/server/test_winnable.py)
EASY_DRAW3 = "CF1-D3-AAADKOH"


def test_a_hint_lights_up_a_move_the_player_can_make(
    browser: Browser, shared_server: ServerProcess
) -> None:
    base = shared_server.http_url
    host, watcher = new_page(browser), new_page(browser)
    hints: list[str | None] = []

    def on_socket(ws: WebSocket) -> None:
        def on_frame(payload: str | bytes) -> None:
            msg = json.loads(payload)
            if msg.get("type") == "hint":
                hints.append(msg["move"])

        ws.on("framereceived", on_frame)

    host.on("websocket", on_socket)
    room = create_room(host, base, "Ana")
    join_by_link(watcher, base, room, "Vi", watch=True)
    set_deal(host, EASY_DRAW3)
    host.check("#room-settings input[name=practice]")
    practice = watcher.locator("#room-settings input[name=practice]")
    expect(practice).to_be_checked()
    expect(practice).to_be_disabled()  # only the host edits

    host.click("#start")
    wait_board(host)
    expect(host.locator("#hint")).to_be_visible()
    expect(watcher.locator("#view-race")).to_be_visible()
    expect(watcher.locator("#hint")).to_be_hidden()  # a spectator has no board to hint
    host.keyboard.press("h")
    lit = host.locator("#board .hint-from")
    expect(lit).to_have_count(1)
    assert len(hints) == 1 and hints[0], hints
    move = Move.parse(hints[0])
    game = Game.deal(EASY_DRAW3)
    game.push(move)  # the hint is legal on the fresh deal
    game.pop()
    if move.src == "S":
        expect(lit).to_have_class(re.compile(r"\bstock\b"))
        lit.click()
        expect(host.locator("#board .waste .card[data-card]")).not_to_have_count(0)
        return
    picked = picked_card(game, move)
    expect(lit).to_have_attribute("data-card", picked)
    expect(host.locator("#board .hint-to")).not_to_have_count(0)
    if game.tap_move(parse_card(picked)) == move:
        lit.click()
    else:
        drag(host, lit, host.locator("#board .hint-to").first)
    goal = ".foundation" if move.dst == "F" else f'[data-drop="T{move.dst_index}"]'
    expect(host.locator(f"#board {goal} .card[data-card='{picked}']")).to_have_count(1)
    expect(host.locator("#board .hint-from")).to_have_count(0)  # the new board has no stale hint


def engine_reading(text: str) -> list | None:
    """How the engine reads a move text, in parseMove's shape (None: malformed)."""
    try:
        move = Move.parse(text)
    except ValueError:
        return None
    if move.src == "S":
        return ["S", 0, 0, None]
    dst = "F" if move.dst == "F" else f"T{move.dst_index}"
    return [move.src, move.src_index, move.count, dst]


def test_the_page_reads_move_texts_as_the_engine_does(browser: Browser, static_url: str) -> None:
    sources = ["S", "R", "W", *(f"F{i}" for i in range(1, 5))]
    sources += [f"{i}:{n}" for i in range(1, 5) for n in (2, 3, 13)] + ["1", "4"]
    texts = ["S", " w-f ", "2:3-4", *(f"{s}-{t}" for s in sources for t in "F1234")]
    expected = {text: engine_reading(text) for text in texts}
    engine_ok = [text for text, reading in expected.items() if reading is not None]
    assert {"S", "R-F", "W-3", "2:3-4", "F1-3"} <= set(engine_ok)
    page = browser.new_page()
    page.goto(static_url + "/app.css")  # any page of the same origin, to import modules
    read = page.evaluate(
        """async (texts) => {
            const { parseMove } = await import('/js/rules.js');
            return texts.map((text) => {
                const m = parseMove(text);
                return m && [m.src.pile, m.src.index, m.src.count, m.dst];
            });
        }""",
        engine_ok + ["", "X-1", "S-1", "5-1", "R"],
    )
    page.close()
    assert read[: len(engine_ok)] == [expected[text] for text in engine_ok]
    assert read[len(engine_ok) :] == [None] * 5  # not moves: nothing lights up
