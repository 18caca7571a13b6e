"""Property tests: random deals, random legal play with undos mixed in.

Each example deals a random code and plays a random sequence in which
most steps are a legal move and some are undos, checking the invariants
players and the server rely on after every step.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from canfield import DRAW, POINTS_PER_CARD, UNDO_LIMIT, DealCode, Game, Move, card_text
from canfield.dealcode import SEED_SPACE
from canfield.moves import _CACHE
from hypothesis import given, settings
from hypothesis import strategies as st

codes = st.builds(DealCode.from_seed, st.integers(0, SEED_SPACE - 1), st.sampled_from([1, 3]))
#: one number per step: picks a legal move, or (1 in 6) an undo. Drawn
#: from a seeded generator so that sequences are long (up to 250 steps).
steps = st.builds(
    lambda rng, length: [rng.randrange(2**16) for _ in range(length)],
    st.randoms(use_true_random=False),
    st.integers(1, 250),
)

EVERY_MOVE = sorted(set(_CACHE.values()))
PROPERTY = settings(max_examples=120, deadline=None)


def all_cards(game: Game) -> list[int]:
    piles = [game.reserve, game.stock, game.waste, *game.tableau, *game.foundations]
    return [card for pile in piles for card in pile]


def view_cards(view: dict[str, Any]) -> list[str]:
    """Every card text anywhere in a player view."""
    found = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and len(value) == 2 and value[1] in "CDHS":
            found.append(value)

    walk(view)
    return found


def random_play(
    code: DealCode, picks: list[int], check: Callable[[Game, list[Move]], None]
) -> tuple[Game, list[str]]:
    """Play ``picks`` on ``code``; call ``check(game, done)`` after each step."""
    game = Game.deal(code)
    texts: list[str] = []
    done: list[Move] = []  # the moves in effect (undone ones removed)
    check(game, done)
    for pick in picks:
        if pick % 6 == 0 and game.can_undo:
            assert game.pop() == done.pop()
            texts.append("U")
        else:
            moves = list(game.legal_moves())
            if not moves:
                break
            move = moves[pick % len(moves)]
            game.push(move)
            done.append(move)
            texts.append(move.text())
        check(game, done)
    return game, texts


@PROPERTY
@given(codes, steps)
def test_cards_score_and_view_stay_consistent(code: DealCode, picks: list[int]) -> None:
    def check(game: Game, done: list[Move]) -> None:
        cards = all_cards(game)
        assert sorted(cards) == list(range(52))
        placed = sum(m.dst == "F" for m in done)
        taken_back = sum(m.src == "F" for m in done)
        assert game.score == POINTS_PER_CARD * placed >= 0
        assert game.on_foundations == 1 + placed - taken_back
        assert game.is_won == (game.on_foundations == 52)
        # the player view shows no face-down card, but shows the counts
        view = game.view()
        hidden = {card_text(c) for c in game.stock} | {card_text(c) for c in game.reserve[:-1]}
        shown = view_cards(view)
        assert not hidden & set(shown)
        assert len(shown) == len(set(shown))
        assert view["stock"]["count"] == len(game.stock)
        assert view["reserve"]["count"] == len(game.reserve)
        assert view["waste"]["count"] == len(game.waste)
        assert view["score"] == game.score
        json.dumps(view)

    random_play(code, picks, check)


@PROPERTY
@given(codes, steps)
def test_undo_restores_the_previous_state_exactly(code: DealCode, picks: list[int]) -> None:
    def check(game: Game, done: list[Move]) -> None:
        before = game.to_dict()
        history = before.pop("history")
        seen = before.pop("seen")
        for move in list(game.legal_moves()):
            # undo never hides again what a tap showed: a draw leaves the
            # cards it turned seen, whatever else comes back
            drawn = min(game.draw, len(game.stock)) if move == DRAW else 0
            expected = max(seen, len(game.waste) + drawn) if drawn else seen
            game.push(move)
            game.pop()
            after = game.to_dict()
            # a push onto a full history forgets the oldest action (the
            # 100-action undo limit); everything else comes back as it was
            kept = after.pop("history")
            assert after.pop("seen") == expected, move
            game.talon_seen = seen
            assert after == before, move
            assert kept == history[len(history) - len(kept) :]
            full = len(history) == UNDO_LIMIT
            assert len(kept) == (UNDO_LIMIT - 1 if full else len(history))

    random_play(code, picks, check)


@PROPERTY
@given(codes, steps)
def test_replay_and_serialisation_reproduce_the_game(code: DealCode, picks: list[int]) -> None:
    game, texts = random_play(code, picks, lambda game, done: None)
    assert Game.replay(str(code), texts).to_dict() == game.to_dict()
    assert Game.replay(code, texts) == game
    data = json.loads(json.dumps(game.to_dict()))
    again = Game.from_dict(data)
    assert again.to_dict() == game.to_dict()
    assert again.view() == game.view()
    # the restored game goes on exactly like the original, undo included
    while game.can_undo:
        assert again.pop() == game.pop()
        assert again.to_dict() == game.to_dict()
    copy = Game.from_dict(data).copy()
    assert copy.to_dict() == data


@PROPERTY
@given(codes, steps)
def test_generated_moves_are_exactly_the_legal_ones(code: DealCode, picks: list[int]) -> None:
    def check(game: Game, done: list[Move]) -> None:
        if len(done) % 4:
            return
        generated = list(game.legal_moves())
        assert len(generated) == len(set(generated))
        kept = list(game.legal_moves(takebacks=False))
        assert kept == [m for m in generated if m.src != "F"]
        no_runs = list(game.legal_moves(runs=False))
        assert no_runs == [m for m in generated if not (m.src == "T" and m.dst == "T")]
        legal = [m for m in EVERY_MOVE if game.is_legal(m)]
        assert set(legal) <= set(generated)
        assert all(game.is_legal(m) for m in generated)
        for card in range(52):
            tapped = game.tap_move(card)
            if tapped is not None:
                assert tapped in generated
            plain = game.tap_move(card, double_click=False)
            assert plain is None or plain.dst == "F"

    random_play(code, picks, check)


@settings(max_examples=30, deadline=None)
@given(codes, steps, st.integers(1, 30))
def test_turn_stock_is_that_many_taps_and_one_pop_undoes_it(
    code: DealCode, picks: list[int], taps: int
) -> None:
    """The solver's batched taps must land where the player's taps do."""

    def check(game: Game, done: list[Move]) -> None:
        if not game.stock and not game.waste:
            return
        before = game.to_dict()
        tapped = game.copy()
        for _ in range(taps):
            tapped.push(Move.parse("S"))
        game.turn_stock(taps)
        assert (game.stock, game.waste, game.fan, game.talon_seen) == (
            tapped.stock,
            tapped.waste,
            tapped.fan,
            tapped.talon_seen,
        )
        game.pop()
        after = game.to_dict()
        # a full history forgot its oldest action (the undo limit), as any push does;
        # the cards the taps showed stay seen
        history, kept = before.pop("history"), after.pop("history")
        assert after.pop("seen") == tapped.talon_seen
        before.pop("seen")
        assert after == before
        assert kept == history[len(history) - len(kept) :]

    random_play(code, picks, check)
