"""A "thoughtful" solver: it sees every card and searches for a win.

The search drives the engine itself (``legal_moves``, ``push``, ``pop``)
on a private copy of the game, so the solver and the rules can never
disagree. docs/solver.md describes the method; the modules, by concept:

* ``table``: the transposition table on a canonical key (columns sorted,
  foundations counted per suit), aware of which waste positions stock
  taps reach;
* ``ordering``: the moves tried at a position and their order (safe
  foundation plays made at once, stock taps folded into the waste play
  they lead to), and the duties of the searches that only look for wins;
* ``depth_first``: one depth-first run that can be paused and resumed
  (the plain search, a probe or the finder), and ``search``;
* ``portfolio``: ``solve``, which shares a budget among the plain search,
  probes in Luby-sized rounds and the finder, and ``hint``.

Foundation take-backs are left out unless asked for (``takebacks=True``),
as in the published winnability study this is compared with, so
"not winnable" means "not winnable without taking a card back".

``solve`` is a pure function of its input, so a worker process can run it
on a deal code and send the ``SolveResult`` back.
"""

from __future__ import annotations

from .depth_first import SearchOutcome, search
from .portfolio import NOT_WINNABLE, UNKNOWN, WINNABLE, SolveResult, hint, solve

__all__ = [
    "WINNABLE",
    "NOT_WINNABLE",
    "UNKNOWN",
    "SolveResult",
    "SearchOutcome",
    "search",
    "solve",
    "hint",
]
