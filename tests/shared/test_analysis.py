"""has_useful_move: the interface's "no useful move left" note, never a false alarm.

``has_useful_move_seen``, the one a player is shown, answers from what the
player has seen: games that differ only in unseen cards get one answer.
"""

from __future__ import annotations

import random

from canfield import DRAW, RANKS, DealCode, Game, Move
from canfield.analysis import has_useful_move, has_useful_move_seen, known_position
from canfield.dealcode import SEED_SPACE
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared.helpers import dead_position, greedy_line


def back_and_forth(
    stock: tuple[str, ...] = ("7C", "KH"), draw: int = 1, stock_seen: int = 0
) -> Game:
    """Moves exist (the 9H shuttles between the black tens) but none gets anywhere."""
    return Game.from_layout(
        foundations=[[r + "D" for r in RANKS[:7]], [], [], []],
        reserve=["AS", "QC"],
        tableau=[["TS", "9H"], ["TC"], ["3H"], ["5S"]],
        stock=list(stock),
        draw=draw,
        stock_seen=stock_seen,
    )


def test_fresh_deal_has_a_useful_move() -> None:
    game = Game.deal("CF1-D3-AAADKOH")
    assert any(True for _ in game.legal_moves())
    assert has_useful_move(game)


def test_stock_cycling_alone_is_not_useful() -> None:
    game = dead_position()
    assert [m.text() for m in game.legal_moves()] == ["S"]
    assert not has_useful_move(game)


def test_back_and_forth_is_not_useful() -> None:
    game = back_and_forth()
    moves = {m.text() for m in game.legal_moves()}
    assert "1-2" in moves
    assert not has_useful_move(game)


def test_one_step_away_is_useful() -> None:
    # the 8D deep in the stock can go up on the 7D after a few taps
    game = back_and_forth(("8D", "7C", "KH"))
    assert not any(m.dst == "F" for m in game.legal_moves())
    assert has_useful_move(game)


def test_has_useful_move_never_changes_the_game() -> None:
    game = Game.deal("CF1-D3-AAAHXSB")
    game.push(Move.parse("S"))
    before = game.to_dict()
    has_useful_move(game)
    assert game.to_dict() == before
    dead = dead_position()
    before = dead.to_dict()
    has_useful_move(dead)
    assert dead.to_dict() == before


# ---------------------------------------------------------------- from what the player has seen


def test_the_old_flag_leaked_the_stock_order_and_the_new_one_does_not() -> None:
    """Draw 3 with three unseen stock cards: only the last one turned comes up.

    The 8D would go up on the 7D. Where it lies in the face-down stock
    decided the old answer; the player, who has not turned a card, cannot
    know that, and the new answer is "keep drawing" for both.
    """
    up = back_and_forth(("8D", "7C", "KH"), draw=3)  # turned KH, 7C, 8D: the 8D on top
    buried = back_and_forth(("7C", "8D", "KH"), draw=3)  # the 7C on top, forever
    assert sorted(up.stock) == sorted(buried.stock) and up.unseen_stock == 3
    assert (has_useful_move(up), has_useful_move(buried)) == (True, False)  # the leak
    assert has_useful_move_seen(up) is has_useful_move_seen(buried) is True


def test_once_every_stock_card_is_seen_it_answers_as_the_full_search() -> None:
    for stock, useful in ((("8D", "7C", "KH"), True), (("7C", "8D", "KH"), False)):
        game = back_and_forth(stock, draw=3, stock_seen=-1)
        assert game.unseen_stock == 0
        assert has_useful_move_seen(game) is has_useful_move(game) is useful
    # seen by playing: one tap turns all three, and from then on it knows
    game = back_and_forth(("7C", "8D", "KH"), draw=3)
    game.push(DRAW)
    assert game.unseen_stock == 0 and not has_useful_move_seen(game)
    game.pop()  # undo turns the cards face down, but the player has seen them
    assert game.unseen_stock == 0 and not has_useful_move_seen(game)


def test_known_position_keeps_only_the_reserve_top() -> None:
    game = Game.deal("CF1-D3-AAAAACL")
    game.push(DRAW)
    known = known_position(game)
    assert known.reserve == game.reserve[-1:] and len(game.reserve) == 13
    assert (known.stock, known.waste, known.tableau) == (game.stock, game.waste, game.tableau)
    assert not known.history and game.history


def hide_again(game: Game, rng: random.Random) -> Game:
    """A twin of ``game`` with the never-seen stock cards and the reserve
    under its top in another order: everything the player knows is the same."""
    twin = game.copy()
    unseen = twin.stock[: twin.unseen_stock]  # the stock's last cards are turned first
    rng.shuffle(unseen)
    twin.stock[: twin.unseen_stock] = unseen
    hidden = twin.reserve[:-1]
    rng.shuffle(hidden)
    twin.reserve[:-1] = hidden
    assert twin.view() == game.view() and twin.talon_seen == game.talon_seen
    return twin


@settings(max_examples=60, deadline=None)
@given(
    st.builds(DealCode.from_seed, st.integers(0, SEED_SPACE - 1), st.sampled_from([1, 3])),
    st.integers(0, 2**32),
    st.integers(1, 200),
)
def test_games_differing_only_in_unseen_cards_get_the_same_answer(
    code: DealCode, seed: int, steps: int
) -> None:
    """Random play leaning on the stock (so most talons get seen) with undos;
    after every step, twins with the hidden cards reordered answer alike."""
    rng = random.Random(seed)
    game = Game.deal(code)
    for _ in range(steps):
        roll = rng.random()
        if roll < 0.1 and game.can_undo:
            game.pop()
        else:
            moves = list(game.legal_moves())
            if not moves:
                break
            game.push(DRAW if DRAW in moves and roll < 0.5 else rng.choice(moves))
        answer = has_useful_move_seen(game)
        for _ in range(2):
            assert has_useful_move_seen(hide_again(game, rng)) is answer
        if game.unseen_stock:
            assert answer is True


def stuck_by_greedy_play(code: str) -> Game:
    return Game.replay(code, greedy_line(code))


def test_a_card_taken_back_and_played_home_again_is_no_progress() -> None:
    game = stuck_by_greedy_play("CF1-D3-AAAAAAN")
    assert game.unseen_stock == 0 and not has_useful_move_seen(game)
    best = game.on_foundations
    back = next(m for m in game.legal_moves() if m.src == "F")  # take a card back off home
    game.push(back)
    assert game.on_foundations == best - 1
    # counted from where the player stands, playing it home again looks like progress;
    # counted from the most they ever had home, it is none: the note stays
    assert has_useful_move_seen(game)
    assert not has_useful_move_seen(game, best=best)
    assert has_useful_move_seen(game, best=best - 1)
