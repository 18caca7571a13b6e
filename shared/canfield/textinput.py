"""Helpers every parser of typed-in text shares: the ASCII rule and short quotes.

Move texts, card texts and deal codes are ASCII by definition. A parser
checks that first, before ``upper()`` or any digit test, because Unicode
maps other characters onto ASCII ones (``'ſ'.upper() == 'S'``, ``'٣'``
and ``'²'`` are digits to ``str.isdigit``). And an error message quotes
only a short prefix of the bad text, so a megabyte of input never comes
back in a message.
"""

from __future__ import annotations

__all__ = ["BLANK", "QUOTE_LIMIT", "SPACES", "ascii_upper", "excerpt", "strip_spaces"]

#: how many characters of a bad input an error message quotes
QUOTE_LIMIT = 20
#: the white space a parser trims around a text: ASCII only
SPACES = " \t\n\r\x0b\x0c"
#: what a move or a card text may have around it: the space alone (docs/moves.md)
BLANK = " "
_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def excerpt(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` quoted for an error message: whole if short, else its first
    ``limit`` characters, ``...`` and the length (``'AAAA'... (100000 characters)``)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def strip_spaces(text: str, spaces: str = SPACES) -> str:
    """``text`` without the ASCII white space around it (``str.strip`` would
    also drop Unicode spaces such as U+3000); ``BLANK``: spaces only."""
    return text.strip(spaces)


def ascii_upper(text: str) -> str:
    """``text`` with ``a-z`` made upper case and every other character left as
    it is: unlike ``str.upper``, nothing else turns into an ASCII letter
    (``'ſ'`` stays ``'ſ'``) and the length never changes (``'ﬃ'`` stays one)."""
    return text.translate(_UPPER)
