"""Tap-to-move: where the app sends a tapped card (docs/rules.md, "The tap rule")."""

from __future__ import annotations

from canfield import Game, parse_card


def tap(game: Game, card: str, double_click: bool = True) -> str | None:
    move = game.tap_move(parse_card(card), double_click)
    if move is not None:
        assert game.is_legal(move)
        return move.text()
    return None


def test_foundation_comes_first() -> None:
    game = Game.from_layout(
        foundations=[["7H"], [], [], []],
        reserve=["KC"],
        tableau=[["9S"], ["2D"], ["3D"], ["4D"]],
        waste=["8H"],
    )
    assert tap(game, "8H") == "W-F"
    assert tap(game, "8H", double_click=False) == "W-F"


def test_longest_accepting_column_wins() -> None:
    game = Game.from_layout(
        foundations=[["7H"], [], [], []],
        reserve=["KC"],
        tableau=[["7S"], ["JD", "9D", "7C"], ["3D"], ["4D"]],
        waste=["6H"],
    )
    assert tap(game, "6H") == "W-2"


def test_equally_long_columns_go_to_the_leftmost() -> None:
    game = Game.from_layout(
        foundations=[["7H"], [], [], []],
        reserve=["KC"],
        tableau=[["2D"], ["TD", "7S"], ["3D"], ["QD", "7C"]],
        waste=["6H"],
    )
    assert tap(game, "6H") == "W-2"


def test_an_empty_column_when_no_column_accepts() -> None:
    game = Game.from_layout(
        foundations=[["7H"], [], [], []],
        tableau=[["9S"], ["3D"], [], []],
        waste=["2D"],
    )
    assert tap(game, "2D") == "W-3"  # the leftmost empty column
    game.tableau[3].append(parse_card("3C"))
    assert tap(game, "2D") == "W-4"  # a column that accepts beats an empty one


def test_double_click_off_sends_to_the_foundation_only() -> None:
    game = Game.from_layout(
        foundations=[["7H"], [], [], []],
        tableau=[["7S"], ["3D"], [], ["4D"]],
        waste=["6H"],
    )
    assert tap(game, "6H") == "W-1"
    assert tap(game, "6H", double_click=False) is None


def test_a_tapped_column_card_moves_with_the_cards_on_it() -> None:
    game = Game.from_layout(
        foundations=[["7H"], [], [], []],
        reserve=["KC"],
        tableau=[["9C", "8D", "7S"], ["9S"], ["3D"], ["4D"]],
    )
    assert tap(game, "8D") == "1:2-2"
    assert tap(game, "9C") is None  # nothing takes a black nine
    assert tap(game, "3D") is None


def test_a_whole_column_never_moves_to_an_empty_one() -> None:
    game = Game.from_layout(
        foundations=[["7H"], [], [], []],
        tableau=[["7D", "6S"], [], ["3D"], ["4D"]],
    )
    assert tap(game, "7D") is None
    assert tap(game, "6S") == "1-2"


def test_cards_that_cannot_be_picked_up_go_nowhere() -> None:
    game = Game.from_layout(
        foundations=[["7H", "8H"], [], [], []],
        reserve=["6S", "JC"],
        tableau=[["9C", "4D", "9S"], ["9H"], ["3D"], ["QD"]],
        stock=["5C"],
        waste=["TD", "JS"],
    )
    for card in ("6S", "5C", "TD", "4D", "8H", "7H"):  # under tops, stock, foundation
        assert tap(game, card) is None, card
    assert tap(game, "JC") == "R-4"
