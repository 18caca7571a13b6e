"""What a lost line teaches (``canfield.lesson``): a short winning line and what
the slip gave up, checked against the engine and the solver.

The slips below are real: random lines on random deals (``analyse --bench``'s
kind), each cut just after the move the review named, and the test proves
again that the position before it is won and the one after it lost. A short
line must replay to a win and never be longer than the line it came from.
"""

from __future__ import annotations

import pytest
from canfield import Game
from canfield.cards import BUILDS_ON, parse_card
from canfield.lesson import explain, short_line, shortcut, teach
from canfield.review import LineReview, decide
from canfield.solver import NOT_WINNABLE, WINNABLE, solve

# the review's own test deal: R-2 lays the 2D on the 3C every club needs first
DEAL = "CF1-D3-AAAASGV"
LOSING = "4-F S 2-4 S S S S S W-F S S W-2 F2-2 R-2 S".split()

#: (deal, the line up to and with its slip, the kind of loss)
SLIPS = [
    ("CF1-D3-KUPIRGW", "3-2 S 1-F S 4-1 S W-1 S S", "buried"),
    ("CF1-D3-WEKKODU", "S W-F S", "buried"),
    (
        "CF1-D3-OQDMMBD",
        "S W-4 W-4 S S 4:2-3 S 3:2-4 W-2 4:2-3 3:2-4 S W-2 S S 4:2-3 W-F S S 3:2-4 "
        "4:2-3 3:2-4 S 4:2-3 3:2-4 S S 4:2-3 S S W-1 W-2 3:2-4 W-3",
        "taken",
    ),
    ("CF1-D3-KAIZOGN", "S S 4-1 2-F 4-F S S S S S S S W-F", "used"),
    ("CF1-D3-VWCCIAE", "S S W-2 R-F S S S S S W-F S S W-2", "covered"),
    ("CF1-D3-RNDZSQT", "S S W-4 S S W-4", "early"),
]


def slip_position(code: str, text: str) -> tuple[Game, str, list[str]]:
    """The position before the slip (proven won), the slip (after it: proven
    lost) and a winning line from before it."""
    moves = text.split()
    before = Game.replay(code, moves[:-1])
    won = decide(before, 10.0)
    assert won.result == WINNABLE
    assert decide(Game.replay(before, moves[-1:]), 10.0).result == NOT_WINNABLE
    return before, moves[-1], won.moves


def places(game: Game) -> dict[int, tuple[str, int]]:
    """Where each card lies: (pile kind, index) for the reserve, waste, columns
    and foundations (the stock's cards left out)."""
    at: dict[int, tuple[str, int]] = {card: ("R", 0) for card in game.reserve}
    at.update({card: ("W", 0) for card in game.waste})
    for j, col in enumerate(game.tableau):
        at.update({card: ("T", j) for card in col})
    for j, pile in enumerate(game.foundations):
        at.update({card: ("F", j) for card in pile})
    return at


def first_moved(game: Game, line: list[str]) -> int:
    """The card the line's first move other than a tap takes (a run: its bottom)."""
    work = game.copy()
    for text in line:
        if text != "S":
            if text[0].isdigit():  # a column's card, or a run's bottom card
                count = int(text.split("-")[0].split(":")[1]) if ":" in text else 1
                return work.tableau[int(text[0]) - 1][-count]
            before = places(work)
            work.play_text(text)
            after = places(work)
            changed = [c for c in after if c in before and before[c] != after[c]]
            assert len(changed) == 1
            return changed[0]
        work.play_text(text)
    raise AssertionError("the line moves no card")


@pytest.mark.parametrize(("code", "text", "kind"), SLIPS)
def test_a_slip_is_told_from_the_cards_the_winning_line_needed(
    code: str, text: str, kind: str
) -> None:
    before, slip, line = slip_position(code, text)
    why = explain(before, slip, line)
    assert why is not None and why.kind == kind
    after = Game.replay(before, [slip])
    card = parse_card(why.card)
    if kind == "buried":
        # the draw's waste top, which the line plays from the waste
        assert before.waste[-1] == card and after.waste[-1] != card
    if kind in ("taken", "covered", "used"):
        assert why.moved is not None
        moved = parse_card(why.moved)
        tops = [col[-1] for col in before.tableau if col]
        if kind == "taken":  # the player's card now lies on the card the line built on
            assert card in tops and BUILDS_ON[moved * 52 + card]
            assert why.need is not None and BUILDS_ON[parse_card(why.need) * 52 + card]
            assert any(col[-2:] == [card, moved] for col in after.tableau)
        if kind == "covered":
            assert any(col[-2:] == [card, moved] for col in after.tableau)
        if kind == "used":
            assert card == moved
    if kind == "early":  # the slip's card goes the same way later; first the line moved another
        assert why.moved is not None and why.card != why.moved
        assert first_moved(before, line) == card
    if why.need is not None:  # the line built that card on this one
        assert BUILDS_ON[parse_card(why.need) * 52 + card]


def test_a_move_into_an_empty_column_the_line_filled_and_a_line_that_touches_nothing() -> None:
    game = Game.from_layout(
        foundations=[["AC"], [], [], []],
        tableau=[["KS"], [], ["QH", "JC"], ["5C"]],
        waste=["9D"],
        stock=["2C"],
    )
    why = explain(game, "W-2", ["3-2"])
    assert why is not None and why.to_dict() == {
        "kind": "filled", "card": "JC", "moved": "9D", "need": None, "to": "column"
    }  # fmt: skip
    # a draw from an empty waste buries nothing: the line's first move, "instead"
    fresh = Game.deal(DEAL)
    line = solve(fresh, 10.0).moves
    why = explain(fresh, "S", line)
    assert why is not None and why.kind == "instead"
    assert parse_card(why.card) == first_moved(fresh, line)
    assert explain(fresh, "S", ["S", "S"]) is None  # no card moved: nothing to say


def test_the_review_s_own_slip_covered_the_club_every_club_needs_first() -> None:
    review = LineReview(DEAL, LOSING)
    while not review.done:
        review.answer(decide(review.question().game(), 10.0))
    verdict = review.verdict()
    before = review.before_slip()
    assert before is not None and verdict.continuation is not None
    taught = teach(verdict, before, 1.0)
    assert taught.why == {
        "kind": "covered",
        "card": "3C",
        "moved": "2D",
        "need": None,
        "to": "foundation",
    }
    assert taught.line_first == len(verdict.continuation)
    assert taught.continuation is not None
    assert len(taught.continuation) <= len(verdict.continuation)
    assert Game.replay(before.game(), taught.continuation).is_won
    assert taught.slip == verdict.slip and taught.shortest is not None


def test_a_verdict_without_a_slip_is_taught_nothing() -> None:
    review = LineReview(DEAL, LOSING[:3])
    while not review.done:
        review.answer(decide(review.question().game(), 10.0))
    assert review.before_slip() is None
    assert review.verdict().slip is None


def test_shortcuts_cut_a_detour_and_never_lengthen_a_line() -> None:
    game = Game.deal(DEAL)
    line = solve(game, 10.0).moves
    # a whole pass of the stock and back (the same position) plus a move and its reverse
    talon = len(game.stock) + len(game.waste)
    cycle = ["S"] * (-(-talon // game.draw) + 1)
    assert Game.replay(game, cycle).position_key() == game.position_key()
    detour = cycle + line
    cut = shortcut(game, detour)
    assert Game.replay(game, cut).is_won
    assert len(cut) <= len(line)
    again = shortcut(game, cut)
    assert Game.replay(game, again).is_won and len(again) <= len(cut)


def test_near_the_end_the_search_proves_the_line_shortest() -> None:
    line = solve(DEAL, 10.0).moves
    game = Game.replay(DEAL, line[:-12])
    snapshot = game.to_dict()
    short = short_line(game, line[-12:], 5.0)
    assert game.to_dict() == snapshot  # the position is never changed
    assert short.shortest
    assert Game.replay(game, short.moves).is_won
    assert len(short.moves) <= 12
    assert len(short.moves) >= 52 - game.on_foundations  # every card needs a move home


def test_a_search_cut_by_its_bound_says_a_shorter_line_may_exist() -> None:
    game = Game.deal(DEAL)
    line = solve(game, 10.0).moves
    short = short_line(game, line, 0.01, node_limit=50)
    assert not short.shortest
    assert short.first == len(line) and len(short.moves) <= len(line)
    assert Game.replay(game, short.moves).is_won
