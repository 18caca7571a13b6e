"""Scoring, foundation take-backs and undo (rule book: Scoring, Undo)."""

from __future__ import annotations

import pytest
from canfield import (
    POINTS_PER_CARD,
    UNDO_LIMIT,
    WIN_SCORE,
    Game,
    IllegalMoveError,
    Move,
    NothingToUndoError,
    parse_card,
)
from canfield.cards import RANKS
from canfield.game import UndoRecord


def easy_deck() -> list[int]:
    """A deck in canonical deal order that plays out straight to a win.

    Base AC; reserve KC..2C under a 2S on top; columns AD AH AS 2D; the
    stock turns 3D..KD, 2H..KH, 3S..KS in that order.
    """
    text = [f"{r}C" for r in reversed(RANKS[1:])] + ["2S", "AC", "AD", "AH", "AS", "2D"]
    text += [f"{r}D" for r in RANKS[2:]] + [f"{r}H" for r in RANKS[1:]]
    text += [f"{r}S" for r in RANKS[2:]]
    return [parse_card(t) for t in text]


def play_out(game: Game, limit: int = 2000) -> list[Move]:
    """Greedy: any foundation play, else the stock. Returns the moves made."""
    made: list[Move] = []
    while not game.is_won and len(made) < limit:
        move = next(m for m in game.legal_moves() if m.dst == "F" or m.src == "S")
        game.push(move)
        made.append(move)
    return made


def test_clean_win_scores_255() -> None:
    game = Game.from_deck(easy_deck(), draw=1)
    assert game.score == 0 and game.on_foundations == 1
    moves = play_out(game)
    assert game.is_won
    assert game.score == WIN_SCORE == 255
    assert sum(m.dst == "F" for m in moves) == 51


def test_take_back_costs_nothing_and_playing_again_scores_again() -> None:
    game = Game.from_layout(
        foundations=[["7H", "8H"], [], [], []],
        tableau=[["TS"], ["9C"], ["3D"], ["4D"]],
        waste=["9H"],
    )
    game.push_text("W-F")
    assert (game.score, game.on_foundations) == (5, 3)
    game.push_text("F1-1")  # the 9H back onto the TS: no points lost
    assert (game.score, game.on_foundations) == (5, 2)
    assert game.view()["tableau"][0] == ["TS", "9H"]
    game.push_text("1-F")  # up again: scores again
    assert (game.score, game.on_foundations) == (10, 3)
    scores = []
    while game.can_undo:
        game.pop()
        scores.append(game.score)
    assert scores == [5, 5, 0]


def test_foundation_top_goes_back_onto_a_column_by_the_column_rules() -> None:
    game = Game.from_layout(
        foundations=[["7H", "8H"], [], [], []],
        reserve=["KD"],
        tableau=[["9S"], ["9D"], ["3D"], ["4D"]],
    )
    for text in ("F1-2", "F1-3"):
        with pytest.raises(IllegalMoveError) as info:
            game.push_text(text)
        assert info.value.rule == "column-build"
    with pytest.raises(IllegalMoveError) as info:
        game.push_text("F2-1")
    assert info.value.rule == "foundation-empty"
    game.push_text("F1-1")
    assert game.view()["tableau"][0] == ["9S", "8H"]
    assert game.view()["foundations"][0] == ["7H"]
    assert game.on_foundations == 1


def test_undo_takes_back_the_points_of_the_undone_move() -> None:
    game = Game.from_layout(
        foundations=[["7H"], [], [], []],
        tableau=[["8H"], ["9C"], ["3D"], ["4D"]],
        reserve=["KS"],
    )
    game.push_text("1-F")
    assert game.score == POINTS_PER_CARD
    game.pop()
    assert game.score == 0
    assert game.view()["tableau"][0] == ["8H"]
    assert game.view()["reserve"]["count"] == 1  # the refill was undone too


def test_score_never_goes_below_zero() -> None:
    game = Game.from_layout(
        foundations=[["7H"], [], [], []],
        tableau=[["8H"], ["9C"], ["8S"], ["4D"]],
    )
    scores = [game.score]
    for text in ("1-F", "F1-2"):  # up (+5), then back down (no loss)
        game.push_text(text)
        scores.append(game.score)
    while game.can_undo:
        game.pop()
        scores.append(game.score)
    with pytest.raises(NothingToUndoError):
        game.pop()
    scores.append(game.score)
    assert scores == [0, 5, 5, 5, 0, 0]


def test_undo_reaches_back_exactly_100_actions() -> None:
    game = Game.deal("CF1-D1-AAAAACL")
    for _ in range(UNDO_LIMIT + 5):
        game.push_text("S")
    for _ in range(UNDO_LIMIT):
        game.pop()
    with pytest.raises(NothingToUndoError):
        game.pop()
    fresh = Game.deal("CF1-D1-AAAAACL")
    for _ in range(5):
        fresh.push_text("S")
    fresh.history.clear()
    # the 34 stock cards all passed the waste once: undo does not unsee them
    assert (game.talon_seen, fresh.talon_seen) == (34, 5)
    fresh.talon_seen = 34
    assert game.to_dict() == fresh.to_dict()
    assert not game.can_undo


def test_each_action_leaves_a_named_undo_record() -> None:
    game = Game.from_deck(easy_deck())
    game.push(Move.parse("1-F"))  # AD opens foundation 2; the reserve refills column 1
    game.push(Move.parse("S"))
    up, tap = game.history
    assert isinstance(up, UndoRecord) and isinstance(tap, UndoRecord)
    assert (up.move.text(), up.slot, up.points, up.refilled) == ("1-F", 1, POINTS_PER_CARD, True)
    assert (tap.move.text(), tap.slot, tap.points, tap.drawn) == ("S", -1, 0, 3)
    assert Game.from_dict(game.to_dict()).history == game.history
