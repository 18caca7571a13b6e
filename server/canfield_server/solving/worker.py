"""What runs inside a solver worker process: plain arguments in, plain results out.

A worker is started fresh (``spawn``) and imports this module to unpickle
its first job, so it imports only the engine and ``ops.parent_death``: the
server's modules behind ``solving.deal_pool`` (Redis, the protocol, the
settings) cost every worker about 0.2 s of CPU at its start, paid again
for each server process and each worker restarted after a crash.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Sequence
from typing import Any

from canfield import DealCode, Game
from canfield.lesson import teach as teach_slip
from canfield.review import Question, Verdict
from canfield.review import decide as decide_position
from canfield.solver import WINNABLE, SolveResult, hint, solve

from canfield_server.ops.parent_death import die_with_parent

__all__ = ["lower_priority", "prove_random", "par", "decide", "teach", "hint_move"]


def lower_priority(niceness: int, server_pid: int) -> None:
    """A worker's start: SIGKILL when the server dies, then below its priority.
    Ctrl-C in a terminal reaches the whole foreground group: the server stops
    its workers itself, so a worker ignores it (blocked from birth:
    ``children.deaf_to_ctrl_c``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(signal.SIGKILL, server_pid)
    with contextlib.suppress(OSError):
        os.nice(niceness)


def prove_random(draw: int, timeout_s: float, attempts: int) -> tuple[str, int] | None:
    """The first of up to ``attempts`` random codes the solver wins within ``timeout_s``."""
    for _ in range(attempts):
        code = DealCode.random(draw)
        result = solve(code, timeout_s)
        if result.result == WINNABLE:
            return str(code), len(result.moves)
    return None


def par(code: str, timeout_s: float) -> int | None:
    """The length of the solver's winning line of ``code``, if it finds one in time."""
    result = solve(code, timeout_s)
    return len(result.moves) if result.result == WINNABLE else None


def decide(code: str, moves: Sequence[str], timeout_s: float) -> SolveResult:
    """One review question: can the position the moves lead to still be won?
    (A win is looked for without take-backs first; a loss is proven with them.)"""
    return decide_position(Game.replay(code, moves), timeout_s)


def teach(verdict: Verdict, before: Question, timeout_s: float) -> Verdict:
    """A reviewed slip taught: a short winning line, and what the slip gave up."""
    return teach_slip(verdict, before, timeout_s)


def hint_move(position: dict[str, Any], timeout_s: float) -> str | None:
    """The solver's next move from ``position`` (``Game.to_dict``), as text."""
    move = hint(Game.from_dict(position), timeout_s)
    return move.text() if move is not None else None
