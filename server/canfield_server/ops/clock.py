"""The server's clock: every timestamp on the wire and in Redis is epoch ms."""

from __future__ import annotations

import datetime
import time

__all__ = ["now_ms", "today", "day_before", "day_after", "is_date"]


def now_ms() -> int:
    return int(time.time() * 1000)


def today(override: str | None = None) -> str:
    """Today's UTC date, ``YYYY-MM-DD`` (``override``: a test clock's date)."""
    if override:
        return datetime.date.fromisoformat(override).isoformat()
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def day_before(date: str) -> str:
    return (datetime.date.fromisoformat(date) - datetime.timedelta(days=1)).isoformat()


def day_after(date: str) -> str:
    return (datetime.date.fromisoformat(date) + datetime.timedelta(days=1)).isoformat()


def is_date(text: str) -> bool:
    """Is ``text`` a real calendar date written ``YYYY-MM-DD`` in ASCII digits?
    (``2020-13-45`` is not; nor is ``٢٠٢٦-١٢-٠١``, which ``fromisoformat`` takes.)"""
    if len(text) != 10 or not text.isascii():
        return False
    try:
        return datetime.date.fromisoformat(text).isoformat() == text
    except ValueError:
        return False
