"""One test (or more) per rule of the rule book, on hand-built positions.

Each test builds the smallest position that shows the rule with
``Game.from_layout`` (cards as text, piles bottom first) and checks what
the engine allows, refuses, and leaves behind.
"""

from __future__ import annotations

import pytest
from canfield import (
    Game,
    IllegalMoveError,
    Move,
    parse_card,
)
from canfield.cards import RANKS
from canfield.moves import DRAW


def tops(game: Game) -> list[str]:
    """The text of every foundation's top card ('' when empty)."""
    return [game.view()["foundations"][i][-1] if p else "" for i, p in enumerate(game.foundations)]


def play(game: Game, *texts: str) -> None:
    for text in texts:
        game.push_text(text)


def refused(game: Game, text: str) -> str:
    """Play ``text``, expect a refusal that changes nothing; return the rule."""
    before = game.to_dict()
    with pytest.raises(IllegalMoveError) as info:
        game.push_text(text)
    assert game.to_dict() == before
    assert not game.is_legal(Move.parse(text))
    assert Move.parse(text) not in set(game.legal_moves())
    return info.value.rule


# ------------------------------------------------------------------ worked examples


def test_source_example_ace_of_spades_cannot_start_the_spades_foundation() -> None:
    """Base 7H: the AS in column 4 cannot start spades; only the 7S can."""
    game = Game.from_layout(
        reserve=["2C", "QS"],
        foundations=[["7H"], [], [], []],
        tableau=[["9C"], ["KH"], ["5D"], ["AS"]],
        waste=["7S"],
    )
    assert game.base_rank == RANKS.index("7")
    assert refused(game, "4-F") == "foundation-build"
    game.push_text("W-F")
    assert tops(game) == ["7H", "7S", "", ""]


def test_source_example_king_with_queen_moves_onto_ace_and_reserve_refills() -> None:
    """KH with QC on it goes onto the AS; column 2 empties; the QS fills it."""
    game = Game.from_layout(
        reserve=["2C", "QS"],
        foundations=[["7H"], [], [], []],
        tableau=[["9C"], ["KH", "QC"], ["5D"], ["AS"]],
    )
    before = game.to_dict()
    game.push_text("2:2-4")
    assert game.view()["tableau"] == [["9C"], ["QS"], ["5D"], ["AS", "KH", "QC"]]
    assert game.view()["reserve"] == {"top": "2C", "count": 1}
    # undo takes back the refill with the move, as one action
    game.pop()
    assert game.to_dict() == before
    assert not game.can_undo


# ------------------------------------------------------------------ reserve


def test_only_the_reserve_top_plays() -> None:
    game = Game.from_layout(
        reserve=["6H", "8H"],
        foundations=[["7H"], [], [], []],
        tableau=[["9C"], ["KH"], ["5D"], ["7S"]],
    )
    # 6H (under the top) would fit on 7S, but only the 8H can be taken
    assert game.locate(parse_card("6H")) is None
    assert game.tap_move(parse_card("6H")) is None
    assert [m.text() for m in game.legal_moves() if m.src == "R"] == ["R-F", "R-1"]
    game.push_text("R-1")
    assert game.view()["reserve"] == {"top": "6H", "count": 1}
    game.push_text("R-4")  # the next card is playable now
    assert game.tableau[3][-1] == parse_card("6H")


def test_nothing_is_placed_on_the_reserve() -> None:
    game = Game.from_layout(
        reserve=["KC"],
        foundations=[["7H"], [], [], []],
        tableau=[["QH"], ["2D"], ["5D"], ["AS"]],
        waste=["QD"],
    )
    assert refused(game, "W-R") == "reserve-no-build"
    assert refused(game, "1-R") == "reserve-no-build"
    assert all(m.dst != "R" for m in game.legal_moves())


def test_reserve_refill_happens_only_for_the_emptied_column() -> None:
    game = Game.from_layout(
        reserve=["2C", "3D"],
        foundations=[["7H"], [], [], []],
        tableau=[["9C"], ["8H"], ["5D"], ["AS"]],
    )
    game.push_text("2-1")
    assert game.view()["tableau"] == [["9C", "8H"], ["3D"], ["5D"], ["AS"]]
    assert len(game.reserve) == 1
    assert refused(game, "1:2-2") == "column-build"


# ------------------------------------------------------------------ empty columns


def test_empty_column_refuses_cards_while_the_reserve_holds_cards() -> None:
    # a hand-built position only: in play the reserve refills a column at once
    game = Game.from_layout(
        reserve=["2C"],
        foundations=[["7H"], [], [], []],
        tableau=[["9C", "8D"], [], ["5D"], ["AS"]],
        waste=["JC"],
    )
    assert refused(game, "W-2") == "empty-column-reserved"
    assert refused(game, "1:2-2") == "empty-column-reserved"
    assert refused(game, "F1-2") == "empty-column-reserved"


def test_empty_column_takes_any_card_or_run_once_the_reserve_is_empty() -> None:
    game = Game.from_layout(
        foundations=[["7H"], [], [], []],
        tableau=[["9C", "8D", "7S"], [], ["5D"], ["AS"]],
        waste=["JC"],
    )
    for text in ("W-2", "1-2", "1:2-2", "1:3-2", "3-2", "F1-2"):
        assert game.is_legal(Move.parse(text)), text
    game.push_text("1:2-2")
    assert game.view()["tableau"] == [["9C"], ["8D", "7S"], ["5D"], ["AS"]]


def test_emptied_column_stays_empty_without_a_reserve() -> None:
    game = Game.from_layout(
        foundations=[["7H"], [], [], []],
        tableau=[["9C"], ["8D"], ["5D"], ["AS"]],
    )
    game.push_text("2-1")
    assert game.tableau[1] == []
    assert game.view()["reserve"] == {"top": None, "count": 0}


# ------------------------------------------------------------------ foundations


def test_start_rank_comes_from_the_base_card() -> None:
    game = Game.deal("CF1-D3-AAAAACL")
    base = game.foundations[0][0]
    assert game.base_rank == base >> 2
    assert game.view()["start_rank"] == RANKS[base >> 2]
    for suit in range(4):
        start = (base >> 2) * 4 + suit
        if start != base:
            assert game.foundation_accepts(start) in (1, 2, 3)
        other = ((base >> 2) + 1) % 13 * 4 + suit
        if suit != base & 3:
            assert game.foundation_accepts(other) == -1


def test_each_foundation_holds_one_suit() -> None:
    game = Game.from_layout(
        foundations=[["7H", "8H"], ["7S"], [], []],
        tableau=[["8S"], ["9C"], ["9H"], ["7C"]],
    )
    assert refused(game, "2-F") == "foundation-build"  # 9C: clubs have no foundation
    play(game, "1-F", "3-F", "4-F")
    assert tops(game) == ["9H", "8S", "7C", ""]
    assert [len(p) for p in game.foundations] == [3, 2, 1, 0]


def test_first_foundation_belongs_to_the_base_suit() -> None:
    """Taking the base card back frees foundation 1 for the base suit only."""
    game = Game.from_layout(
        foundations=[["7H"], [], [], []],
        tableau=[["8S"], ["9C"], [], ["5D"]],
        waste=["7C"],
    )
    play(game, "F1-1", "W-F")
    assert tops(game) == ["", "7C", "", ""]
    play(game, "1-F")  # the 7H goes home to foundation 1 again
    assert tops(game) == ["7H", "7C", "", ""]


def test_foundation_wraps_from_king_to_ace() -> None:
    ranks = "789TJQK"
    game = Game.from_layout(
        foundations=[[r + "H" for r in ranks], [], [], []],
        tableau=[["AH"], ["2H"], ["9C"], ["5D"]],
    )
    assert refused(game, "2-F") == "foundation-build"
    play(game, "1-F", "2-F")
    assert tops(game) == ["2H", "", "", ""]
    assert len(game.foundations[0]) == 9


def test_a_complete_foundation_holds_thirteen_cards_and_four_win() -> None:
    order = [RANKS[(RANKS.index("7") + k) % 13] for k in range(13)]
    piles = [[r + s for r in order] for s in "HCDS"]
    last = piles[3].pop()  # 6S still to play
    game = Game.from_layout(foundations=piles, tableau=[[last], [], [], []])
    assert [len(p) for p in game.foundations] == [13, 13, 13, 12]
    assert not game.is_won
    play(game, "1-F")
    assert game.is_won
    assert game.on_foundations == 52
    assert game.view()["won"] is True
    assert all(len(p) == 13 for p in game.foundations)
    # a complete foundation takes nothing more, even its own start rank
    for card in range(52):
        assert game.foundation_accepts(card) == -1


# ------------------------------------------------------------------ columns


@pytest.mark.parametrize(
    ("card", "target", "ok"),
    [
        ("6H", "7S", True),
        ("6H", "7C", True),
        ("6D", "7S", True),
        ("6S", "7H", True),
        ("6H", "7D", False),  # same colour
        ("6S", "7C", False),  # same colour
        ("5H", "7S", False),  # two ranks down
        ("8H", "7S", False),  # up, not down
        ("KH", "AS", True),  # ranks wrap: a king goes on an ace
        ("KC", "AD", True),
        ("KS", "AC", False),
        ("AS", "2H", True),
        ("QH", "AS", False),
    ],
)
def test_column_builds_down_in_alternating_colours(card: str, target: str, ok: bool) -> None:
    game = Game.from_layout(
        base_rank="3",
        tableau=[[card], [target], [], []],
        reserve=["3C"],
    )
    if ok:
        game.push_text("1-2")
        assert game.view()["tableau"][1] == [target, card]
    else:
        assert refused(game, "1-2") == "column-build"


def test_any_tail_of_a_run_moves_as_one_piece() -> None:
    run = ["9C", "8D", "7S", "6H"]
    targets = {1: ["7C"], 2: ["8H"], 3: ["9S"], 4: ["TD"]}
    for count, target in targets.items():
        game = Game.from_layout(
            base_rank="A",
            reserve=["AC"],
            tableau=[run, target, ["2D"], ["3D"]],
        )
        legal = [m.text() for m in game.legal_moves() if m.src == "T" and m.src_index == 0]
        game.push_text(f"1:{count}-2" if count > 1 else "1-2")
        assert game.view()["tableau"][1] == target + run[-count:]
        assert legal == [f"1:{count}-2" if count > 1 else "1-2"]
    # the whole column moves; the reserve refills the emptied column
    assert game.view()["tableau"][0] == ["AC"]


def test_a_run_longer_than_a_suit_moves_from_the_depth_that_fits() -> None:
    # ranks wrap (A takes a K), so one run can pass the same rank twice,
    # once in each colour: only the card of the right colour can lead
    run = ["KS", "QH", "JC", "TD", "9S", "8H", "7C", "6D", "5S", "4H", "3C", "2D", "AS", "KH", "QC"]
    game = Game.from_layout(base_rank="A", reserve=["AC"], tableau=[run, ["KC"], ["AD"], ["KD"]])
    legal = {m.text() for m in game.legal_moves() if m.src == "T" and m.src_index == 0}
    assert legal == {"1:14-2", "1:15-3", "1-4"}
    game.push_text("1:14-2")
    assert game.view()["tableau"][1] == ["KC", *run[1:]]


def test_a_broken_run_cannot_move() -> None:
    game = Game.from_layout(
        base_rank="A",
        reserve=["AC"],
        tableau=[["9C", "5D", "4S"], ["6D"], ["TH"], ["3D"]],
    )
    assert refused(game, "1:3-3") == "run-broken"  # 9C 5D 4S is not one run
    assert refused(game, "1:2-2") == "column-build"  # 5D 4S is a run, but not on 6D
    assert refused(game, "1:4-3") == "column-too-short"
    assert game.locate(parse_card("9C")) is None  # not part of the movable run
    assert game.locate(parse_card("5D")) == Move("T", 0, 2)


# ------------------------------------------------------------------ stock and waste


STOCK7 = ["2C", "3C", "4C", "5C", "6C", "8C", "9C"]  # next turned is last: 9C


def stock_game(draw: int) -> Game:
    return Game.from_layout(
        draw=draw,
        foundations=[["7H"], [], [], []],
        reserve=["KS"],
        tableau=[["TD"], ["TS"], ["JD"], ["7D"]],
        stock=STOCK7,
    )


def test_draw_three_turns_three_and_then_the_rest() -> None:
    game = stock_game(3)
    game.push_text("S")
    view = game.view()
    assert view["waste"] == {"fan": ["9C", "8C", "6C"], "under": [], "count": 3}
    assert view["stock"] == {"count": 4}
    game.push_text("S")
    assert game.view()["waste"]["fan"] == ["5C", "4C", "3C"]
    game.push_text("S")  # fewer than three left: the last one is turned
    # the top three show: the two seen cards beneath the last one turned
    assert game.view()["waste"] == {"fan": ["2C"], "under": ["4C", "3C"], "count": 7}
    assert game.view()["stock"] == {"count": 0}


def test_draw_one_turns_one_at_a_time() -> None:
    game = stock_game(1)
    seen = []
    for _ in range(7):
        game.push_text("S")
        seen.append(game.view()["waste"]["fan"][-1])
    assert seen == list(reversed(STOCK7))
    assert game.view()["waste"]["count"] == 7


@pytest.mark.parametrize("draw", [1, 3])
def test_recycling_deals_the_waste_again_the_same_way_for_free(draw: int) -> None:
    game = stock_game(draw)
    score = game.score

    def one_pass() -> list[str]:
        shown = []
        while game.stock:
            game.push_text("S")
            shown.append(game.view()["waste"]["fan"][-1])
        return shown

    first = one_pass()
    for _ in range(5):  # passes are unlimited
        game.push_text("S")  # stock empty: the waste turns over
        assert game.view()["waste"] == {"fan": [], "under": [], "count": 0}
        assert game.view()["stock"] == {"count": 7}
        assert one_pass() == first
    assert game.score == score


def test_recycle_after_a_waste_card_was_played_keeps_the_order() -> None:
    game = stock_game(3)
    play(game, "S", "W-4", "S", "S")  # the 6C went onto the 7D
    assert game.view()["waste"]["fan"] == ["2C"]
    play(game, "S", "S")  # turn over, then draw three again
    assert game.view()["waste"] == {"fan": ["9C", "8C", "5C"], "under": [], "count": 3}
    play(game, "S")
    assert game.view()["waste"]["fan"] == ["4C", "3C", "2C"]


def test_only_the_top_waste_card_plays() -> None:
    game = stock_game(3)
    game.push_text("S")  # waste fan 9C 8C 6C, top 6C
    assert game.locate(parse_card("8C")) is None
    assert game.tap_move(parse_card("8C")) is None
    assert refused(game, "W-2") == "column-build"  # 6C does not go on TS
    game.push_text("W-4")  # 6C onto the 7D
    assert game.view()["waste"]["fan"] == ["9C", "8C"]
    assert game.locate(parse_card("8C")) == Move("W")  # freed by the play


def test_stock_tap_with_stock_and_waste_both_empty_is_refused() -> None:
    game = Game.from_layout(
        foundations=[["7H"], [], [], []], reserve=["2C"], tableau=[["9C"], ["3D"], ["QD"], ["QS"]]
    )
    assert refused(game, "S") == "stock-empty"
    assert DRAW not in set(game.legal_moves())
