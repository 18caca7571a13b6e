"""The solver: every winnable line replays to a win, known positions get the known verdict."""

from __future__ import annotations

import random
from collections import deque

import pytest
from canfield import RANKS, SUITS, DealCode, Game, Move
from canfield.solver import NOT_WINNABLE, UNKNOWN, WINNABLE, hint, search, solve
from canfield.solver.depth_first import is_won as _is_won
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared.helpers import dead_position

# deals the solver settles in milliseconds (both draw modes)
QUICK_DEALS = [
    "CF1-D3-AAAASGV",
    "CF1-D3-AAACYVS",
    "CF1-D3-AAADKOH",
    "CF1-D3-AAADWGW",
    "CF1-D3-AAAETSA",
    "CF1-D1-AAAASGV",
    "CF1-D1-AAADKOH",
    "CF1-D1-AAAHXSB",
]


def one_move_win() -> Game:
    """Everything is up but the king of spades, alone in column 1."""
    return Game.from_layout(
        foundations=[
            [r + "C" for r in RANKS],
            [r + "D" for r in RANKS],
            [r + "H" for r in RANKS],
            [r + "S" for r in RANKS[:-1]],
        ],
        tableau=[["KS"], [], [], []],
        draw=3,
    )


def two_moves_wait_for_one() -> Game:
    """Won only if two column moves, neither using what the other changed, come first.

    QS onto KD uncovers TS, TD onto JC uncovers 9D, and only then can 9D
    go onto TS: both moves wait for that one.
    """
    return Game.from_layout(
        foundations=[
            [r + "C" for r in RANKS[:8]],
            [r + "D" for r in RANKS[:7]],
            [r + "H" for r in RANKS[:12]],
            [r + "S" for r in RANKS[:8]],
        ],
        tableau=[
            ["KH", "KD", "9C"],
            ["JS", "KC", "TS", "QS"],
            ["QC", "KS", "QD", "JC", "9S"],
            ["TC", "JD", "8D", "9D", "TD"],
        ],
        draw=3,
    )


def endgame(seed: int) -> Game:
    """A random position late in a game: each suit partly up, the rest in the columns."""
    rng = random.Random(seed)
    levels = [rng.randint(6, 12) for _ in SUITS]
    rest = [
        RANKS[r] + suit for suit, level in zip(SUITS, levels, strict=True) for r in range(level, 13)
    ]
    rng.shuffle(rest)
    tableau: list[list[str]] = [[], [], [], []]
    for card in rest:
        tableau[rng.randrange(4)].append(card)
    return Game.from_layout(
        foundations=[
            [r + suit for r in RANKS[:level]] for suit, level in zip(SUITS, levels, strict=True)
        ],
        tableau=tableau,
        base_rank="A",
        draw=3,
    )


def winnable_by_brute_force(game: Game) -> bool:
    """Every legal move (take-backs aside) from every position: no pruning to trust."""
    work = game.copy()
    work.history = deque()
    seen = {work.position_key()}
    stack = [list(work.legal_moves(takebacks=False))]
    while stack:
        if not stack[-1]:
            stack.pop()
            if stack:
                work.pop()
            continue
        work.push(stack[-1].pop())
        if work.is_won:
            return True
        key = work.position_key()
        if key in seen:
            work.pop()
            continue
        seen.add(key)
        stack.append(list(work.legal_moves(takebacks=False)))
    return False


def test_two_column_moves_may_wait_for_the_same_move() -> None:
    game = two_moves_wait_for_one()
    assert search(game, _is_won).found
    result = solve(game, timeout_s=5.0)
    assert result.result == WINNABLE
    assert Game.replay(game, result.moves).is_won


@settings(max_examples=1000, deadline=None)
@given(st.integers(0, 2**32))
def test_pruning_never_loses_a_win(seed: int) -> None:
    game = endgame(seed)
    outcome = search(game, _is_won, node_limit=200_000)
    assert outcome.found or outcome.exhausted
    assert outcome.found == winnable_by_brute_force(game)


@pytest.mark.parametrize("code", QUICK_DEALS)
def test_winnable_line_replays_to_a_win(code: str) -> None:
    result = solve(code, timeout_s=5.0)
    assert result.result == WINNABLE
    assert result.nodes > 0
    game = Game.deal(code)
    for text in result.moves:
        game.push(Move.parse(text))
    assert game.is_won


def test_random_deals_give_only_replayable_wins() -> None:
    decided = 0
    for seed in range(12):
        code = str(DealCode.from_seed(1_000_003 * seed + 17, 3 if seed % 2 else 1))
        result = solve(code, timeout_s=0.3)
        assert result.result in (WINNABLE, NOT_WINNABLE, UNKNOWN)
        if result.result == WINNABLE:
            assert Game.replay(code, result.moves).is_won
        else:
            assert result.moves == []
        decided += result.decided
    assert decided >= 6


def test_one_move_win_is_winnable_in_one_move() -> None:
    result = solve(one_move_win())
    assert result.result == WINNABLE
    assert result.moves == ["1-F"]


def test_dead_position_is_not_winnable() -> None:
    game = dead_position()
    assert [m.text() for m in game.legal_moves()] == ["S"]
    result = solve(game, timeout_s=5.0)
    assert result.result == NOT_WINNABLE
    assert result.moves == []


def test_node_limit_gives_unknown() -> None:
    result = solve("CF1-D3-AAACNDD", timeout_s=None, node_limit=50)
    assert result.result == UNKNOWN
    assert result.nodes == 50


def test_a_probe_wins_a_deal_the_plain_search_does_not_win_in_the_same_nodes() -> None:
    # the plain search alone does not win this deal in 200,000 nodes
    code = "CF1-D3-AHTZIXH"
    assert not search(Game.deal(code), _is_won, node_limit=30_000).found
    result = solve(code, timeout_s=None, node_limit=30_000)
    assert result.result == WINNABLE
    assert result.nodes <= 30_000
    assert Game.replay(code, result.moves).is_won


def test_same_limits_give_the_same_answer() -> None:
    first = solve("CF1-D3-AHTZIXH", timeout_s=None, node_limit=30_000)
    again = solve("CF1-D3-AHTZIXH", timeout_s=None, node_limit=30_000)
    assert (first.result, first.moves, first.nodes) == (again.result, again.moves, again.nodes)


def test_paused_plain_search_still_proves_a_loss() -> None:
    # proven lost by the plain search alone in about 24,700 nodes, so here it
    # is paused and resumed around shaken probes before it completes
    result = solve("CF1-D3-KOKRUDP", timeout_s=None, node_limit=200_000)
    assert result.result == NOT_WINNABLE
    assert result.nodes > 24_700


def test_solver_never_changes_the_game_it_is_given() -> None:
    game = Game.deal("CF1-D3-AAAHXSB")
    for text in ["S", "S"]:
        game.push(Move.parse(text))
    before = game.to_dict()
    result = solve(game, timeout_s=5.0)
    assert game.to_dict() == before
    assert result.result == WINNABLE
    assert Game.replay(game, result.moves).is_won


def test_hint_is_the_next_move_of_a_winning_line() -> None:
    game = Game.deal("CF1-D3-AAADKOH")
    before = game.to_dict()
    move = hint(game, timeout_s=5.0)
    assert game.to_dict() == before
    assert move is not None
    game.push(move)
    follow = solve(game, timeout_s=5.0)
    assert follow.result == WINNABLE


def test_hint_is_none_when_nothing_wins() -> None:
    assert hint(dead_position(), timeout_s=5.0) is None
    won = one_move_win()
    won.push(Move.parse("1-F"))
    assert hint(won) is None


def test_result_to_dict_shape() -> None:
    data = solve(one_move_win()).to_dict()
    assert set(data) == {"result", "moves", "seconds", "nodes"}
    assert data["result"] == WINNABLE and data["moves"] == ["1-F"]


def test_draw_1_finder_wins_a_deal_the_plain_search_does_not_win_in_the_same_nodes() -> None:
    # stock cards played only when used at once: a win in a few hundred nodes
    code = "CF1-D1-TKNVKZQ"
    assert not search(Game.deal(code), _is_won, node_limit=25_000).found
    result = solve(code, timeout_s=None, node_limit=25_000)
    assert result.result == WINNABLE
    assert Game.replay(code, result.moves).is_won
