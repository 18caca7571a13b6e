"""Room events between server processes (Redis pub/sub, one channel per room).

A payload is ``<origin> <json>``: the origin lets a process skip its own
events (it applied them before publishing). Room events carry the room
version, so a process keeps only the newest state whatever order they
arrive in.
"""

from __future__ import annotations

from typing import Any

import msgspec
from canfield_protocol import RoomState

from canfield_server.room.ports import StoredRow

__all__ = [
    "RoomEvent",
    "RowEvent",
    "FinishedEvent",
    "Event",
    "pack",
    "pack_row",
    "unpack",
    "VER_SLOT",
]

#: SAVE_ROOM replaces this with the version it wrote
VER_SLOT = b"{ver}"
#: a row event's board when it carries none
NO_BOARD = msgspec.Raw(b"")


class RoomEvent(msgspec.Struct, tag_field="k", tag="room"):
    ver: int
    state: RoomState
    deal: str | None = None
    #: the member the host removed by this change (their connections are told so)
    kicked: str | None = None


class RowEvent(msgspec.Struct, tag_field="k", tag="row"):
    row: StoredRow
    #: a room that shows boards to its spectators: the racer's board after their
    #: action number ``seq`` (their own view: no face-down card); empty: none
    #: (a raw value cannot be optional in a schema)
    seq: int = 0
    board: msgspec.Raw = NO_BOARD


class FinishedEvent(msgspec.Struct, tag_field="k", tag="finished"):
    ver: int
    state: RoomState
    final: msgspec.Raw


Event = RoomEvent | RowEvent | FinishedEvent

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Event)


def pack(origin: bytes, event: Any) -> bytes:
    """Encode an event; a room version of -1 becomes the slot SAVE_ROOM fills in."""
    body = _encoder.encode(event)
    if getattr(event, "ver", None) == -1:
        body = body.replace(b'"ver":-1', b'"ver":' + VER_SLOT, 1)
    return origin + b" " + body


def pack_row(origin: bytes, row_json: bytes, board: bytes | None = None, seq: int = 0) -> bytes:
    """``pack(origin, RowEvent(row, seq, board))`` for a row (and a board) already
    encoded (the move's hot path encodes each row once, for the rows hash and
    this event alike)."""
    if board is None:
        return origin + b' {"k":"row","row":' + row_json + b"}"
    return b'%s {"k":"row","row":%s,"seq":%d,"board":%s}' % (origin, row_json, seq, board)


def unpack(payload: bytes) -> tuple[bytes, Event]:
    origin, _, body = payload.partition(b" ")
    return origin, _decoder.decode(body)
