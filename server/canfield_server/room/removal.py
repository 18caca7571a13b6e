"""Who removed a seat, as the change says it and as the seat's connections hear it.

A change that removes seats carries one mark, ``kicked``, on the room bus to
every process serving the room: the member the host kicked (their id), one
member the operator removed (``removed_by_operator``), or the whole room
closed by the operator (``CLOSED_BY_OPERATOR``); none for a seat given up
or timed out. The writers (``room.seating``, ``room.closing``) and the
reader (``RoomSession``, on each process) meet here, so the mark means one
thing everywhere.
"""

from __future__ import annotations

from typing import NamedTuple

from canfield_protocol import CLOSE_KICKED, Kicked, Left

from canfield_server.room import frames

__all__ = ["CLOSED_BY_OPERATOR", "Farewell", "farewell", "removed_by_operator"]

#: the ``kicked`` of the change that closes a room (``room.closing``): every seat
#: went at once, by the operator's hand (no member id is ever ``*``)
CLOSED_BY_OPERATOR = "*"


def removed_by_operator(member_id: str) -> str:
    """The ``kicked`` of the change in which the operator removes one member
    (``room.closing``): told apart from the host's kick, which names the id alone."""
    return f"{CLOSED_BY_OPERATOR}{member_id}"


class Farewell(NamedTuple):
    """What a connection whose seat went is told, and how it is closed."""

    #: ``kicked`` (with who did it), or ``left``
    frame: str
    #: the close code and reason; None: it stays open (it may join again)
    close: tuple[int, str] | None


def farewell(code: str, member_id: str, kicked: str | None) -> Farewell:
    """The farewell of ``member_id``'s connections to room ``code`` when the
    change marked ``kicked`` took their seat."""
    if kicked == CLOSED_BY_OPERATOR:
        text = "the server's operator closed the room"
        told = Kicked(room=code, message=text, by="operator", closed=True)
        return Farewell(frames.text(told), (CLOSE_KICKED, "room closed by the operator"))
    if kicked == removed_by_operator(member_id):
        text = "the server's operator removed you from the room"
        told = Kicked(room=code, message=text, by="operator")
        return Farewell(frames.text(told), (CLOSE_KICKED, "removed by the operator"))
    if member_id == kicked:
        text = "the host removed you from the room"
        told = Kicked(room=code, message=text)
        return Farewell(frames.text(told), (CLOSE_KICKED, "removed by the host"))
    return Farewell(frames.text(Left(room=code)), None)
