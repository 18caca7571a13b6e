"""Random hostile frames for the protocol fuzz test, from a seeded ``random.Random``.

Each generator returns the frame (text or bytes) to send. The kinds cover
what a broken or malicious client sends: JSON that is not an object,
unknown and missing types, wrong field types, huge numbers, unicode
oddities (lone surrogates, controls, bidi overrides, noncharacters),
garbage text, binary frames, frames over the size cap, deep nesting, and
well-formed messages sent where they are not allowed.
"""

from __future__ import annotations

import json
import random
from typing import Any

__all__ = ["TYPES", "ODD_STRINGS", "frame"]

#: every client message type of protocol v1 (docs/protocol.md)
TYPES = [
    "hello",
    "create",
    "join",
    "resume",
    "settings",
    "ready",
    "start",
    "move",
    "tap",
    "undo",
    "give_up",
    "rematch",
    "add_bot",
    "kick",  # "leave" is left out: it legitimately ends the fuzzing seat
    "ping",
]
FIELDS = [
    "v",
    "name",
    "room",
    "role",
    "token",
    "settings",
    "draw",
    "deal",
    "time_limit_s",
    "winnable_only",
    "ready",
    "seq",
    "move",
    "card",
    "double_click",
    "strength",
    "pace_s",
    "t",
]
ODD_STRINGS = [
    "",
    " ",
    "\u0000",
    "\x07\x1b[31m",
    "\ud800",  # lone high surrogate (sent as a JSON escape)
    "\udfff",  # lone low surrogate
    "\ud83d\ude00",  # a valid pair written as two escapes
    "\u202eevil",  # right-to-left override
    "\ufeff",
    "\uffff\ufffe",  # noncharacters
    "e\u0301\u0301\u0301\u0301",  # stacked combining marks
    "\u200b\u200d",  # zero-width space and joiner
    "<script>alert(1)</script>",
    "'; DROP TABLE rooms; --",
    "%s%s%n",
    "..\\..\\etc\\passwd",
    "S",
    "W-F",
    "2:3-4",
    "R-F",
    "7H",
    "ZZ",
    "CF1-D3-AAAAACL",
    "random",
    "ABC234",
    "player",
    "spectator",
    "🂡" * 30,
    "x" * 300,
]
HUGE_NUMBERS: list[Any] = [
    0,
    -1,
    1,
    2**31,
    2**53 + 1,
    2**63,
    -(2**63) - 1,
    10**40,
    -(10**40),
    1e308,
    -1e-308,
    0.5,
    -0.0,
]


def _value(rng: random.Random, depth: int = 0) -> Any:
    """Any JSON value, weighted towards the awkward ones."""
    pick = rng.random()
    if depth > 3 or pick < 0.3:
        return rng.choice(ODD_STRINGS)
    if pick < 0.55:
        return rng.choice(HUGE_NUMBERS)
    if pick < 0.65:
        return rng.choice([None, True, False])
    if pick < 0.8:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {
        rng.choice(FIELDS + ODD_STRINGS): _value(rng, depth + 1) for _ in range(rng.randint(0, 4))
    }


def _message(rng: random.Random) -> dict[str, Any]:
    """A message of a real type with random fields (mostly the type's own names)."""
    msg: dict[str, Any] = {"type": rng.choice(TYPES)}
    for _ in range(rng.randint(0, 4)):
        msg[rng.choice(FIELDS)] = _value(rng)
    return msg


MOVES = ["S", "W-F", "R-F", "R-1", "1-F", "F1-3", "2:3-4", "9:9-9", "W-0", "U", "G", "1-1", "4-2"]
CARDS = [r + s for r in "A23456789TJQK" for s in "CDHS"]


def _seq(rng: random.Random) -> int:
    return (
        rng.choice([*HUGE_NUMBERS[:9], *range(1, 8)]) if rng.random() < 0.5 else rng.randint(-3, 40)
    )


def _wellformed(rng: random.Random) -> dict[str, Any]:
    """A message that passes the schema, with values a room may refuse."""
    odd = lambda: rng.choice(ODD_STRINGS)  # noqa: E731
    kind = rng.choice(TYPES)
    msg: dict[str, Any] = {"type": kind}
    if kind in ("move", "tap", "undo", "give_up"):
        msg["seq"] = _seq(rng)
    if kind == "move":
        msg["move"] = rng.choice(MOVES) if rng.random() < 0.7 else odd()
    elif kind == "tap":
        msg["card"] = rng.choice(CARDS) if rng.random() < 0.7 else odd()
        msg["double_click"] = rng.random() < 0.5
    elif kind == "settings":
        msg |= {"draw": rng.choice([1, 3]), "deal": odd(), "winnable_only": rng.random() < 0.5}
        msg["time_limit_s"] = rng.choice([None, 0, 29, 30, 7200, 7201, 2**40])
    elif kind in ("create", "join"):
        msg["name"] = odd()
        if kind == "join":
            msg |= {"room": odd(), "role": rng.choice(["player", "spectator"])}
    elif kind == "resume":
        msg |= {"room": odd(), "token": odd()}
    elif kind == "ready":
        msg["ready"] = rng.random() < 0.5
    elif kind == "kick":
        msg["player_id"] = odd()
    elif kind == "add_bot":
        msg |= {"strength": odd(), "pace_s": rng.choice(HUGE_NUMBERS)}
    elif kind == "hello":
        msg["v"] = rng.choice([0, 1, 2, 2**63])
    elif kind == "ping":
        msg["t"] = rng.choice(HUGE_NUMBERS)
    return msg


def _text(rng: random.Random) -> str:
    kind = rng.randrange(14)
    if kind >= 10:
        return json.dumps(_wellformed(rng))
    if kind == 0:  # a JSON value that is not an object
        return json.dumps(_value(rng))
    if kind == 1:  # an unknown or oddly typed ``type``
        return json.dumps({"type": _value(rng), **_message(rng)} | {"type": _value(rng)})
    if kind == 2:  # no type at all
        msg = _message(rng)
        del msg["type"]
        return json.dumps(msg)
    if kind == 3:  # broken JSON: a real message cut short or mangled
        text = json.dumps(_message(rng))
        cut = rng.randrange(1, max(2, len(text)))
        return text[:cut] + rng.choice(["", "}", "\\", '"', ",]", "\x00"])
    if kind == 4:  # random characters
        return "".join(
            chr(rng.choice([rng.randrange(32, 127), rng.randrange(0x80, 0xD7FF)]))
            for _ in range(rng.randint(1, 40))
        )
    if kind == 5:  # deep nesting
        depth = rng.choice([64, 512, 1500])
        return (
            "[" * depth + "]" * depth if rng.random() < 0.5 else '{"a":' * depth + "1" + "}" * depth
        )
    return json.dumps(_message(rng))  # a real type with junk, the most common case


def frame(rng: random.Random, max_frame_bytes: int) -> str | bytes:
    """One hostile frame: mostly text, sometimes binary or over the size cap."""
    pick = rng.random()
    if pick < 0.03:
        return rng.randbytes(rng.randint(0, 64))
    if pick < 0.05:
        pad = "é" if rng.random() < 0.5 else "x"
        return json.dumps(
            {"type": "ping", "t": 1, "pad": pad * (max_frame_bytes + rng.randint(1, 3000))}
        )
    return _text(rng)
