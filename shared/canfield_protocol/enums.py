"""The words both sides of the wire share, as enums (each also a plain ``str``).

A ``StrEnum`` member equals its text (``Phase.RACING == "racing"``) and
encodes as it, so the JSON on the wire is unchanged; code on either side
names the member instead of retyping the string.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Phase", "Role", "MemberStatus", "Cap", "ReviewState", "Outcome"]


class Phase(StrEnum):
    """Where a room is. ``COUNTDOWN`` is only shown to clients: the server stores
    ``RACING`` with a start time in the future."""

    LOBBY = "lobby"
    COUNTDOWN = "countdown"
    RACING = "racing"
    FINISHED = "finished"


class Role(StrEnum):
    PLAYER = "player"
    SPECTATOR = "spectator"


class MemberStatus(StrEnum):
    """A racer's status on the leaderboard. ``DISCONNECTED`` is shown, never
    stored: a playing racer away (no live connection) within the grace time."""

    PLAYING = "playing"
    WON = "won"
    GAVE_UP = "gave_up"
    DISCONNECTED = "disconnected"
    #: away past the grace time: out of the race, ranked by their progress
    LEFT = "left"
    #: still playing when the time limit hit; their time is the race's length
    TIMED_OUT = "timed_out"
    #: still playing when the host ended the race; their time is the race's length then
    STOPPED = "stopped"


class Cap(StrEnum):
    """Which limit refused a request (``params.cap`` of a ``room-full`` or a
    ``rate-limited`` error, next to ``params.limit``, its number), so a client
    can say what was full: bots are not people, and open rooms are not new ones."""

    #: bots the host may add to one room
    BOTS = "bots"
    #: players in one room (people and bots)
    PLAYERS = "players"
    #: spectators in one room
    SPECTATORS = "spectators"
    #: rooms one client address holds open at once
    OPEN_ROOMS = "open_rooms"
    #: rooms one client address may create in a minute
    NEW_ROOMS = "new_rooms"


class ReviewState(StrEnum):
    """Where one racer's review of a finished race stands (``GET /replay/<id>/review``)."""

    #: its verdict is ready (decided or not: an undecided verdict is final too)
    DONE = "done"
    #: the solver is on it (or it waits for its turn): ask again later
    PENDING = "pending"
    #: the line could not be read by the engine (never for a line the server stored)
    FAILED = "failed"


class Outcome(StrEnum):
    """A review's verdict in one word, the one the page puts into a sentence."""

    #: the racer won
    WON = "won"
    #: the deal could still be won where the racer stopped
    WINNABLE = "winnable"
    #: the deal could not be won from the start
    UNWINNABLE = "unwinnable"
    #: winnable at the start, lost at ``slip``
    SLIP = "slip"
    #: a solver call ran out of time before both sides were decided
    UNDECIDED = "undecided"
