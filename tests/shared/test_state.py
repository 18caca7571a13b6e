"""Building, copying and serialising games; bad layouts and decks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from canfield import CanfieldError, Game, InvalidCardError, parse_card


def test_copy_is_independent() -> None:
    game = Game.deal("CF1-D3-AAAAACL")
    game.push_text("S")
    other = game.copy()
    assert other == game
    other.push_text("4-2")
    other.pop()
    other.pop()
    assert game.to_dict()["waste"] == "KCASAC"
    assert other.to_dict()["waste"] == ""
    assert game.can_undo and not other.can_undo


def test_to_dict_is_compact_json_and_round_trips() -> None:
    game = Game.replay("CF1-D1-HELLOCF", ["S", "S", "U", "S"])
    data = game.to_dict()
    assert data["base"] == "KD"
    assert data["reserve"] == "9DAS7H2H8H4D8D6HJSJHKC3D6S"
    text = json.dumps(data)
    assert len(text) < 600
    assert Game.from_dict(json.loads(text)) == game


def test_hand_built_layout_without_base_card_knows_its_base_suit_only_if_told() -> None:
    told = Game.from_layout(base_rank="7", base_suit="h", tableau=[["7S"], ["7H"], [], []])
    assert told.to_dict()["base"] == "7H"
    told.push_text("1-F")
    assert [len(p) for p in told.foundations] == [0, 1, 0, 0]  # 1 is kept for hearts
    told.push_text("2-F")
    assert [len(p) for p in told.foundations] == [1, 1, 0, 0]
    untold = Game.from_layout(base_rank="7", tableau=[["7S"], [], [], []])
    assert untold.to_dict()["base"] == "7"
    untold.push_text("1-F")
    assert [len(p) for p in untold.foundations] == [1, 0, 0, 0]
    assert Game.from_dict(untold.to_dict()) == untold


@pytest.mark.parametrize(
    "kwargs",
    [
        {"tableau": [["7S"], ["7S"], [], []], "base_rank": "7"},  # a card twice
        {"tableau": [["7S"], [], [], []]},  # no base rank, no base card
        {"tableau": [["7X"], [], [], []], "base_rank": "7"},  # not a card
    ],
)
def test_bad_layouts_are_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidCardError):
        Game.from_layout(**kwargs)


def test_layouts_need_four_columns_four_foundations_and_a_draw_mode() -> None:
    with pytest.raises(CanfieldError):
        Game.from_layout(base_rank="7", tableau=[["7S"]])
    with pytest.raises(CanfieldError, match="draw mode"):
        Game.from_layout(base_rank="7", draw=2)


def test_from_deck_needs_all_52_cards_once() -> None:
    deck = list(range(52))
    assert Game.from_deck(deck).view()["foundations"][0] == ["4D"]  # deck[13] = 3*4+1
    with pytest.raises(InvalidCardError):
        Game.from_deck(deck[:51])
    with pytest.raises(InvalidCardError):
        Game.from_deck(deck[:51] + [0])


def test_card_text_parsing() -> None:
    assert parse_card(" 7h ") == parse_card("7H")
    assert parse_card("10s") == parse_card("TS")
    for bad in ("", "1S", "7", "7HH", "ZZ"):
        with pytest.raises(InvalidCardError):
            parse_card(bad)


def test_position_key_counts_foundations_per_suit_not_per_slot() -> None:
    spades_second = Game.from_layout(
        foundations=[["7H"], ["7S"], [], []], tableau=[["KC"], [], [], []], base_rank="7"
    )
    clubs_second = Game.from_layout(
        foundations=[["7H"], ["7C"], [], []], tableau=[["KS"], [], [], []], base_rank="7"
    )
    clubs_third = Game.from_layout(
        foundations=[["7H"], [], ["7C"], []], tableau=[["KS"], [], [], []], base_rank="7"
    )
    # same counts per slot, different suits home: different positions
    assert spades_second.position_key() != clubs_second.position_key()
    # the same suits home in other slots: the same position
    assert clubs_second.position_key() == clubs_third.position_key()
