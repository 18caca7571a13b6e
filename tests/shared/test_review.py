"""A line's review (``canfield.review``): the slip it names is checked against
the engine and the solver, never against the review's own arithmetic.

A slip is right when the continuation it gives replays to a win from the
position just before it, the solver (take-backs searched) proves the
position just after it lost, and a plain scan of every position of the
line agrees on where winnable turns to lost.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from canfield import Game, Move
from canfield.review import (
    GIVE_UP,
    LineError,
    LineReview,
    Verdict,
    decide,
    review_line,
    stood_moves,
)
from canfield.solver import NOT_WINNABLE, UNKNOWN, WINNABLE, SolveResult, solve

# A deal the solver wins in milliseconds. Its base card is 3D, so the
# foundations start at 3 and the 2D (top of the reserve after 12 moves) is
# the last diamond. The line takes a club foundation's 3C back onto column 2
# (F2-2) and then lays the reserve's 2D on it: the 3C every club
# needs first is buried under a card that can only go up last.
DEAL = "CF1-D3-AAAASGV"
LOSING = "4-F S 2-4 S S S S S W-F S S W-2 F2-2 R-2 S".split()
# no line wins it, take-backs or not; proven in a few dozen positions
LOST_DEAL = "CF1-D3-FEQBCNB"
# proven lost without take-backs in a few dozen positions, yet won with them
# (the solver's winning line takes the base card back at its third move)
TAKE_BACK_DEAL = "CF1-D3-HLSPBJF"
# the solver decides nothing about it in a hundredth of a second
HARD_DEAL = "CF1-D3-SZRRFEE"

Solver = Callable[..., SolveResult]


def honest(game: Game) -> str:
    """The solver's verdict with take-backs searched, and time to spare."""
    return solve(game, 20.0, takebacks=True).result


def assert_right_slip(code: str, moves: list[str], verdict: Verdict) -> None:
    """The slip is where the engine and the solver say it is."""
    assert verdict.decided and verdict.winnable_at_start is True
    assert verdict.winnable_at_end is False and not verdict.won
    assert verdict.slip is not None and verdict.continuation
    before = Game.replay(code, moves[: verdict.slip])
    assert Game.replay(before, verdict.continuation).is_won
    after = Game.replay(code, moves[: verdict.slip + 1])
    assert honest(after) == NOT_WINNABLE
    assert verdict.slip_move == Move.parse(moves[verdict.slip]).text()


def first_lost(code: str, moves: list[str]) -> int:
    """How many moves (no undos) lead to the first lost position, by asking
    the solver about every position in turn; every earlier one must be won."""
    verdicts = [honest(Game.replay(code, moves[:k])) for k in range(len(moves) + 1)]
    assert UNKNOWN not in verdicts
    lost = verdicts.index(NOT_WINNABLE)
    assert set(verdicts[:lost]) == {WINNABLE} and set(verdicts[lost:]) == {NOT_WINNABLE}
    return lost


def test_a_line_built_to_lose_names_the_move_that_buried_the_card() -> None:
    verdict = review_line(DEAL, LOSING, 5.0)
    assert_right_slip(DEAL, LOSING, verdict)
    assert verdict.slip == first_lost(DEAL, LOSING) - 1 == LOSING.index("R-2")
    assert verdict.moves == len(LOSING)
    assert 3 <= verdict.solver_calls <= 2 + len(LOSING).bit_length() + 1


def test_the_slip_indexes_the_moves_as_given_undos_included() -> None:
    slip = LOSING.index("R-2")
    # a tap taken back at the start, and the fatal move tried, taken back, made again
    moves = ["S", "U", *LOSING[:slip], "R-2", "U", "R-2", *LOSING[slip + 1 :], GIVE_UP]
    verdict = review_line(DEAL, moves, 5.0)
    assert_right_slip(DEAL, moves, verdict)
    assert verdict.slip == len(moves) - 1 - moves[::-1].index("R-2")
    assert moves[verdict.slip] == "R-2" and moves[verdict.slip + 1] != "U"
    assert verdict.moves == len(moves)


def test_a_won_line_needs_no_solver() -> None:
    def refuse(*_: object, **__: object) -> SolveResult:
        raise AssertionError("a won line asks the solver nothing")

    line = solve(DEAL, 10.0).moves
    moves = [line[0], "S", "U", *line[1:]]
    assert Game.replay(DEAL, moves).is_won
    verdict = review_line(DEAL, moves, 5.0, solver=refuse)
    assert verdict.won and verdict.decided
    assert verdict.winnable_at_start is True and verdict.winnable_at_end is True
    assert verdict.slip is None and verdict.continuation is None
    assert verdict.solver_calls == 0


def test_undoing_the_slip_and_playing_the_continuation_wins() -> None:
    verdict = review_line(DEAL, LOSING, 5.0)
    assert verdict.slip is not None and verdict.continuation is not None
    moves = [*LOSING[: verdict.slip + 1], "u", *verdict.continuation]
    again = review_line(DEAL, moves, 5.0)
    assert again.won and again.solver_calls == 0


def test_still_winnable_when_the_player_stopped() -> None:
    moves = LOSING[: LOSING.index("R-2")]
    assert honest(Game.replay(DEAL, moves)) == WINNABLE
    verdict = review_line(DEAL, moves, 5.0)
    assert verdict.decided and verdict.winnable_at_start and verdict.winnable_at_end
    assert verdict.slip is None and verdict.continuation is None and not verdict.won
    assert verdict.solver_calls == 2  # the start and the end


def test_an_unwinnable_deal_is_lost_from_the_start() -> None:
    assert honest(Game.deal(LOST_DEAL)) == NOT_WINNABLE
    verdict = review_line(LOST_DEAL, ["S", "S"], 5.0)
    assert verdict.decided and verdict.winnable_at_start is False
    assert verdict.winnable_at_end is False
    assert verdict.slip is None and verdict.continuation is None
    assert verdict.solver_calls == 1


def test_a_deal_won_only_with_a_take_back_is_not_called_lost() -> None:
    assert solve(TAKE_BACK_DEAL, 5.0).result == NOT_WINNABLE  # without take-backs
    answer = decide(Game.deal(TAKE_BACK_DEAL), 10.0)
    assert answer.result == WINNABLE
    assert Game.replay(TAKE_BACK_DEAL, answer.moves).is_won
    assert any(Move.parse(text).src == "F" for text in answer.moves)
    verdict = review_line(TAKE_BACK_DEAL, [], 10.0)
    assert verdict.winnable_at_start is True and verdict.winnable_at_end is True


def test_a_tiny_budget_leaves_it_undecided() -> None:
    verdict = review_line(HARD_DEAL, ["S"], 0.01)
    assert not verdict.decided
    assert verdict.winnable_at_start is None and verdict.winnable_at_end is None
    assert verdict.slip is None and verdict.continuation is None


def scripted(unknown: Callable[[int, int], bool]) -> tuple[Solver, list[int]]:
    """``decide``, but UNKNOWN wherever ``unknown(call, moves_to_the_position)``;
    the positions asked are recorded (by how many moves lead to them)."""
    asked: list[int] = []

    def solver(game: Game, timeout_s: float, takebacks: bool = True) -> SolveResult:
        assert takebacks, "a review must search take-backs"
        stood = len(game.history)
        asked.append(stood)
        if unknown(len(asked), stood):
            return SolveResult(UNKNOWN, [], timeout_s, 0)
        return decide(game, timeout_s, takebacks=takebacks)

    return solver, asked


def test_no_slip_is_claimed_when_the_position_after_it_stays_undecided() -> None:
    slip = LOSING.index("R-2")
    solver, asked = scripted(lambda _, stood: stood == slip + 1)
    verdict = review_line(DEAL, LOSING, 5.0, solver=solver)
    assert slip + 1 in asked
    assert not verdict.decided and verdict.slip is None and verdict.continuation is None
    assert verdict.winnable_at_start is True and verdict.winnable_at_end is False
    assert verdict.solver_calls <= 2 + len(LOSING).bit_length() + LineReview.MAX_UNDECIDED + 1


def test_an_undecided_position_away_from_the_slip_is_stepped_round() -> None:
    solver, asked = scripted(lambda call, _: call == 3)  # the first middle position
    verdict = review_line(DEAL, LOSING, 5.0, solver=solver)
    assert len(asked) > 3 and asked[2] not in asked[3:]
    assert_right_slip(DEAL, LOSING, verdict)


def test_a_loss_proven_in_the_middle_settles_an_undecided_end() -> None:
    solver, asked = scripted(lambda _, stood: stood == len(LOSING))
    verdict = review_line(DEAL, LOSING, 5.0, solver=solver)
    assert len(LOSING) in asked
    assert_right_slip(DEAL, LOSING, verdict)


@pytest.mark.parametrize(
    ("moves", "index", "says"),
    [
        (["S", "S", "W-2"], 2, "column-build"),
        (["S", "X-9"], 1, "not a column"),
        (["U"], 0, "nothing to undo"),
        (["S", "U", "U"], 2, "nothing to undo"),
        (["S", "G", "S"], 1, "give-up"),
        (["S", "\u3000U"], 1, "ASCII"),
    ],
)
def test_bad_lines_are_refused_naming_the_entry(moves: list[str], index: int, says: str) -> None:
    with pytest.raises(LineError) as caught:
        LineReview(DEAL, moves)
    assert caught.value.index == index
    assert f"move {index + 1}" in str(caught.value) and says in str(caught.value)


def test_the_line_is_read_as_a_race_log_reads() -> None:
    log = ["s", " 4-f ", "S", "u", "g"]
    final, stood = stood_moves(DEAL, log)
    assert [index for index, _ in stood] == [0, 1]
    assert [text for _, text in stood] == ["S", "4-F"]
    assert final == Game.replay(DEAL, log[:-1])  # the engine's replay, less the give-up
    assert final.position_key() == Game.replay(DEAL, ["S", "4-F"]).position_key()


def test_a_review_asks_one_position_at_a_time_and_refuses_a_false_win() -> None:
    review = LineReview(DEAL, LOSING)
    assert review.question().moves == ()  # the start first
    with pytest.raises(ValueError, match="does not win"):
        review.answer(SolveResult(WINNABLE, ["S"], 0.0, 1))
    review.answer(decide(review.question().game(), 5.0))
    assert review.question().moves == tuple(Move.parse(m).text() for m in LOSING)  # then the end
    while not review.done:
        review.answer(decide(review.question().game(), 5.0))
    assert review.verdict().slip == LOSING.index("R-2")
    with pytest.raises(RuntimeError):
        review.question()


def test_the_verdict_as_json_has_the_documented_keys() -> None:
    data = review_line(DEAL, LOSING, 5.0).to_dict()
    assert {
        "winnable_at_start",
        "slip",
        "slip_move",
        "continuation",
        "winnable_at_end",
        "decided",
        "won",
        "solver_calls",
        "seconds",
    } <= set(data)
    assert data["slip"] == LOSING.index("R-2") and data["slip_move"] == "R-2"
