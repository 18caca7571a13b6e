"""The page never waits on the wire, in a real browser on a real server.

Actions go as they are made: each move that turns up no hidden card shows at
once, several are in flight together and land in order; a move the server
refuses (here: another tab of the same seat played first) goes back to the
server's board, said in a toast. The server's answers are held back by the
test (a route on the page's WebSocket), so "in flight" is a fact, not a
matter of timing. Each story runs near and far: the second time through a
delaying proxy (its own process, loopback only) adding 200 ms to every round
trip, where a whole won race is played too. No test here times anything.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from canfield import Game, Move
from canfield.solver import solve
from canfield_bench.distance import PLAY, line_of, reveals, solo_race
from canfield_bench.processes import DelayProxy, ServerProcess
from playwright.sync_api import Browser, Page, expect
from websockets.sync.client import connect

from tests.web.helpers import HeldSocket
from tests.web.pages import leaderboard_row, new_page

DEAL = "CF1-D3-AAADKOH"


@pytest.fixture(params=[0, 200], ids=["near", "far"])
def base(
    request: pytest.FixtureRequest, shared_server: ServerProcess, tmp_path: Path
) -> Iterator[str]:
    """The page's server: straight, or through a proxy adding 200 ms a round trip."""
    if not request.param:
        yield shared_server.http_url
        return
    proxy = DelayProxy(shared_server.port, request.param, tmp_path).start()
    try:
        yield proxy.http_url
    finally:
        proxy.stop()


#: what the board shows: every column, each foundation's top, the reserve's top,
#: the waste's fan, the stock's count and the score
SHOWN = """() => {
    const cards = (el) => [...el.querySelectorAll('.card[data-card]')].map((c) => c.dataset.card);
    const board = document.querySelector('#board');
    return {
        tableau: [...board.querySelectorAll('.column')].map(cards),
        foundations: [...board.querySelectorAll('.foundation')].map((f) => cards(f).slice(-1)),
        reserve: cards(board.querySelector('.reserve')),
        waste: cards(board.querySelector('.waste')),
        stock: Number(board.querySelector('.stock .count').textContent),
        score: Number(document.querySelector('#score').textContent),
    };
}"""


def shown_as(view: dict[str, Any]) -> dict[str, Any]:
    """What SHOWN reads off a board that shows ``view`` (the server's player view)."""
    return {
        "tableau": view["tableau"],
        "foundations": [pile[-1:] for pile in view["foundations"]],
        "reserve": [view["reserve"]["top"]] if view["reserve"]["top"] else [],
        "waste": view["waste"]["fan"],
        "stock": view["stock"]["count"],
        "score": view["score"],
    }


def guessable(game: Game) -> Iterator[Move]:
    """The moves the page shows at once here: legal, no draw, nothing turned up."""
    for move in game.legal_moves():
        after = game.copy()
        after.push(move)
        if move.src != "S" and not reveals(game.view(), after.view()):
            yield move


def race_to(page: Page, base: str, moves: list[str]) -> tuple[str, Game]:
    """A solo race on DEAL with ``moves`` played on the page, every one answered."""
    solo_race(page, base, DEAL)
    room = page.url.rsplit("/", 1)[1]
    line = line_of(DEAL, moves)
    page.evaluate(PLAY, [line.steps, None])
    expect(leaderboard_row(page, "Ana").locator("td.c-moves")).to_have_text(
        str(sum(m != "U" for m in moves))
    )
    return room, line.game


def test_several_moves_in_flight_show_at_once_and_land_in_order(
    browser: Browser, base: str
) -> None:
    line = solve(DEAL, 30).moves or []
    # the first position of the winning line with three moves in a row to guess
    for played in range(len(line)):
        game = Game.replay(DEAL, line[:played])
        three: list[str] = []
        for _ in range(3):
            move = next(guessable(game), None)
            if move is None:
                break
            three.append(move.text())
            game.push(move)
        if len(three) == 3:
            break
    page = new_page(browser)
    socket = HeldSocket(page)
    _, start = race_to(page, base, line[:played])
    before = len(socket.actions())
    socket.holding = True
    page.evaluate(PLAY, [line_of(start, three).steps, None])
    # all three on the board with no answer in: the server's answers are held
    assert page.evaluate(SHOWN) == shown_as(game.view())
    sent = socket.actions()[before:]
    assert [(m["seq"], m["move"]) for m in sent] == [
        (played + n, text) for n, text in enumerate(three, 1)
    ]
    assert socket.held == [] or all(json.loads(m)["type"] == "ack" for m in socket.held)
    socket.release()
    # the answers land in order: the board is the server's, the leaderboard counts them
    expect(leaderboard_row(page, "Ana").locator("td.c-moves")).to_have_text(str(played + 3))
    expect(page.locator("#board")).to_be_visible()
    assert page.evaluate(SHOWN) == shown_as(game.view())
    assert page.locator("#toast").is_hidden()


def test_a_refused_guess_goes_back_to_the_servers_board(
    browser: Browser, shared_server: ServerProcess, base: str
) -> None:
    """Another tab of Ana's seat plays first, and the page hears of it late (its
    link is slow): the page's guessed moves were made on a board that is no more;
    the other tab's board comes in, the server answers the first with its own
    move (a duplicate) and refuses the second; the page shows the server's board."""
    line = solve(DEAL, 30).moves or []
    found = None
    for played in range(len(line)):
        game = Game.replay(DEAL, line[:played])
        for first in guessable(game):
            stale = game.copy()
            stale.push(first)
            for second in guessable(stale):
                for other in game.legal_moves():
                    real = game.copy()
                    real.push(other)
                    if other.src != "S" and other != first and not real.is_legal(second):
                        found = (first, second, other, stale, real)
                        break
                if found:
                    break
            if found:
                break
        if found:
            break
    assert found, "the winning line passes such a position"
    first, second, other, stale, real = found
    page = new_page(browser)
    socket = HeldSocket(page)
    room, _ = race_to(page, base, line[:played])
    seat = json.loads(page.evaluate(f"sessionStorage.getItem('cfr.seat.{room}')"))
    socket.holding = True
    with connect(shared_server.ws_url, open_timeout=10) as tab:
        tab.send(json.dumps({"type": "resume", "room": room, "token": seat["token"]}))
        joined = next_of(tab, "joined")
        tab.send(json.dumps({"type": "move", "seq": joined["last_seq"] + 1, "move": other.text()}))
        assert next_of(tab, "ack")["board"]["tableau"] == real.view()["tableau"]
    page.evaluate(PLAY, [line_of(game, [first.text(), second.text()]).steps, None])
    stale.push(second)
    assert page.evaluate(SHOWN) == shown_as(stale.view())  # both shown at once
    socket.release()
    expect(page.locator("#toast")).to_be_visible()
    page.wait_for_function(
        "(want) => JSON.stringify((" + SHOWN + ")()) === JSON.stringify(want)",
        arg=shown_as(real.view()),
    )
    # and the race goes on from the server's board: the next move lands
    nxt = next(guessable(real))
    page.evaluate(PLAY, [line_of(real, [nxt.text()]).steps, None])
    real.push(nxt)
    expect(leaderboard_row(page, "Ana").locator("td.c-moves")).to_have_text(str(played + 2))
    assert page.evaluate(SHOWN) == shown_as(real.view())


def test_a_whole_race_through_a_far_link(
    browser: Browser, shared_server: ServerProcess, tmp_path: Path
) -> None:
    """The solver's winning line played through the page 200 ms away: the race
    completes, won, and the board before the results is the server's."""
    moves = solve(DEAL, 30).moves or []
    page = new_page(browser)
    proxy = DelayProxy(shared_server.port, 200, tmp_path).start()
    try:
        race_to(page, proxy.http_url, moves[:-1])
        assert page.evaluate(SHOWN) == shown_as(Game.replay(DEAL, moves[:-1]).view())
        page.evaluate(
            PLAY, [line_of(Game.replay(DEAL, moves[:-1]), moves[-1:]).steps, "#view-results"]
        )
    finally:
        proxy.stop()
    expect(page.locator("#view-results")).to_be_visible()
    expect(leaderboard_row(page, "Ana").locator("td.c-cards")).to_have_text("52")


def next_of(tab: Any, kind: str) -> dict[str, Any]:
    while True:
        msg = json.loads(tab.recv(timeout=30))
        if msg["type"] == kind:
            return msg
