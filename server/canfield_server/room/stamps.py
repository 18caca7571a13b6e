"""A stored board action with the server's receipt time: ``"2:3-4@1234"``.

Every action a race stores (a move's text, ``U`` for an undo, ``G`` for a
give up) carries the moment the server received it, in ms since that
racer's race started, so a replay can be watched at its real pace and a
result's think times judged (``room.integrity``). The time rides in the
same log entry, so storing it costs the move path nothing more (one list
push, as before). Logs written before times were kept have bare entries:
their time reads ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

__all__ = ["SEPARATOR", "Stamped", "stamp", "unstamp", "split_log", "stamped"]

#: between an action and its time; no move text contains it
SEPARATOR = "@"


class Stamped(NamedTuple):
    """One stored action: its text and its receipt time (None: not kept)."""

    text: str
    at_ms: int | None


def stamp(text: str, at_ms: int) -> str:
    """The log entry of ``text`` received ``at_ms`` after the race's start."""
    return f"{text}{SEPARATOR}{max(0, int(at_ms))}"


def unstamp(entry: str) -> Stamped:
    """An entry as stored -> its action and time (an older bare entry: no time)."""
    text, sep, at = entry.rpartition(SEPARATOR)
    if not sep or not at.isdigit():
        return Stamped(entry, None)
    return Stamped(text, int(at))


def split_log(entries: Iterable[str]) -> tuple[list[str], list[int] | None]:
    """A whole log -> its actions and their times; the times are ``None`` unless
    every entry has one (a log from before times were kept)."""
    texts: list[str] = []
    times: list[int] = []
    timed = True
    for entry in entries:
        text, at = unstamp(entry)
        texts.append(text)
        if at is None:
            timed = False
        else:
            times.append(at)
    return texts, (times if timed else None)


def stamped(texts: Sequence[str], times: Sequence[int] | None) -> list[str]:
    """``split_log`` undone: a racer's actions and their times (None, or not one
    per action: bare entries) -> the log as stored."""
    if times is None or len(times) != len(texts):
        return list(texts)
    return [stamp(text, at) for text, at in zip(texts, times, strict=True)]
