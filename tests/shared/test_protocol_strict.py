"""The protocol's edge refuses what it does not know, and never echoes input.

Promise: every struct a client sends (each message of ``ClientMessage`` and
every struct nested in one, found by walking the types, not listed by hand)
refuses an unknown field with ``bad-message`` - a misspelt setting is an
error, never a silent default; and a schema error quotes at most
``ECHO_LIMIT`` characters of anything the client wrote.
"""

from __future__ import annotations

import json
import typing
from typing import Any

import msgspec
import pytest
from canfield_protocol import ECHO_LIMIT, ClientMessage, ErrorCode, ProtocolError, decode_client

from tests.shared.helpers import LONG, MESSAGES, minimal

#: a run this long from LONG in a reply would be an echo
ECHO_RUN = LONG[: ECHO_LIMIT + 1]


def structs_in(tp: Any, seen: set[type[msgspec.Struct]] | None = None) -> set[type[msgspec.Struct]]:
    """Every msgspec Struct type reachable from the annotation ``tp``."""
    seen = set() if seen is None else seen
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        if tp in seen:
            return seen
        seen.add(tp)
        hints = typing.get_type_hints(tp, include_extras=True)
        for field in msgspec.structs.fields(tp):
            structs_in(hints[field.name], seen)
        return seen
    for arg in typing.get_args(tp):
        structs_in(arg, seen)
    return seen


ALL_STRUCTS = sorted(structs_in(ClientMessage), key=lambda t: t.__name__)


def test_the_walk_finds_every_message_and_the_nested_settings() -> None:
    names = {tp.__name__ for tp in ALL_STRUCTS}
    assert {tp.__name__ for tp in MESSAGES} <= names
    assert "NewRoomSettings" in names  # create.settings
    assert len(MESSAGES) >= 23


@pytest.mark.parametrize("tp", ALL_STRUCTS, ids=lambda t: t.__name__)
def test_every_client_struct_refuses_an_unknown_field(tp: type[msgspec.Struct]) -> None:
    assert tp.__struct_config__.forbid_unknown_fields, f"{tp.__name__} ignores unknown fields"
    # and on the wire: the struct itself, or nested where a message holds it
    frames = []
    if tp in MESSAGES:
        frames.append({**minimal(tp), "time_limit": 60})
    else:
        for message in MESSAGES:
            hints = typing.get_type_hints(message, include_extras=True)
            for field in msgspec.structs.fields(message):
                if tp in structs_in(hints[field.name]):
                    nested = {**minimal(tp), "time_limit": 60}
                    frames.append({**minimal(message), field.encode_name: nested})
    assert frames
    for frame in frames:
        with pytest.raises(ProtocolError) as refused:
            decode_client(json.dumps(frame))
        assert refused.value.code == ErrorCode.BAD_MESSAGE
        assert "unknown field" in refused.value.message and "time_limit" in refused.value.message


def test_the_reported_typo_in_create_settings_is_refused() -> None:
    frame = {"type": "create", "name": "A", "settings": {"time_limit": 60}}
    with pytest.raises(ProtocolError) as refused:
        decode_client(json.dumps(frame))
    assert refused.value.code == ErrorCode.BAD_MESSAGE
    assert "$.settings" in refused.value.message


def every_long_frame() -> list[dict[str, Any]]:
    """Each message with one field (every field in turn) set to 3,000 characters,
    with an unknown 3,000-character field, and a 3,000-character type."""
    frames: list[dict[str, Any]] = [{"type": LONG}]
    for message in MESSAGES:
        base = minimal(message)
        frames.append({**base, LONG: 1})
        for field in msgspec.structs.fields(message):
            frames.append({**base, field.encode_name: LONG})
        frames.append({**base, "settings": {LONG: 1}} if message.__name__ == "Create" else base)
    return frames


def test_schema_errors_quote_a_short_prefix_at_most() -> None:
    refused = 0
    for frame in every_long_frame():
        try:
            decode_client(json.dumps(frame))
        except ProtocolError as exc:
            refused += 1
            assert ECHO_RUN not in exc.message, (frame.keys(), exc.message)
            assert len(exc.message) < 200, exc.message
    assert refused >= 2 * len(MESSAGES)  # at least the unknown field and one bad type each
