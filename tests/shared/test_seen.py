"""What the player has seen of the stock: ``Game.talon_seen`` and its uses.

A card turned onto the waste has been seen (every card of a Draw 3 fan),
and undo never makes it unseen. The engine keeps this as one number,
because the seen cards are always the talon's first ``talon_seen``; the
property test checks that number against the plain set of cards ever
turned face up.
"""

from __future__ import annotations

import json
import random

from canfield import DRAW, DealCode, Game, Move, card_text
from canfield.dealcode import SEED_SPACE
from hypothesis import given, settings
from hypothesis import strategies as st

codes = st.builds(DealCode.from_seed, st.integers(0, SEED_SPACE - 1), st.sampled_from([1, 3]))


def texts(cards: list[int]) -> list[str]:
    return [card_text(c) for c in cards]


def test_draw_three_sees_the_whole_fan_and_undo_keeps_it_seen() -> None:
    game = Game.deal("CF1-D3-AAAAACL")  # the stock turns KC AS AC JH KS KH ... first
    assert (game.talon_seen, game.unseen_stock, game.seen_stock()) == (0, 34, [])
    game.push(DRAW)
    assert (game.talon_seen, game.unseen_stock) == (3, 31)
    assert texts(game.waste) == ["KC", "AS", "AC"] and game.seen_stock() == []
    game.pop()
    assert (game.talon_seen, game.unseen_stock) == (3, 31)
    assert texts(game.seen_stock()) == ["KC", "AS", "AC"]
    game.push(DRAW)
    game.push(DRAW)
    assert game.talon_seen == 6
    game.pop()
    game.pop()
    assert texts(game.seen_stock()) == ["KC", "AS", "AC", "JH", "KS", "KH"]


def test_a_pass_through_the_stock_sees_it_all_and_a_recycle_keeps_that() -> None:
    game = Game.deal("CF1-D1-HELLOCF")
    for _ in range(34):
        game.push(DRAW)
    assert (game.talon_seen, game.unseen_stock) == (34, 0)
    game.push(DRAW)  # the recycle: the waste turns back into the stock
    assert (len(game.stock), game.talon_seen, game.unseen_stock) == (34, 34, 0)
    assert game.seen_stock() == game.stock[::-1]


def test_a_waste_play_leaves_the_talon_and_its_undo_comes_back() -> None:
    game = Game.from_layout(
        foundations=[["AC"], [], [], []],
        tableau=[["9D"], [], [], []],
        stock=["5H", "4H", "3H", "2C"],
        draw=3,
    )
    game.push(DRAW)  # 2C 3H 4H turned; 4H on top
    assert (game.talon_seen, game.unseen_stock) == (3, 1)
    game.push_text("W-2")  # the 4H leaves the talon
    assert (game.talon_seen, game.unseen_stock) == (2, 1)
    assert not game.is_legal(Move.parse("W-F"))  # 3H cannot go up; 2C is under it
    game.pop()
    assert (texts(game.waste), game.talon_seen, game.unseen_stock) == (["2C", "3H", "4H"], 3, 1)


def test_from_layout_counts_the_waste_and_the_given_stock_cards_seen() -> None:
    def layout(stock_seen: int = 0) -> Game:
        return Game.from_layout(
            foundations=[["AC"], [], [], []],
            stock=["5H", "4H", "3H"],
            waste=["2C"],
            stock_seen=stock_seen,
        )

    assert layout().talon_seen == 1
    assert (layout(2).talon_seen, texts(layout(2).seen_stock())) == (3, ["3H", "4H"])
    assert layout(-1).unseen_stock == 0


def test_copy_and_serialisation_carry_it_and_old_dicts_still_load() -> None:
    game = Game.replay("CF1-D3-AAAAACL", ["S", "S", "U", "U"])
    assert game.talon_seen == 6
    assert game.copy().talon_seen == 6
    data = json.loads(json.dumps(game.to_dict()))
    assert data["seen"] == 6
    assert Game.from_dict(data).talon_seen == 6
    assert Game.from_dict(data) == game
    del data["seen"]  # saved before the engine kept it: only the waste counts as seen
    assert Game.from_dict(data).talon_seen == len(game.waste) == 0
    later = Game.replay("CF1-D3-AAAAACL", ["S", "S", "U"])
    data = later.to_dict()
    del data["seen"]
    assert Game.from_dict(data).talon_seen == 3


def play_and_track(code: DealCode, seed: int, steps: int, batched: bool) -> list[str]:
    """Random play (draws, moves, undos, and with ``batched`` the search's
    batched taps), checked after every step against a plain set of cards."""
    rng = random.Random(seed)
    game = Game.deal(code)
    ever: set[int] = set()  # every card ever face up on the waste
    log: list[str] = []
    for _ in range(steps):
        roll = rng.random()
        if roll < 0.15 and game.can_undo:
            game.pop()
            log.append("U")
        elif batched and roll < 0.25 and (game.stock or game.waste):
            taps = rng.randint(1, 12)
            model = game.copy()
            for _ in range(taps):
                model.push(DRAW)
                ever |= set(model.waste)
            game.turn_stock(taps)
            assert game.talon_seen == model.talon_seen
        else:
            moves = list(game.legal_moves())
            if not moves:
                break
            draws = [m for m in moves if m == DRAW]
            move = draws[0] if draws and roll < 0.55 else rng.choice(moves)
            game.push(move)
            log.append(move.text())
        ever |= set(game.waste)
        talon = set(game.waste) | set(game.stock)
        assert set(game.waste) | set(game.seen_stock()) == ever & talon
        assert game.unseen_stock == len(talon - ever)
    if not batched:
        # a log with undos replays to the same seen cards (and the same game)
        replayed = Game.replay(code, log)
        assert replayed.talon_seen == game.talon_seen
        assert replayed == game
    return log


@settings(max_examples=80, deadline=None)
@given(codes, st.integers(0, 2**32), st.integers(1, 300), st.booleans())
def test_the_seen_count_is_the_set_of_cards_ever_turned_up(
    code: DealCode, seed: int, steps: int, batched: bool
) -> None:
    play_and_track(code, seed, steps, batched)
