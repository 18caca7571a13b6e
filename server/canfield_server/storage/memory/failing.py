"""Storage that fails when told: any in-memory adapter behind a ``Faults`` switch.

``failing(adapter, faults, port)`` is the adapter, typed as itself, whose
coroutine methods first ask ``faults`` (by ``port`` and method name, e.g.
``daily.apply``; the room store's by method name alone): a call chosen to fail raises
``StorageDown`` - a ``redis.ConnectionError``, what the Redis adapters
raise when Redis is unreachable (``storage.errors.STORAGE_ERRORS``) -
with nothing applied. So the outage paths of the room logic run in
process, on the manual clock, in milliseconds; the tests that kill a real
redis-server stay for what only they show.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar, cast

from redis.exceptions import ConnectionError as RedisConnectionError

__all__ = ["Faults", "StorageDown", "failing"]

Adapter = TypeVar("Adapter")


class StorageDown(RedisConnectionError):
    """An injected outage: the call reached no storage."""


class Faults:
    """Which storage calls fail: by method name, a number of times or until healed,
    or every call while ``down``. ``failed`` lists the calls refused so far."""

    def __init__(self) -> None:
        self.down = False
        #: method name -> calls still to fail (-1: until ``heal``)
        self.failing: dict[str, int] = {}
        self.failed: list[str] = []

    def fail(self, *names: str, times: int = -1) -> None:
        """The next ``times`` calls of each of ``names`` fail (-1: every one until healed)."""
        for name in names:
            self.failing[name] = times

    def heal(self) -> None:
        """Every call goes through again."""
        self.down = False
        self.failing.clear()

    def check(self, name: str) -> None:
        """Raise for a call that is to fail (counting it), else nothing."""
        left = self.failing.get(name, 0)
        if not self.down and left == 0:
            return
        if left > 0:
            self.failing[name] = left - 1
        self.failed.append(name)
        raise StorageDown(f"storage unreachable (injected): {name}")


class _Failing:
    """The proxy ``failing`` returns: attributes read through to the adapter,
    coroutine methods checked against the faults first."""

    def __init__(self, adapter: object, faults: Faults, port: str) -> None:
        object.__setattr__(self, "_adapter", adapter)
        object.__setattr__(self, "_faults", faults)
        object.__setattr__(self, "_port", f"{port}." if port else "")

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._adapter, name)
        if not inspect.iscoroutinefunction(found):
            return found
        faults: Faults = self._faults
        method: Callable[..., Any] = found

        call = self._port + name

        async def checked(*args: Any, **kwargs: Any) -> Any:
            faults.check(call)
            return await method(*args, **kwargs)

        return checked

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._adapter, name, value)


def failing(adapter: Adapter, faults: Faults, port: str = "") -> Adapter:
    """``adapter`` with its storage calls failing as ``faults`` says; ``port``
    names its calls apart from another adapter's of the same name (``daily``:
    ``faults.fail("daily.apply")`` fails the daily moves, not the rooms')."""
    return cast(Adapter, _Failing(adapter, faults, port))
