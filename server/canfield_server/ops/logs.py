"""Structured logs: ``key=value`` text by default, one JSON object per line
with ``Settings.log_json``; room and player ids as fields, never a token.

Call sites log an event name plus fields::

    event(log, "move.rejected", room=code, player=pid, code="illegal-move")

A filter on the handler blanks any field whose name mentions a token and
any ``"token": "..."`` / ``token=...`` text inside a message, so even a
logged frame cannot leak a secret.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from typing import Any

__all__ = [
    "configure",
    "event",
    "RedactTokens",
    "JsonFormatter",
    "TextFormatter",
    "REDACTED",
    "Tally",
]

REDACTED = "[redacted]"
#: the attribute the fields of one event travel in on a LogRecord
FIELDS = "canfield_fields"
_TOKEN_TEXT = re.compile(r"""(["']?\w*token\w*["']?\s*[:=]\s*["']?)[^"'\s,}&]+""", re.IGNORECASE)


def event(
    logger: logging.Logger,
    name: str,
    level: int = logging.INFO,
    *,
    exc_info: BaseException | None = None,
    **fields: Any,
) -> None:
    """Log event ``name`` with structured ``fields`` (room=, player=, ...);
    ``exc_info``: the exception whose traceback goes with it."""
    if logger.isEnabledFor(level):
        logger.log(level, name, exc_info=exc_info, extra={FIELDS: fields}, stacklevel=2)


def scrub(text: str) -> str:
    return _TOKEN_TEXT.sub(lambda m: m.group(1) + REDACTED, text)


def _clean(key: str, value: Any) -> Any:
    if "token" in key.lower():
        return REDACTED
    return scrub(value) if isinstance(value, str) else value


class RedactTokens(logging.Filter):
    """Blank token fields and token text; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        fields = getattr(record, FIELDS, None)
        if fields:
            setattr(record, FIELDS, {k: _clean(k, v) for k, v in fields.items()})
        message = record.getMessage()
        cleaned = scrub(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, instance, event, fields."""

    def __init__(self, instance: str) -> None:
        super().__init__()
        self.instance = instance

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "instance": self.instance,
            "event": record.getMessage(),
        }
        for key, value in (getattr(record, FIELDS, None) or {}).items():
            entry.setdefault(key, value)
        if record.exc_info:
            entry["exc"] = scrub(self.formatException(record.exc_info))
        return json.dumps(entry, default=str, separators=(",", ":"))


class TextFormatter(logging.Formatter):
    """``time level logger event key=value ...`` for people reading a terminal."""

    def __init__(self, instance: str) -> None:
        super().__init__()
        self.instance = instance

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        fields = getattr(record, FIELDS, None) or {}
        extra = "".join(f" {k}={v}" for k, v in fields.items())
        line = f"{stamp}Z {record.levelname} {record.name} {record.getMessage()}{extra}"
        if record.exc_info:
            line += "\n" + scrub(self.formatException(record.exc_info))
        return line


def configure(*, json_lines: bool, instance: str, level: int | str = logging.INFO) -> None:
    """Route every logger (uvicorn's too) to stderr through one formatter.

    Pass ``log_config=None`` to uvicorn so it keeps this setup.
    """
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(instance) if json_lines else TextFormatter(instance))
    handler.addFilter(RedactTokens())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        child = logging.getLogger(name)
        child.handlers.clear()
        child.propagate = True


class Tally:
    """Events too frequent to log one by one (refusals in a flood): each kind is
    counted and written as one warning line at most every ``every_s``, with the
    count since the line before and the latest address."""

    def __init__(self, logger: logging.Logger, every_s: float = 10.0) -> None:
        self.logger = logger
        self.every_s = every_s
        self._counts: dict[str, int] = {}
        self._logged_at: dict[str, float] = {}

    def note(self, what: str, address: str | None, detail: str = "") -> None:
        self._counts[what] = self._counts.get(what, 0) + 1
        now = time.monotonic()
        if now - self._logged_at.get(what, -self.every_s) >= self.every_s:
            self.logger.warning(
                "%s: %d (latest from %s%s)", what, self._counts[what], address, detail
            )
            self._counts[what] = 0
            self._logged_at[what] = now
