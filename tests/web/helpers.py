"""What several browser test files share: the daily's date and settings, "Race
now" from the home page, a room race's story (two cards home,
start once everyone is ready; give up is in ``pages.py``), and the page's
WebSocket through the test, the server's frames of some kinds held back.

Test files import from here (or from ``conftest.py`` and ``pages.py``), never
from another test file (``tests/test_architecture.py`` checks that).
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from canfield import Game, Move
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.server.helpers import rate_far
from tests.web.pages import picked_card, wait_board

DAY = "2031-03-14"


def daily_env(date: str) -> dict[str, str]:
    return {"CANFIELD_DAILY_DATE": date, "CANFIELD_DAILY_SECRET": "browser-test-secret"}


def race_now(page: Page, base: str, name: str, draw: int = 3) -> None:
    ready_to_race(page, base, name)
    press_race_now(page, draw)


def ready_to_race(page: Page, base: str, name: str) -> None:
    """The home page open with a name typed: one press from asking for a race."""
    page.goto(base + "/")
    page.fill("#name", name)


def press_race_now(page: Page, draw: int = 3) -> None:
    """Race now (a page ``ready_to_race``), and on to the race's page."""
    page.click(f"#quick-{draw}")
    page.wait_for_url("**/r/*")


def rated_far(page: Page, base: str, redis_url: str) -> None:
    """This page's identity rated far above newcomers (matched at 1600 in Draw 3),
    stored in the server's Redis."""
    page.goto(base + "/")
    page.wait_for_function("localStorage.getItem('cfr.identity')")
    token = json.loads(page.evaluate("localStorage.getItem('cfr.identity')"))["token"]
    with ThreadPoolExecutor(1) as aside:  # the page's event loop runs in this thread
        aside.submit(asyncio.run, rate_far(redis_url, token)).result()


#: two columns' cards go straight home by a tap: 3 cards on the foundations
DEAL = "CF1-D3-AAAAAAS"
HOME_MOVES = ["1-F", "2-F"]


def play_home(page: Page) -> Game:
    """Tap the deal's two cards that go to a foundation; the engine follows along."""
    game = Game.deal(DEAL)
    for text in HOME_MOVES:
        move = Move.parse(text)
        page.locator(f'#board .card[data-card="{picked_card(game, move)}"]').click(
            position={"x": 12, "y": 8}
        )
        game.push(move)
        expect(page.locator("#score")).to_have_text(str(game.score))
    return game


def start_race(host: Page, guests: list[Page]) -> None:
    for guest in guests:
        guest.click("#ready")
    expect(host.locator("#players .ready-mark.on")).to_have_count(len(guests))
    host.click("#start")
    wait_board(host)
    for guest in guests:
        wait_board(guest)


class HeldSocket:
    """The page's WebSocket through the test: what the page sends is noted, and
    the server's frames of the kinds ``held`` wait while ``holding`` (by default
    its word on the board: answers to board actions, and the board another tab
    of the seat played to), to reach the page in order on ``release``. Made
    before the page opens its WebSocket (a route serves the sockets opened after it)."""

    def __init__(self, page: Page, held: tuple[str, ...] = ("ack", "error", "board")) -> None:
        self.sent: list[dict[str, Any]] = []
        self.kinds = held
        self.held: list[str] = []
        self.holding = False
        self.route: WebSocketRoute | None = None
        page.route_web_socket("**/ws", self.relay)

    def relay(self, route: WebSocketRoute) -> None:
        self.route = route
        server = route.connect_to_server()

        def up(message: str | bytes) -> None:
            self.sent.append(json.loads(message))
            server.send(message)

        def down(message: str | bytes) -> None:
            kind = json.loads(message)["type"]
            if self.holding and kind in self.kinds:
                self.held.append(str(message))
            else:
                route.send(message)

        route.on_message(up)
        server.on_message(down)

    def release(self) -> None:
        self.holding = False
        assert self.route is not None
        for message in self.held:
            self.route.send(message)
        self.held = []

    def actions(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if "seq" in m]
