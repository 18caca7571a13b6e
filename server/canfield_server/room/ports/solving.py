"""The solver's workers, the integrity signals they judge, and the bots."""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from typing import Any, NamedTuple, Protocol

from canfield_server.room.integrity import Signals

__all__ = [
    "Proven",
    "SolverBusy",
    "SolverService",
    "SignalService",
    "BotLauncher",
]


class Proven(NamedTuple):
    """A deal code the solver won, and the length of its winning line."""

    code: str
    par: int

    def entry(self) -> str:
        return f"{self.code} {self.par}"

    @classmethod
    def from_entry(cls, raw: bytes | str) -> Proven:
        code, par = (raw.decode() if isinstance(raw, bytes) else raw).split()
        return cls(code, int(par))


class SolverBusy(Exception):
    """The solver cannot answer in time: "no hint now" (nothing was computed)."""


class SolverService(Protocol):
    """The solver's workers: winnable-only deals, par, hints; each request in its
    room's fair turn (see ``solving.scheduler``)."""

    async def take(self, draw: int, room: str) -> Proven: ...

    async def put_back(self, draw: int, proven: Proven) -> None: ...

    def solve_par(self, code: str, room: str) -> Any: ...

    async def par(self, code: str, room: str) -> int | None: ...

    async def hint(
        self, room: str, who: str, position: dict[str, Any], shares: Sequence[str] = ()
    ) -> str | None: ...


class SignalService(Protocol):
    """A finished racer's integrity signals (``solving.integrity``): its stored log
    (receipt times in it) judged, the solver asked in ``owner``'s fair turn;
    None when the log does not replay on the deal."""

    async def assess(
        self, owner: str, deal: str, log_entries: Sequence[str], par: int | None
    ) -> Signals | None: ...


class BotLauncher(Protocol):
    """Starts a bot that joins ``room_code`` as ``name`` over the server's own
    protocol; the returned coroutine runs the bot to its end. Raises
    ``ValueError`` or ``TypeError`` for options it does not take."""

    def __call__(
        self, room_code: str, name: str, **options: Any
    ) -> Coroutine[Any, Any, object]: ...
