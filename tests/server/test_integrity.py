"""Integrity signals and the flag rule (``room.integrity``), in process with the
real engine and solver: what the review queue relies on is that a line copied
from the solver is flagged however it is paced and padded (undos, turns of the
stock), and that an honest line, the project's heuristic bot's win, is not.
"""

from __future__ import annotations

import random

import msgspec
import pytest
from canfield import Game
from canfield.review import decide
from canfield.solver import WINNABLE, solve
from canfield_bench.integrity_bench import padded_line
from canfield_client.strategy import Strategy
from canfield_server.room.integrity import (
    Agreement,
    Signals,
    Thresholds,
    flag,
    is_decision,
    net_line,
    signals,
    spread,
    think_times,
)

#: Draw 1 deals the strong bot wins (seeded), the solver too
BOT_WON_DEALS = ["CF2-D1-K7Q7Y9XE1WQ9BZ3DNH3JKG3H1E", "CF2-D1-ZS4QYJKHDAX1QGQMTY02ZWYMMB"]


def assess(code: str, moves: list[str], times: list[int] | None = None) -> Signals:
    """The signals a server computes, the solver answered in process."""
    solved = solve(code, 10)
    assert solved.result == WINNABLE
    line = net_line(code, moves)
    agreement = Agreement(code, line, max_calls=40, max_seconds=30.0)
    while not agreement.done:
        agreement.answer(decide(Game.replay(code, agreement.question()), 3.0))
    return signals(code, moves, times, len(solved.moves), agreement, line)


def human_times(count: int, median_ms: float, rng: random.Random) -> list[int]:
    at, times = 0, []
    for _ in range(count):
        at += int(rng.lognormvariate(0, 0.6) * median_ms)
        times.append(at)
    return times


@pytest.mark.parametrize("code", BOT_WON_DEALS)
def test_a_solver_line_is_flagged_however_paced_and_padded(code: str) -> None:
    rng = random.Random(code)
    line = solve(code, 10).moves
    moves = padded_line(code, line, rng)
    assert "U" in moves and len(moves) > len(line)
    s = assess(code, moves, human_times(len(moves), 1000, rng))
    assert s.won and s.timed and s.actions == len(moves)
    assert s.solver_agreement is not None and s.solver_agreement >= 0.95
    assert s.checked_moves >= 50 and s.solver_calls <= 3
    assert s.net_over_par is not None and s.net_over_par <= 0
    assert s.wasted_share > 0
    reasons = flag(s)
    assert reasons and reasons[0].startswith("solver agreement")


@pytest.mark.parametrize("code", BOT_WON_DEALS)
def test_the_heuristic_bots_winning_line_is_not_flagged(code: str) -> None:
    moves = _line_of(code, Strategy("strong", random.Random(0)))
    s = assess(code, moves, human_times(len(moves), 1000, random.Random(1)))
    assert s.won
    assert s.solver_agreement is not None and s.solver_agreement < 0.9
    assert s.checked_moves >= Thresholds().min_checked
    assert flag(s) == []


def _line_of(code: str, strategy: Strategy) -> list[str]:
    game, moves = Game.deal(code), []
    while (move := strategy.choose(game)) is not None:
        game.push(move)
        moves.append(move.text())
    return moves


def test_a_lost_line_is_never_flagged_and_needs_no_solver() -> None:
    code = BOT_WON_DEALS[0]
    moves = _line_of(code, Strategy("strong", random.Random(0)))[:60] + ["G"]
    s = signals(code, moves, None, 300)
    assert not s.won and s.actions == 60 and not s.timed and s.solver_agreement is None
    assert flag(s) == []


def test_loops_and_undos_are_cut_from_the_net_line() -> None:
    code = BOT_WON_DEALS[0]
    line = solve(code, 10).moves[:20]
    moves = [line[0], "U", *line[:5], "S", "U", *line[5:]]
    cut = net_line(code, moves)
    assert cut.moves == net_line(code, line).moves
    assert len(cut.choice_at) == len(moves) and cut.choice_at[1] is None
    assert not cut.won


def test_think_times_spread_and_decision_versus_forced() -> None:
    assert think_times([500, 1500, 1400, 4000]) == [500, 1000, 0, 2500]
    assert spread([1000] * 10) == 0.0
    assert spread([100, 1000, 5000]) > 1.0
    code = BOT_WON_DEALS[0]
    moves = _line_of(code, Strategy("strong", random.Random(0)))[:80]
    line = net_line(code, moves)
    # long thought where there was a choice, quick where there was none
    thinks = [3000 if c else 300 for c in line.choice_at]
    times = [sum(thinks[: i + 1]) for i in range(len(thinks))]
    s = signals(code, moves, times, None)
    assert s.decision_think_ms == 3000 and s.forced_think_ms == 300
    assert s.over_par is None and s.think_ms == thinks
    assert s.moves_per_s == pytest.approx(len(moves) * 1000 / times[-1], abs=0.01)


def test_a_position_with_only_the_stock_to_turn_is_forced() -> None:
    # foundations start at A; the columns' 9H 4C 7S KD and the reserve's QH block each other
    cols = [["9H"], ["4C"], ["7S"], ["KD"]]
    assert not is_decision(
        Game.from_layout(tableau=cols, base_rank="A", reserve=["QH"], stock=["2D"])
    )
    # the waste's 8S goes on 9H, or the stock is turned: a choice
    waste = Game.from_layout(
        tableau=cols, base_rank="A", reserve=["QH"], waste=["8S"], stock=["2D"]
    )
    assert is_decision(waste)
    # one move (the reserve's QC onto KD) and no talon: forced
    one = Game.from_layout(tableau=cols, base_rank="A", reserve=["QC"])
    assert [m.text() for m in one.legal_moves()] == ["R-4"] and not is_decision(one)


def test_the_rule_needs_a_win_enough_choices_and_the_threshold() -> None:
    base = Signals(
        actions=200,
        moves_per_s=1.0,
        think_ms=[],
        think_median_ms=0,
        think_spread=0.0,
        decision_think_ms=None,
        forced_think_ms=None,
        over_par=0,
        solver_agreement=0.95,
        checked_moves=40,
        won=True,
        net_moves=200,
        net_over_par=0,
    )
    assert flag(base)

    assert flag(msgspec.structs.replace(base, won=False)) == []
    assert flag(msgspec.structs.replace(base, checked_moves=10)) == []
    assert flag(msgspec.structs.replace(base, solver_agreement=0.85)) == []
    assert flag(msgspec.structs.replace(base, net_over_par=40)) == []
    assert flag(base, Thresholds(agreement=0.97)) == []
