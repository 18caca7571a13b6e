"""Integrity signals: what one finished racer's timed line says about how it
was played, for people to judge (never an automatic ban).

Computed off the move path, after a race (room, public or daily) ends,
from the server's receipt times (``room.stamps``) and the solver's view of
the line. ``Signals`` is the evidence one racer's result carries into the
review queue; the rule that flags a result reads nothing else.
"""

from __future__ import annotations

import msgspec

__all__ = ["Signals"]


class Signals(msgspec.Struct, kw_only=True, frozen=True):
    """One racer's timed line, summed up."""

    #: board actions with a receipt time (moves, draws, undos)
    actions: int
    #: actions per second from the start to the last action
    moves_per_s: float
    #: the think time before each action (ms since the one before; the first:
    #: since the start): the console's timeline
    think_ms: list[int]
    think_median_ms: int
    #: how uneven the think times are: (90th - 10th percentile) / median
    #: (0: a metronome; people are far from it)
    think_spread: float
    #: median think time where the position offered a real choice, and where
    #: it did not (one sensible action, or only the stock to turn)
    decision_think_ms: int | None
    forced_think_ms: int | None
    #: moves beyond the deal's par (None: no par known)
    over_par: int | None
    #: the share of the checked moves after which a solver-winning line still
    #: stood (None: not checked, e.g. an unwinnable deal or the budget spent)
    solver_agreement: float | None
    checked_moves: int = 0
