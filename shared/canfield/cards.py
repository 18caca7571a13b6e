"""Cards as small integers, with their two-character text form.

A card is ``rank * 4 + suit`` with rank 0..12 (A..K) and suit 0..3
(C, D, H, S). Integers keep the hot paths (move checks, hashing, copying
piles) cheap; ``card_text`` / ``parse_card`` give the text form
``7H``, ``TS`` used everywhere a person or a message sees a card.
"""

from __future__ import annotations

from .errors import InvalidCardError
from .textinput import BLANK, ascii_upper, excerpt, strip_spaces

__all__ = [
    "Card",
    "RANKS",
    "SUITS",
    "DECK",
    "BUILDS_ON",
    "card_text",
    "parse_card",
]

Card = int

RANKS = "A23456789TJQK"
SUITS = "CDHS"

#: The 52 cards in new-deck order: clubs A..K, diamonds, hearts, spades.
DECK: tuple[Card, ...] = tuple(rank * 4 + suit for suit in range(4) for rank in range(13))

_TEXT = tuple(RANKS[c >> 2] + SUITS[c & 3] for c in range(52))
_BY_TEXT = {text: card for card, text in enumerate(_TEXT)}
#: a card text never needs more characters than this, spaces around it included
_MAX_TEXT = 64

#: ``BUILDS_ON[child * 52 + parent]``: child may lie on parent in a column:
#: the other colour (diamonds and hearts are red) and one rank lower (A takes a K).
BUILDS_ON: tuple[bool, ...] = tuple(
    ((child & 3) in (1, 2)) != ((parent & 3) in (1, 2)) and (child >> 2) == ((parent >> 2) - 1) % 13
    for child in range(52)
    for parent in range(52)
)


def card_text(card: Card) -> str:
    return _TEXT[card]


def parse_card(text: str) -> Card:
    """``"7h"`` -> the seven of hearts; case-insensitive, spaces (U+0020) trimmed.

    Only ASCII is read: only ``a-z`` are folded, so no other character
    passes for a rank or a suit letter.
    """
    if not isinstance(text, str):
        raise InvalidCardError(f"a card is text, not {type(text).__name__}")
    card = _BY_TEXT.get(text)
    if card is not None:
        return card
    # only a-z are folded: no other character turns into a rank or a suit
    key = ascii_upper(strip_spaces(text, BLANK)) if len(text) <= _MAX_TEXT else ""
    if key.startswith("10") and len(key) == 3:
        key = "T" + key[2]
    try:
        return _BY_TEXT[key]
    except KeyError:
        raise InvalidCardError(
            f"{excerpt(text)} is not a card: expected a rank from {RANKS} then a suit from {SUITS}"
        ) from None
