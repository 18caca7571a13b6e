"""The depth-first search: one run that can be paused and resumed.

The search drives the engine itself (``legal_moves``, ``push``, ``pop``)
on a private copy of the game, so the solver and the rules can never
disagree, and every line it finds is a line the engine played. One
``Run`` is the plain search (the only one whose running out is a proof),
a probe (``shake``: a random move first at every position) or the finder
(``win_only``: moves leave duties). ``search`` is one plain run to any goal.
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..game import Game
from ..moves import DRAW, Move
from .ordering import Child, Duty, children
from .table import BIG, PositionKey, Seen, position_key, visit

__all__ = ["SearchOutcome", "search", "Run", "is_won"]

#: how often (in nodes) the clock is read
_CLOCK_EVERY = 512


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    """What ``search`` found: a line to the goal, proof there is none, or a limit hit."""

    found: bool
    exhausted: bool
    moves: list[Move]
    nodes: int


def search(
    game: Game,
    goal: Callable[[Game], bool],
    *,
    takebacks: bool = False,
    node_limit: int | None = None,
    deadline: float | None = None,
) -> SearchOutcome:
    """Depth-first search from ``game`` for a line reaching ``goal``.

    Works on a copy, so ``game`` is never changed. ``exhausted`` is true
    when every reachable position was tried without reaching the goal;
    a node limit or the ``deadline`` (a ``time.process_time`` value) stops
    it early with neither ``found`` nor ``exhausted``.
    """
    run = Run(game, goal, takebacks)
    run.advance(BIG if node_limit is None else node_limit, deadline)
    return run.outcome()


class Run:
    """One depth-first search that can be paused and resumed.

    It keeps its transposition table between calls of ``advance``, so a
    search given its time in slices does exactly what one long call would.
    With ``shake`` (a seeded ``random.Random``) it now and then tries a
    move from further down the order first: a different but still
    complete search. Such a probe also keeps the line to the most
    promising position it reached (``best_line``, see ``_promise``).
    A ``win_only`` run gives moves duties (see ``ordering.duty_of``): fewer
    lines, some wins among them, so when it runs out it proves nothing.
    """

    def __init__(
        self,
        game: Game,
        goal: Callable[[Game], bool],
        takebacks: bool,
        shake: random.Random | None = None,
        win_only: bool = False,
        late_up: bool = False,
    ) -> None:
        self.nodes = 0
        self.best = -BIG
        self.best_line: list[Move] = []
        self.found: list[Move] | None = None
        self.exhausted = False
        self._steps = self._walk(game, goal, takebacks, shake, win_only, late_up)
        self._stop = 0
        next(self._steps)

    @property
    def done(self) -> bool:
        return self.found is not None or self.exhausted

    def advance(self, nodes: int, deadline: float | None = None) -> None:
        """Search ``nodes`` more positions at most, or until ``deadline``."""
        end = self.nodes + nodes
        clock = time.process_time
        while not self.done and self.nodes < end:
            if deadline is not None and self.nodes and clock() >= deadline:
                return
            self._stop = min(end, self.nodes + _CLOCK_EVERY)
            try:
                next(self._steps)
            except StopIteration:
                pass

    def outcome(self) -> SearchOutcome:
        if self.found is not None:
            return SearchOutcome(True, False, self.found, self.nodes)
        return SearchOutcome(False, self.exhausted, [], self.nodes)

    def _walk(
        self,
        game: Game,
        goal: Callable[[Game], bool],
        takebacks: bool,
        shake: random.Random | None,
        win_only: bool,
        late_up: bool,
    ) -> Iterator[None]:
        """The search itself; it pauses (yields) when ``self._stop`` nodes are reached."""
        work = game.copy()
        work.history = deque()  # unbounded: a line can be longer than the undo limit
        yield
        if goal(work):
            self.found = []
            return
        seen = Seen(work.draw)
        seen.add(position_key(work), work)
        owing: set[tuple[PositionKey, int, Duty]] = set()
        path: list[Child] = []
        frames: list[list[Child]] = [children(work, takebacks, None, win_only, late_up)]
        nodes = 0
        push, pop, turn = work.push, work.pop, work.turn_stock
        while frames:
            moves = frames[-1]
            if not moves:
                frames.pop()
                if path:
                    if path.pop()[0]:
                        pop()
                    pop()
                continue
            step = moves.pop()
            taps, move, duty = step
            if taps:
                turn(taps)
            push(move)
            nodes += 1
            if nodes == self._stop:
                self.nodes = nodes
                yield
            if goal(work):
                path.append(step)
                self.nodes = nodes
                self.found = _expand(path)
                return
            if not visit(seen, owing, work, duty):
                if taps:
                    pop()
                pop()
                continue
            path.append(step)
            if shake is not None:
                promise = _promise(work)
                if promise > self.best:
                    self.best = promise
                    self.best_line = _expand(path)
            offered = children(work, takebacks, duty, win_only, late_up)
            if shake is not None and len(offered) > 1:
                pick = shake.randrange(len(offered))
                offered[-1], offered[pick] = offered[pick], offered[-1]
            frames.append(offered)
        self.nodes = nodes
        self.exhausted = True


def _promise(game: Game) -> int:
    """How far along a position looks: cards up, the reserve (which blocks most) counted twice."""
    return game.on_foundations - 2 * len(game.reserve)


def _expand(path: list[Child]) -> list[Move]:
    moves: list[Move] = []
    for taps, move, _ in path:
        moves.extend([DRAW] * taps)
        moves.append(move)
    return moves


def is_won(game: Game) -> bool:
    """The goal of ``solve``: every card on the foundations."""
    return game.on_foundations == 52
