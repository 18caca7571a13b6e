"""Deal codes such as ``CF1-D3-AAAAACL``: parse, format, shuffle.

The seven letters are a base-26 number (A=0 ... Z=25, first letter most
significant) that seeds SplitMix64; a Fisher-Yates shuffle driven by it
orders the deck. ``docs/deal-codes.md`` specifies every step so the
shuffle can be reimplemented in any language; the test vectors in
``tests/shared/test_dealcode.py`` pin it forever.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from .cards import DECK, Card, card_text
from .errors import InvalidDealCodeError

__all__ = ["DealCode", "GAME_VERSION", "LETTERS", "CODE_LENGTH", "shuffled_deck"]

GAME_VERSION = "CF1"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
CODE_LENGTH = 7
SEED_SPACE = len(LETTERS) ** CODE_LENGTH
DRAW_MODES = (1, 3)

_MASK64 = (1 << 64) - 1


def _splitmix64(state: int) -> tuple[int, int]:
    """One SplitMix64 step: returns (new state, 64-bit output)."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


def shuffled_deck(seed: int) -> list[Card]:
    """The 52 cards in canonical deal order for a seed in [0, 26**7)."""
    deck = list(DECK)
    state = seed
    for i in range(51, 0, -1):
        bound = i + 1
        limit = (1 << 64) - ((1 << 64) % bound)
        while True:
            state, value = _splitmix64(state)
            if value < limit:
                break
        j = value % bound
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@dataclass(frozen=True, slots=True)
class DealCode:
    """A deal: the shuffle letters plus the draw mode (1 or 3)."""

    letters: str
    draw: int = 3

    def __post_init__(self) -> None:
        if self.draw not in DRAW_MODES:
            raise InvalidDealCodeError(f"draw mode must be 1 or 3, not {self.draw!r}")
        if len(self.letters) != CODE_LENGTH or any(ch not in LETTERS for ch in self.letters):
            raise InvalidDealCodeError(
                f"deal letters must be {CODE_LENGTH} of A-Z, not {self.letters!r}"
            )

    @classmethod
    def parse(cls, text: str) -> DealCode:
        """Read ``CF1-D3-XXXXXXX``: case-insensitive, outer spaces ignored."""
        if not isinstance(text, str):
            raise InvalidDealCodeError(f"a deal code is text, not {type(text).__name__}")
        cleaned = text.strip().upper()
        if not cleaned:
            raise InvalidDealCodeError("empty deal code: expected e.g. CF1-D3-AAAAACL")
        parts = cleaned.split("-")
        if len(parts) != 3:
            raise InvalidDealCodeError(
                f"{text.strip()!r} is not a deal code: expected three parts like CF1-D3-AAAAACL"
            )
        version, draw, letters = parts
        if version != GAME_VERSION:
            raise InvalidDealCodeError(
                f"unknown game version {version!r}: this server deals {GAME_VERSION}"
            )
        if draw not in ("D1", "D3"):
            raise InvalidDealCodeError(f"unknown draw mode {draw!r}: expected D1 or D3")
        if len(letters) != CODE_LENGTH:
            raise InvalidDealCodeError(
                f"the shuffle part must have {CODE_LENGTH} letters, {letters!r} has {len(letters)}"
            )
        bad = sorted({ch for ch in letters if ch not in LETTERS})
        if bad:
            raise InvalidDealCodeError(
                f"the shuffle part may use only the letters A-Z, not {''.join(bad)!r}"
            )
        return cls(letters, int(draw[1]))

    @classmethod
    def random(cls, draw: int = 3) -> DealCode:
        return cls.from_seed(secrets.randbelow(SEED_SPACE), draw)

    @classmethod
    def from_seed(cls, seed: int, draw: int = 3) -> DealCode:
        if not 0 <= seed < SEED_SPACE:
            raise InvalidDealCodeError(f"seed must be in [0, 26**7), not {seed}")
        letters = []
        for _ in range(CODE_LENGTH):
            seed, digit = divmod(seed, 26)
            letters.append(LETTERS[digit])
        return cls("".join(reversed(letters)), draw)

    @property
    def seed(self) -> int:
        value = 0
        for ch in self.letters:
            value = value * 26 + LETTERS.index(ch)
        return value

    def with_draw(self, draw: int) -> DealCode:
        return DealCode(self.letters, draw)

    def deck(self) -> list[Card]:
        """All 52 cards in canonical deal order (docs/rules.md, "The layout")."""
        return shuffled_deck(self.seed)

    def layout(self) -> dict[str, Any]:
        """The deal as text, split into its piles (docs/deal-codes.md).

        ``{"code", "draw", "reserve": [13 cards, bottom first], "base",
        "tableau": [[c1], [c2], [c3], [c4]], "stock": [34 cards, first
        turned first]}``; JSON-ready. This shows every card, face-down ones
        included: it describes a deal, not what a player may see.
        """
        cards = [card_text(card) for card in self.deck()]
        return {
            "code": str(self),
            "draw": self.draw,
            "reserve": cards[0:13],
            "base": cards[13],
            "tableau": [[card] for card in cards[14:18]],
            "stock": cards[18:52],
        }

    def __str__(self) -> str:
        return f"{GAME_VERSION}-D{self.draw}-{self.letters}"
