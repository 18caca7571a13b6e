"""The bot's player: legal, finite, honest (sees only the view), and able to win."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from canfield import Game, Move
from canfield.dealcode import DealCode
from canfield_client.board import game_from_view
from canfield_client.bot import run_bot
from canfield_client.strategy import LEVELS, Strategy, play_out
from canfield_client.study import study_codes
from canfield_protocol.messages import Board

DEALS = [DealCode.from_seed(seed * 7919 + 13, draw) for seed in range(12) for draw in (1, 3)]


@pytest.mark.parametrize("strength", sorted(LEVELS))
def test_every_move_is_legal_and_the_game_ends(strength: str) -> None:
    for code in DEALS:
        game = Game.deal(code)
        strategy = Strategy(strength, random.Random(1))
        for _ in range(3000):
            move = strategy.choose(game)
            if move is None:
                break
            assert game.is_legal(move), f"{code}: {move} is illegal\n{game}"
            game.push(move)
        else:
            pytest.fail(f"{code}: the bot was still moving after 3000 moves")


@pytest.mark.parametrize(
    "code", ["CF1-D3-AAAJMAQ", "CF1-D3-AAASYAT", "CF1-D1-AAAAAAN", "CF1-D1-AAABUWV"]
)
def test_wins_known_deals(code: str) -> None:
    game = Game.deal(code)
    play_out(game, Strategy("normal", random.Random(0)))
    assert game.is_won


def test_stops_instead_of_cycling_the_stock() -> None:
    # nothing in the stock ever fits: after one full pass the bot stops
    game = Game.from_layout(
        reserve=["KS", "QS"],
        tableau=[["2C"], ["2S"], ["4C"], ["4S"]],
        foundations=[["7H"], [], [], []],
        stock=["9C", "9S", "JC", "JS", "5C"],
        draw=3,
    )
    strategy = Strategy("normal")
    moves = play_out(game, strategy, max_moves=100)
    assert strategy.choose(game) is None
    assert moves < 10
    assert game.on_foundations == 1


def test_plays_to_the_foundation_first() -> None:
    game = Game.from_layout(
        reserve=["2S", "8H"],
        tableau=[["9S"], ["3D"], ["4C"], ["KD"]],
        foundations=[["7H"], [], [], []],
        stock=["5C", "6C"],
        draw=1,
    )
    assert Strategy("normal").choose(game) == Move.parse("R-F")


def test_sees_only_the_player_view() -> None:
    """A bot fed the server's view (hidden cards replaced) plays the same game."""
    for code in DEALS[:8]:
        real = Game.deal(code)
        honest, blind = Strategy("normal", random.Random(2)), Strategy("normal", random.Random(2))
        while True:
            move = honest.choose(real)
            from_view = game_from_view(real.view())
            assert blind.choose(from_view) == move, f"{code}\n{real}"
            if move is None:
                break
            real.push(move)


def test_a_view_rebuilds_to_the_same_view_draw_3_waste_beneath_included() -> None:
    """Every seen card stays where the view shows it, the cards under a short Draw 3
    fan too; and the client's typed board keeps them (``waste.under``)."""
    game = Game.deal(DealCode.from_seed(99, 3))
    while game.stock:  # the last draw turns fewer than three: seen cards beneath
        game.push(Move.parse("S"))
    view = game.view()
    assert view["waste"]["under"] and len(view["waste"]["fan"]) < 3
    rebuilt = game_from_view(view).view()
    assert {**rebuilt, "can_undo": True} == view  # a rebuilt game has no history to undo
    assert msgspec.to_builtins(msgspec.convert(view, Board).waste) == view["waste"]


@pytest.mark.parametrize("draw", [1, 3])
def test_remembers_the_stock_after_one_pass(draw: int) -> None:
    game = Game.deal(DealCode.from_seed(99, draw))
    strategy = Strategy("normal")
    strategy.choose(game)
    assert not strategy.known  # nothing drawn yet: nothing known
    while game.stock:
        game.push(Move.parse("S"))
        strategy.choose(game)
    assert strategy.talon == game.waste + game.stock[::-1]


def test_memory_stays_true_through_whole_games() -> None:
    """Waste cards played and recycles never leave a remembered card out of place."""
    for code in DEALS[:10]:
        game = Game.deal(code)
        strategy = Strategy("normal", random.Random(3))
        while (move := strategy.choose(game)) is not None:
            talon = game.waste + game.stock[::-1]
            assert all(c is None or c == talon[i] for i, c in enumerate(strategy.talon)), code
            game.push(move)


def test_unknown_strength_is_refused() -> None:
    with pytest.raises(ValueError, match="strength"):
        Strategy("grandmaster")


def test_study_command_counts_the_bots_wins(tmp_path: Path) -> None:
    codes = study_codes(4, 1, 7)
    winnable = codes[:2]
    verdicts = tmp_path / "verdicts.jsonl"
    verdicts.write_text(
        "".join(json.dumps({"code": c, "result": "winnable"}) + "\n" for c in winnable)
    )
    done = subprocess.run(
        [sys.executable, "-m", "canfield_cli", "bot", "--study", "4", "--draw", "1"]
        + ["--seed", "7", "--strength", "normal", "--verdicts", str(verdicts), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    table = json.loads(done.stdout)
    won = []
    for index, code in enumerate(codes):
        game = Game.deal(code)
        play_out(game, Strategy("normal", random.Random(index)))
        won.append(game.is_won)
    assert table["deals"] == 4 and table["solver_winnable"] == 2
    assert table["normal"]["won"] == sum(won)
    assert table["normal"]["won_of_winnable"] == sum(won[:2])


def test_run_bot_refuses_bad_options_before_connecting() -> None:
    with pytest.raises(ValueError, match="strength"):
        _ = run_bot("ws://127.0.0.1:9/ws", "ABC234", strength="grandmaster")
    with pytest.raises(ValueError, match="pace"):
        _ = run_bot("ws://127.0.0.1:9/ws", "ABC234", pace_s=-1)
