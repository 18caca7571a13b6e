"""The page's guesses of its own actions agree with the engine, in real Chromium.

The race page shows a move or a tap at once when it turns up no hidden card
(``web/js/predict.js``), and waits for the server otherwise. Over random
games in both draw modes, for every legal move, every tap on every card the
board shows (double click on and off) and illegal moves besides: the page
guesses exactly when the engine takes the action and the next board shows no
card the board before did not, and then its board is the engine's, to the
last field.
"""

from __future__ import annotations

import random
from typing import Any

from canfield import Game, Move
from canfield.cards import SUITS, parse_card
from canfield_bench.distance import reveals, shown_cards
from playwright.sync_api import Page

CODES = ["CF1-D3-AAADKOH", "CF1-D1-AAAAACL", "CF1-D3-AAAAAGH", "CF1-D1-ABCDEFG"]
ACTIONS = 80

GUESS = """async (positions) => {
    const { guess } = await import('/js/predict.js');
    return positions.map(([board, baseSuit, actions]) =>
        actions.map((action) => guess(board, action, baseSuit)));
}"""


def expected(game: Game, action: dict[str, Any]) -> dict[str, Any] | None:
    """What the page should guess: the engine's board and move, or None."""
    after = game.copy()
    if action["type"] == "tap":
        move = after.tap_move(parse_card(action["card"]), action["double_click"])
        if move is None:
            return None
    else:
        try:
            move = Move.parse(action["move"])
        except ValueError:
            return None
    if not after.is_legal(move):
        return None
    after.push(move)
    view = after.view()
    return None if reveals(game.view(), view) else {"board": view, "move": move.text()}


def actions_at(game: Game, rng: random.Random) -> list[dict[str, Any]]:
    legal = [m.text() for m in game.legal_moves()]
    wrong = [f"{s}-{t}" for s in ("R", "W", "1", "2:2", "3", "F1", "F2") for t in "F1234"]
    moves = legal + rng.sample(wrong, 8)
    taps = [
        {"type": "tap", "card": card, "double_click": double}
        for card in sorted(shown_cards(game.view()))
        for double in (True, False)
    ]
    return [{"type": "move", "move": text} for text in moves] + taps


def test_the_page_guesses_exactly_the_boards_it_can_know(module_page: Page) -> None:
    rng = random.Random(36)
    positions: list[tuple[dict[str, Any], str, list[dict[str, Any]]]] = []
    wanted: list[list[dict[str, Any] | None]] = []
    for code in CODES:
        game = Game.deal(code)
        base = SUITS[game.base_suit]
        for _ in range(ACTIONS):
            actions = actions_at(game, rng)
            positions.append((game.view(), base, actions))
            wanted.append([expected(game, action) for action in actions])
            moves = [m for m in game.legal_moves() if m.text() != "S"]
            if game.can_undo and rng.random() < 0.1:
                game.pop()
            else:
                game.push(rng.choice(moves) if moves and rng.random() < 0.7 else Move.parse("S"))
    got = module_page.evaluate(GUESS, positions)
    guessed = sum(1 for row in wanted for one in row if one)
    assert guessed > 300, "many actions turn up nothing"
    for (board, _, asked), mine, engine in zip(positions, got, wanted, strict=True):
        for action, page_guess, right in zip(asked, mine, engine, strict=True):
            assert page_guess == right, (board, action)
