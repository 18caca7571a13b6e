"""has_useful_move: the interface's "no useful move left" note, never a false alarm."""

from __future__ import annotations

from canfield import RANKS, Game, Move
from canfield.analysis import has_useful_move

from tests.shared.test_solver import dead_position


def back_and_forth(stock: tuple[str, ...] = ("7C", "KH")) -> Game:
    """Moves exist (the 9H shuttles between the black tens) but none gets anywhere."""
    return Game.from_layout(
        foundations=[[r + "D" for r in RANKS[:7]], [], [], []],
        reserve=["AS", "QC"],
        tableau=[["TS", "9H"], ["TC"], ["3H"], ["5S"]],
        stock=list(stock),
        draw=1,
    )


def test_fresh_deal_has_a_useful_move() -> None:
    game = Game.deal("CF1-D3-AAADKOH")
    assert any(True for _ in game.legal_moves())
    assert has_useful_move(game)


def test_stock_cycling_alone_is_not_useful() -> None:
    game = dead_position()
    assert [m.text() for m in game.legal_moves()] == ["S"]
    assert not has_useful_move(game)


def test_back_and_forth_is_not_useful() -> None:
    game = back_and_forth()
    moves = {m.text() for m in game.legal_moves()}
    assert "1-2" in moves
    assert not has_useful_move(game)


def test_one_step_away_is_useful() -> None:
    # the 8D deep in the stock can go up on the 7D after a few taps
    game = back_and_forth(("8D", "7C", "KH"))
    assert not any(m.dst == "F" for m in game.legal_moves())
    assert has_useful_move(game)


def test_has_useful_move_never_changes_the_game() -> None:
    game = Game.deal("CF1-D3-AAAHXSB")
    game.push(Move.parse("S"))
    before = game.to_dict()
    has_useful_move(game)
    assert game.to_dict() == before
    dead = dead_position()
    before = dead.to_dict()
    has_useful_move(dead)
    assert dead.to_dict() == before
