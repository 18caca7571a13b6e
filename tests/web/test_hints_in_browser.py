"""Practice rooms in a real browser on a real server: the host turns practice
on (a spectator sees it, read-only), races alone, presses H, and the page
lights up the move the server's solver sent; the player then makes it."""

from __future__ import annotations

import json
import re

import pytest
from canfield import Game, Move
from canfield.cards import parse_card
from playwright.sync_api import WebSocket, expect

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


@pytest.fixture
def fast_server(server_factory):  # noqa: ANN001, ANN201
    return server_factory(env={"CANFIELD_COUNTDOWN_S": "0.2"})


def test_a_hint_lights_up_a_move_the_player_can_make(browser, fast_server) -> None:  # noqa: ANN001
    base = fast_server.http_url
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
