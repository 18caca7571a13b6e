"""Canfield rules engine: pure Python, standard library only, no I/O.

>>> from canfield import Game, Move
>>> game = Game.deal("CF1-D3-AAAAACL")
>>> game.push(Move.parse("S"))
>>> game.pop()
Move.parse('S')
"""

from .cards import RANKS, SUITS, Card, card_text, parse_card
from .dealcode import DealCode
from .errors import (
    CanfieldError,
    IllegalMoveError,
    InvalidCardError,
    InvalidDealCodeError,
    InvalidMoveError,
    NothingToUndoError,
)
from .game import POINTS_PER_CARD, UNDO_LIMIT, WIN_SCORE, Game, render
from .moves import DRAW, UNDO, Move

__all__ = [
    "RANKS",
    "SUITS",
    "Card",
    "card_text",
    "parse_card",
    "DealCode",
    "CanfieldError",
    "IllegalMoveError",
    "InvalidCardError",
    "InvalidDealCodeError",
    "InvalidMoveError",
    "NothingToUndoError",
    "Game",
    "render",
    "Move",
    "DRAW",
    "UNDO",
    "POINTS_PER_CARD",
    "UNDO_LIMIT",
    "WIN_SCORE",
]
