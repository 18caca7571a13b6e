"""Move notation (docs/moves.md) and bad input: malformed and illegal moves."""

from __future__ import annotations

import canfield
import pytest
from canfield import (
    CanfieldError,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    NothingToUndoError,
)
from canfield.moves import _CACHE, DRAW, parse_move


def test_every_canonical_move_text_round_trips() -> None:
    assert len(_CACHE) > 200
    for text, move in _CACHE.items():
        assert move.text() == text == str(move)
        assert Move.parse(text) == move
        assert eval(repr(move), {"Move": Move}) == move


@pytest.mark.parametrize(
    ("text", "canonical", "move"),
    [
        ("S", "S", DRAW),
        (" s ", "S", DRAW),
        ("R-F", "R-F", Move("R", 0, 1, "F", 0)),
        ("w-3", "W-3", Move("W", 0, 1, "T", 2)),
        ("2-F", "2-F", Move("T", 1, 1, "F", 0)),
        ("2-4", "2-4", Move("T", 1, 1, "T", 3)),
        ("2:3-4", "2:3-4", Move("T", 1, 3, "T", 3)),
        ("2:1-4", "2-4", Move("T", 1, 1, "T", 3)),
        ("1:27-2", "1:27-2", Move("T", 0, 27, "T", 1)),
        ("f1-3", "F1-3", Move("F", 0, 1, "T", 2)),
        ("  4:2-1  ", "4:2-1", Move("T", 3, 2, "T", 0)),
    ],
)
def test_parse_and_format(text: str, canonical: str, move: Move) -> None:
    parsed = Move.parse(text)
    assert parsed == move
    assert parsed.text() == canonical


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "not a move"),
        ("X", "not a move"),
        ("W", "not a move"),
        ("W-", "not a move"),
        ("-F", "not a move"),
        ("5-1", "not a column"),
        ("0-1", "not a column"),
        ("1-5", "not a column"),
        ("1-X", "not a column"),
        ("F5-1", "not a foundation"),
        ("F-1", "not a foundation"),
        ("1:0-2", "card count"),
        ("1:53-2", "card count"),
        ("1:x-2", "card count"),
        ("1:2-F", "only a single card"),
        ("W-F-1", "not a column"),
        ("S-1", "not a column"),
        ("U", "undo"),
        ("1" * 30, "too long"),
    ],
)
def test_malformed_moves_say_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    assert says in str(info.value)


def test_a_move_must_be_text() -> None:
    with pytest.raises(InvalidMoveError, match="text"):
        Move.parse(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "move",
    [
        Move("W"),  # no target
        Move("W", 0, 3, "T", 1),  # a run from the waste
        Move("R", 0, 2, "F", 0),
        Move("T", 0, 0, "T", 1),  # no cards
        Move("T", 7, 1, "T", 1),
        Move("T", -1, 1, "T", 1),
        Move("T", 0, 1, "T", 4),
        Move("T", 0, 1, "X", 0),
        Move("F", 9, 1, "T", 0),
        Move("Q", 0, 1, "T", 0),
    ],
)
def test_malformed_move_values_are_refused_and_change_nothing(move: Move) -> None:
    game = Game.deal("CF1-D3-AAAAACL")
    before = game.to_dict()
    with pytest.raises(InvalidMoveError):
        game.push(move)
    assert not game.is_legal(move)
    assert game.to_dict() == before


def test_illegal_moves_name_the_rule_and_change_nothing() -> None:
    game = Game.deal("CF1-D3-AAAAACL")  # base 2C; columns 9C 7S AH 6H
    game.push_text("S")
    before = game.to_dict()
    for text, rule in [
        ("1-2", "column-build"),
        ("4-F", "foundation-build"),
        ("1:2-3", "column-too-short"),
        ("F2-1", "foundation-empty"),
        ("F1-F", "foundation-to-column"),
        ("W-R", "reserve-no-build"),
        ("1-W", "waste-no-build"),
        ("1-1", "same-column"),
    ]:
        with pytest.raises(IllegalMoveError) as info:
            game.push_text(text)
        assert info.value.rule == rule, text
        assert str(info.value)
        assert game.to_dict() == before


def test_empty_sources_are_illegal() -> None:
    game = Game.from_layout(
        foundations=[["7H"], [], [], []], tableau=[["9C"], ["3D"], [], []], stock=["2C"]
    )
    for text, rule in [
        ("R-1", "reserve-empty"),
        ("W-1", "waste-empty"),
        ("3-1", "column-too-short"),
    ]:
        with pytest.raises(IllegalMoveError) as info:
            game.push_text(text)
        assert info.value.rule == rule


def test_undo_with_nothing_to_undo() -> None:
    game = Game.deal("CF1-D1-ZZZZZZZ")
    before = game.to_dict()
    with pytest.raises(NothingToUndoError):
        game.pop()
    with pytest.raises(NothingToUndoError):
        game.play_text("u")
    assert game.to_dict() == before


def test_replay_entries_mix_moves_and_undos() -> None:
    game = Game.deal("CF1-D3-AAAAACL")
    assert game.play_text("S") == DRAW
    assert game.play_text(" U ") is None
    # all as dealt, except that the player has now seen three stock cards
    assert game.talon_seen == 3
    game.talon_seen = 0
    assert game.to_dict() == Game.deal("CF1-D3-AAAAACL").to_dict()
    replayed = Game.replay("CF1-D3-AAAAACL", ["S", "S", "U", "S"])
    assert replayed.to_dict() == Game.replay("CF1-D3-AAAAACL", ["S", "S"]).to_dict()


def test_replay_from_a_position_plays_on_a_copy() -> None:
    start = Game.replay("CF1-D3-AAAAACL", ["S", "S"])
    before = start.to_dict()
    later = Game.replay(start, ["S", "U", "S"])
    assert start.to_dict() == before
    assert later.to_dict() == Game.replay("CF1-D3-AAAAACL", ["S", "S", "S"]).to_dict()
    with pytest.raises(NothingToUndoError):
        Game.replay("CF1-D3-AAAAACL", ["U"])


def test_every_error_is_a_value_error() -> None:
    for name in (
        "InvalidDealCodeError",
        "InvalidCardError",
        "InvalidMoveError",
        "IllegalMoveError",
        "NothingToUndoError",
    ):
        error = getattr(canfield, name)
        assert issubclass(error, CanfieldError)
        assert issubclass(error, ValueError)


def test_public_names_are_exported() -> None:
    for name in canfield.__all__:
        assert hasattr(canfield, name), name
    for name in ("Game", "Move", "DealCode", "parse_card", "card_text", "UNDO_LIMIT"):
        assert name in canfield.__all__


@pytest.mark.parametrize("text", ["W-F\t", "\tS", "S\n", "\n1-2", "\r\nS", "S\x0b", "\x0cS"])
def test_only_plain_spaces_may_surround_a_move(text: str) -> None:
    """docs/moves.md: spaces (U+0020) around a move; a tab or a line break is refused."""
    with pytest.raises(InvalidMoveError):
        parse_move(text)
    assert parse_move(f"  {text.strip()}  ") == parse_move(text.strip())
