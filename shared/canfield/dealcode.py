"""Deal codes such as ``CF1-D3-AAAAACL`` and ``CF2-D3-...``: parse, format, shuffle.

Two versions, both dealt forever (``docs/deal-codes.md`` specifies every
step so either shuffle can be reimplemented in any language; the test
vectors in ``tests/shared/test_dealcode.py`` pin them):

* ``CF1``: seven letters A-Z, a base-26 number (about 33 bits) that seeds
  SplitMix64. Short enough to type; a host who types one in knows the deal.
* ``CF2``: 26 characters of Crockford's base32 alphabet, a 130-bit secret
  seed; the shuffle draws from SHA-256 of the seed in counter mode. Every
  random deal is a ``CF2`` code, so nobody can work the deal out from the
  cards a board shows.

Both lay the shuffled deck out in the same canonical deal order, and a
Fisher-Yates shuffle with rejection sampling turns the random stream
into the order.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from .cards import DECK, Card, card_text
from .errors import InvalidDealCodeError
from .textinput import ascii_upper, excerpt, strip_spaces

__all__ = [
    "DealCode",
    "GAME_VERSION",
    "VERSIONS",
    "RANDOM_VERSION",
    "LETTERS",
    "CODE_LENGTH",
    "SEED_SPACE",
    "BASE32",
    "CODE_LENGTH_V2",
    "SEED_SPACE_V2",
    "shuffled_deck",
    "shuffled_deck_v2",
]

#: the longest text ``DealCode.parse`` reads (a grouped CF2 code and spaces fit)
MAX_TEXT = 128
#: how much of a bad code an error quotes: a whole CF2 code, grouped, fits
_QUOTE = 48
#: the version prefix of the short, typed-in codes (``CF1-D3-AAAAACL``)
GAME_VERSION = "CF1"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
CODE_LENGTH = 7
#: how many CF1 deals there are per draw mode: 26**7, about 2**32.9
SEED_SPACE = len(LETTERS) ** CODE_LENGTH

#: Crockford's base32: digits and capitals without I, L, O and U
BASE32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH_V2 = 26
#: how many CF2 deals there are per draw mode: 32**26 = 2**130
SEED_SPACE_V2 = len(BASE32) ** CODE_LENGTH_V2
#: reading a CF2 code, these stand for the digits they look like (Crockford)
_ALIASES = {"O": "0", "I": "1", "L": "1"}
#: characters a CF2 shuffle part may be grouped with; reading drops them
_GROUPING = "- "
#: what SHA-256 hashes first in every block of the CF2 stream
V2_DOMAIN = b"canfield-race CF2 deal\x00"
#: the seed's width in the hashed message: 130 bits in 17 bytes
_V2_SEED_BYTES = 17

#: every version prefix this engine deals, oldest first
VERSIONS = ("CF1", "CF2")
#: the version ``DealCode.random`` draws
RANDOM_VERSION = 2
DRAW_MODES = (1, 3)

_MASK64 = (1 << 64) - 1
_TWO64 = 1 << 64


def _splitmix64(state: int) -> tuple[int, int]:
    """One SplitMix64 step: returns (new state, 64-bit output)."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


def _fisher_yates(next64: Callable[[], int]) -> list[Card]:
    """New-deck order shuffled with 64-bit outputs of ``next64``, without bias."""
    deck = list(DECK)
    for i in range(51, 0, -1):
        bound = i + 1
        limit = _TWO64 - (_TWO64 % bound)
        value = next64()
        while value >= limit:
            value = next64()
        j = value % bound
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def shuffled_deck(seed: int) -> list[Card]:
    """CF1: the 52 cards in canonical deal order for a seed in [0, 26**7)."""
    state = seed

    def next64() -> int:
        nonlocal state
        state, value = _splitmix64(state)
        return value

    return _fisher_yates(next64)


def v2_block(seed: int, counter: int) -> bytes:
    """Block ``counter`` of the CF2 stream: SHA-256(domain, seed in 17 bytes, counter in 4)."""
    return hashlib.sha256(
        V2_DOMAIN + seed.to_bytes(_V2_SEED_BYTES, "big") + counter.to_bytes(4, "big")
    ).digest()


def shuffled_deck_v2(seed: int) -> list[Card]:
    """CF2: the 52 cards in canonical deal order for a seed in [0, 2**130).

    The stream is block 0, block 1, ... (``v2_block``) read as big-endian
    64-bit words, four a block.
    """
    prefix = hashlib.sha256(V2_DOMAIN + seed.to_bytes(_V2_SEED_BYTES, "big"))
    words: list[int] = []
    counter = 0

    def next64() -> int:
        nonlocal counter
        if not words:
            block = prefix.copy()
            block.update(counter.to_bytes(4, "big"))
            digest = block.digest()
            counter += 1
            # reversed, so pop() hands out the words first to last
            words.extend(int.from_bytes(digest[k : k + 8], "big") for k in (24, 16, 8, 0))
        return words.pop()

    return _fisher_yates(next64)


@dataclass(frozen=True, slots=True)
class DealCode:
    """A deal: the shuffle part, the draw mode (1 or 3) and the version (1 or 2).

    ``letters`` is the shuffle part as written: seven of A-Z for version 1,
    26 of ``BASE32`` for version 2.
    """

    letters: str
    draw: int = 3
    version: int = 1

    #: version -> how many shuffles its codes name (per draw mode)
    SEED_SPACES: ClassVar[dict[int, int]] = {1: SEED_SPACE, 2: SEED_SPACE_V2}
    #: the version ``random`` draws (its space is ``SEED_SPACES[RANDOM_VERSION]``)
    RANDOM_VERSION: ClassVar[int] = RANDOM_VERSION

    def __post_init__(self) -> None:
        if self.draw not in DRAW_MODES:
            raise InvalidDealCodeError(f"draw mode must be 1 or 3, not {self.draw!r}")
        if self.version == 1:
            if len(self.letters) != CODE_LENGTH or any(ch not in LETTERS for ch in self.letters):
                raise InvalidDealCodeError(
                    f"deal letters must be {CODE_LENGTH} of A-Z, not {excerpt(self.letters)}"
                )
        elif self.version == 2:
            if len(self.letters) != CODE_LENGTH_V2 or any(ch not in BASE32 for ch in self.letters):
                raise InvalidDealCodeError(
                    f"a CF2 shuffle part must be {CODE_LENGTH_V2} of {BASE32}, "
                    f"not {excerpt(self.letters)}"
                )
        else:
            raise InvalidDealCodeError(f"version must be 1 or 2, not {self.version!r}")

    @classmethod
    def parse(cls, text: str) -> DealCode:
        """Read ``CF1-D3-XXXXXXX`` or ``CF2-D3-`` + 26 characters.

        Case-insensitive, outer (ASCII) spaces ignored. In a CF2 shuffle
        part, dashes and spaces (grouping) are ignored and ``O``, ``I``,
        ``L`` read as ``0``, ``1``, ``1``. Only ASCII is read: only ``a-z``
        are folded (``'ſ'.upper()`` would be ``S``), and every part is
        checked against its explicit alphabet. At most ``MAX_TEXT``
        characters; an error quotes a short prefix of the text.
        """
        if not isinstance(text, str):
            raise InvalidDealCodeError(f"a deal code is text, not {type(text).__name__}")
        if len(text) > MAX_TEXT:
            raise InvalidDealCodeError(
                f"{excerpt(text)} is too long to be a deal code (at most {MAX_TEXT} characters)"
            )
        # no Unicode case mapping: a non-ASCII character stays itself and is
        # refused by the explicit alphabets below, naming it
        cleaned = ascii_upper(strip_spaces(text))
        if not cleaned:
            raise InvalidDealCodeError("empty deal code: expected e.g. CF1-D3-AAAAACL")
        if cleaned.startswith(VERSIONS[1] + "-"):
            return cls._parse_v2(text, cleaned)
        parts = cleaned.split("-")
        if len(parts) != 3:
            raise InvalidDealCodeError(
                f"{excerpt(strip_spaces(text), _QUOTE)} is not a deal code: "
                "expected three parts like CF1-D3-AAAAACL"
            )
        version, draw, letters = parts
        if version != GAME_VERSION:
            raise InvalidDealCodeError(
                f"unknown game version {excerpt(version)}: "
                f"this server deals {' and '.join(VERSIONS)}"
            )
        draw_mode = _read_draw(draw)
        if len(letters) != CODE_LENGTH:
            raise InvalidDealCodeError(
                f"the shuffle part must have {CODE_LENGTH} letters, "
                f"{excerpt(letters)} has {len(letters)}"
            )
        bad = sorted({ch for ch in letters if ch not in LETTERS})
        if bad:
            raise InvalidDealCodeError(
                f"the shuffle part may use only the letters A-Z, not {excerpt(''.join(bad))}"
            )
        return cls(letters, draw_mode)

    @classmethod
    def _parse_v2(cls, text: str, cleaned: str) -> DealCode:
        _, rest = cleaned.split("-", 1)
        draw, _, shuffle = rest.partition("-")
        draw_mode = _read_draw(draw)
        chars = "".join(_ALIASES.get(ch, ch) for ch in shuffle if ch not in _GROUPING)
        bad = sorted({ch for ch in chars if ch not in BASE32})
        if bad:
            raise InvalidDealCodeError(
                "a CF2 shuffle part may use only 0-9 and A-Z without U, "
                f"not {excerpt(''.join(bad))}"
            )
        if len(chars) != CODE_LENGTH_V2:
            raise InvalidDealCodeError(
                f"a CF2 shuffle part must have {CODE_LENGTH_V2} characters "
                f"(dashes and spaces aside), {excerpt(strip_spaces(text), _QUOTE)} has {len(chars)}"
            )
        return cls(chars, draw_mode, 2)

    @classmethod
    def random(cls, draw: int = 3) -> DealCode:
        """A new secret deal: a CF2 code whose 130-bit seed comes from ``secrets``."""
        return cls.from_seed(secrets.randbelow(SEED_SPACE_V2), draw, RANDOM_VERSION)

    @classmethod
    def from_seed(cls, seed: int, draw: int = 3, version: int = 1) -> DealCode:
        """The code of ``seed``: in [0, 26**7) for version 1, [0, 2**130) for version 2."""
        alphabet, length = (LETTERS, CODE_LENGTH) if version == 1 else (BASE32, CODE_LENGTH_V2)
        space = cls.SEED_SPACES.get(version)
        if space is None:
            raise InvalidDealCodeError(f"version must be 1 or 2, not {version!r}")
        if not 0 <= seed < space:
            raise InvalidDealCodeError(
                f"a version {version} seed must be in [0, {space}), not {seed}"
            )
        digits = []
        for _ in range(length):
            seed, digit = divmod(seed, len(alphabet))
            digits.append(alphabet[digit])
        return cls("".join(reversed(digits)), draw, version)

    @property
    def seed(self) -> int:
        alphabet = LETTERS if self.version == 1 else BASE32
        value = 0
        for ch in self.letters:
            value = value * len(alphabet) + alphabet.index(ch)
        return value

    @property
    def seed_space(self) -> int:
        """How many shuffles this code's version names: 26**7 (CF1) or 2**130 (CF2)."""
        return self.SEED_SPACES[self.version]

    def with_draw(self, draw: int) -> DealCode:
        return DealCode(self.letters, draw, self.version)

    def deck(self) -> list[Card]:
        """All 52 cards in canonical deal order (docs/rules.md, "The layout")."""
        if self.version == 1:
            return shuffled_deck(self.seed)
        return shuffled_deck_v2(self.seed)

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
        return f"{VERSIONS[self.version - 1]}-D{self.draw}-{self.letters}"


def _read_draw(part: str) -> int:
    if part not in ("D1", "D3"):
        raise InvalidDealCodeError(f"unknown draw mode {excerpt(part)}: expected D1 or D3")
    return int(part[1])
