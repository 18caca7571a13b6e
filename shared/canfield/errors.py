"""Every error the rules engine raises.

::

    CanfieldError (ValueError)
     +-- InvalidDealCodeError   the text is not a deal code
     +-- InvalidCardError       the text is not a card
     +-- InvalidMoveError       the text is not a move (syntax only)
     +-- IllegalMoveError       a well-formed move that breaks a rule here
     +-- NothingToUndoError     undo with an empty history

All subclass ``ValueError`` so callers that only care about "bad input"
can catch one thing; the server turns each into an error message.
"""

from __future__ import annotations

__all__ = [
    "CanfieldError",
    "InvalidDealCodeError",
    "InvalidCardError",
    "InvalidMoveError",
    "IllegalMoveError",
    "NothingToUndoError",
]


class CanfieldError(ValueError):
    """Base class of every engine error."""


class InvalidDealCodeError(CanfieldError):
    """A deal code that cannot be parsed; the message names what is wrong."""


class InvalidCardError(CanfieldError):
    """Text that is not a card such as ``7H`` or ``TS``."""


class InvalidMoveError(CanfieldError):
    """Move text that does not parse, whatever the position."""


class IllegalMoveError(CanfieldError):
    """A move that parses but breaks a rule in the current position.

    ``rule`` is a short stable identifier (e.g. ``"column-build"``) that
    clients can map to their own wording; the message is English prose.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


class NothingToUndoError(CanfieldError):
    """Undo was asked for with no action left in the history."""
