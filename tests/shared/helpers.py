"""What several test files share of the engine and the protocol: a dead position,
a stuck player's line, minimal client messages, and texts that look valid but
are not (the tricky characters spliced into move, card and deal texts).

Test files import from here, never from another test file
(``tests/test_architecture.py`` checks that).
"""

from __future__ import annotations

import re
import typing
from typing import Any

import msgspec
from canfield import RANKS, Game, Move
from canfield_protocol import ClientMessage
from hypothesis import strategies as st


def dead_position() -> Game:
    """All 52 cards; the tens are buried in the reserve and nothing can reach them.

    Only the stock tap is legal (the lone KC in the stock never finds a place).
    """
    low = RANKS[:9]
    return Game.from_layout(
        foundations=[
            [r + "C" for r in low],
            [r + "D" for r in RANKS],
            [r + "H" for r in RANKS],
            [r + "S" for r in low],
        ],
        reserve=["TS", "TC", "KS"],
        tableau=[["QC"], ["QS"], ["JS"], ["JC"]],
        stock=["KC"],
        draw=3,
    )


def greedy_line(code: str, actions: int = 300) -> list[str]:
    """Cards home when they go, the reserve played, else a draw (a stuck player's line)."""
    game, line = Game.deal(code), []
    for _ in range(actions):
        moves = [m for m in game.legal_moves() if m.dst == "F" and m.src != "F"]
        moves = moves or [m for m in game.legal_moves() if m.src == "R"]
        moves = moves or [Move.parse("S")]
        game.push(moves[0])
        line.append(moves[0].text())
    return line


LONG = "echo" * 750  # 3,000 characters
MESSAGES = list(typing.get_args(ClientMessage))


def minimal(tp: type[msgspec.Struct]) -> dict[str, Any]:
    """A valid instance of ``tp`` as JSON data: its tag and required fields."""
    hints = typing.get_type_hints(tp, include_extras=True)
    data: dict[str, Any] = {}
    config = tp.__struct_config__
    if config.tag_field is not None:
        data[config.tag_field] = config.tag
    for field in msgspec.structs.fields(tp):
        if field.required:
            data[field.encode_name] = example(hints[field.name])
    return data


def example(tp: Any) -> Any:
    """A value of type ``tp`` the schema accepts."""
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return minimal(tp)
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return constrained(example(typing.get_args(tp)[0]), tp.__metadata__[0])
    if origin is typing.Literal:
        return typing.get_args(tp)[0]
    return {str: "x", int: 1, float: 1.0, bool: True}[tp]


#: the longest engine error message: two short quotes and the prose
ENGINE_MESSAGE_MAX = 400


#: characters Unicode maps onto the ASCII a parser reads, or that str.isdigit,
#: str.strip or str.upper treat like ASCII: each one must be refused
TRICKY = [
    "ſ",  # 'ſ'.upper() == 'S'
    "ı",  # dotless i: upper() is 'I', which CF2 reads as 1
    "\u212a",  # KELVIN SIGN: lower() is 'k'
    "\ufb00",  # 'ﬀ': upper() is 'FF'
    "\ufb03",  # 'ﬃ'
    "²",
    "¹",
    "³",
    "٣",  # ARABIC-INDIC DIGIT THREE
    "१",  # DEVANAGARI DIGIT ONE
    "２",  # FULLWIDTH DIGIT TWO
    "Ｓ",  # FULLWIDTH S
    "Ｗ",
    "ｆ",
    "\u3000",  # IDEOGRAPHIC SPACE: str.strip drops it
    "\xa0",
    "\u2028",
    "\x85",
    "\u2010",  # HYPHEN, not '-'
    "\uff0d",  # FULLWIDTH HYPHEN-MINUS
    "\uff1a",  # FULLWIDTH COLON
    "\ud800",  # a lone surrogate
    "\u0301",  # a combining mark
]


tricky = st.sampled_from(TRICKY) | st.characters(min_codepoint=0x80)


MOVE_TEXTS = ["S", "s", "R-F", "w-3", "2-F", "2-4", "2:3-4", "4:13-1", "F1-3", " f2-4 "]
CARD_TEXTS = ["7H", "7h", " ts ", "10H", "ac", "KS"]


DEAL_TEXTS = [
    "CF1-D3-AAAAACL",
    " cf1-d1-abcdefg ",
    "CF2-D3-7ZK3QM9XJ2BWPHT4VGN6YRCF8D",
    "cf2-d1-7zk3q-m9xj2-bwpht-4vgn6-yrcf8d",
    "CF2-D3-O1IL7ZK3QM9XJ2BWPHT4VGN6YR",
]


def spliced(texts: list[str]) -> st.SearchStrategy[str]:
    """A valid text with one character replaced by, or one inserted from, ``tricky``."""

    def build(text: str, at: int, ch: str, replace: bool) -> str:
        at %= len(text)
        return text[:at] + ch + text[at + replace :]

    return st.builds(build, st.sampled_from(texts), st.integers(0, 100), tricky, st.booleans())


#: a value for each pattern the protocol uses; a new pattern fails here until added
PATTERN_EXAMPLES = ("2026-01-01", "AbCdEfGh_-012345")


def constrained(value: Any, meta: msgspec.Meta) -> Any:
    """``value`` made to meet ``meta``'s pattern and lengths (a short "x" is too short
    for a replay id)."""
    if meta.pattern is not None:
        fits = [text for text in PATTERN_EXAMPLES if re.search(meta.pattern, text)]
        assert fits, f"no example matches the pattern {meta.pattern!r}"
        return fits[0]
    if isinstance(value, str) and meta.min_length is not None:
        return value * meta.min_length
    return value
