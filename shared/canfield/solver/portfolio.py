"""``solve`` and ``hint``: a portfolio of searches sharing one budget.

``solve`` runs the plain search (the only one that may answer "not
winnable") in turns with searches that only look for wins and prune
harder with duties (``ordering.duty_of``): probes that put a random move
first at every position (in Draw 3 half of them starting along the line
to the most promising position a probe has reached), and a resumable
finder (Draw 3: foundation plays last). Probes get rounds that grow by
the Luby sequence. Every line any of them finds is a line the engine
played.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from ..dealcode import DealCode
from ..game import Game
from ..moves import Move
from .depth_first import Run, is_won
from .table import BIG

__all__ = [
    "WINNABLE",
    "NOT_WINNABLE",
    "UNKNOWN",
    "SolveResult",
    "solve",
    "hint",
]

WINNABLE = "winnable"
NOT_WINNABLE = "not winnable"
UNKNOWN = "unknown"

#: ``solve``'s portfolio (see ``solve``): nodes for the first turn of a
#: resumable search, for each short probe (and each later turn of the
#: finder), and for each later turn of the plain search
_FIRST_NODES = 20_000
_PROBE_NODES = 1_000
_PLAIN_NODES = 500


@dataclass(frozen=True, slots=True)
class SolveResult:
    """The verdict on a deal or position, and what it cost to reach.

    ``seconds`` is processor time of the solving process, so a busy
    machine does not shrink the search a timeout allows.
    """

    result: str
    moves: list[str] = field(default_factory=list)
    seconds: float = 0.0
    nodes: int = 0

    @property
    def decided(self) -> bool:
        return self.result != UNKNOWN

    def to_dict(self) -> dict[str, object]:
        return {
            "result": self.result,
            "moves": list(self.moves),
            "seconds": round(self.seconds, 6),
            "nodes": self.nodes,
        }


def _as_game(game_or_code: Game | DealCode | str) -> Game:
    if isinstance(game_or_code, Game):
        return game_or_code
    return Game.deal(game_or_code)


def solve(
    game_or_code: Game | DealCode | str,
    timeout_s: float | None = 10.0,
    node_limit: int | None = None,
    *,
    takebacks: bool = False,
) -> SolveResult:
    """Decide whether the deal (or position) can be won, within the limits.

    Returns ``winnable`` with a move list that replays to a win,
    ``not winnable`` when the whole search space was tried, or ``unknown``
    when the time or node limit came first. Never changes a given game.
    """
    start = time.process_time()
    game = _as_game(game_or_code)
    deadline = None if timeout_s is None else start + timeout_s
    budget = _Budget(BIG if node_limit is None else node_limit, deadline)
    draw1 = game.draw == 1
    plain = Run(game, is_won, takebacks)
    # the finder: a resumable search with the duties (Draw 3: foundations last)
    finder = Run(game, is_won, takebacks, win_only=True, late_up=not draw1)
    line = None
    if draw1:  # the finder wins nearly every Draw 1 deal at once
        line = budget.give(finder, _FIRST_NODES)
    if line is None:
        line = budget.give(plain, _FIRST_NODES)
    seed = 0
    # the line to the most promising position a probe has reached; in Draw 3
    # half the probes start from a random point along it instead of from
    # the start (in Draw 1, where the finder wins nearly every deal, that
    # did not help)
    elite: list[Move] = []
    elite_promise = -BIG
    while line is None and not plain.exhausted and budget.left():
        seed += 1
        # Draw 1 probes alternate between the two orders; Draw 3 ones play foundations last
        late = not draw1 or seed % 2 == 0
        shake = random.Random(seed)
        prefix: list[Move] = []
        if elite and not draw1 and shake.random() < 0.5:
            prefix = elite[: shake.randrange(len(elite))]
        origin = Game.replay(game, [m.text() for m in prefix]) if prefix else game
        probe = Run(origin, is_won, takebacks, shake, win_only=True, late_up=late)
        # rounds grow by the Luby sequence (1 1 2 1 1 2 4 ...): mostly short
        # probes, now and then a longer one that can back up further
        size = _luby(seed)
        line = budget.give(probe, _PROBE_NODES * size)
        if line is not None:
            line = prefix + line
        elif probe.best > elite_promise:
            elite_promise = probe.best
            elite = prefix + probe.best_line
        if line is None and not finder.exhausted:
            line = budget.give(finder, _PROBE_NODES * size)
        if line is None:
            line = budget.give(plain, _PLAIN_NODES * size)
    seconds = time.process_time() - start
    if line is not None:
        return SolveResult(WINNABLE, [m.text() for m in line], seconds, budget.spent)
    verdict = NOT_WINNABLE if plain.exhausted else UNKNOWN
    return SolveResult(verdict, [], seconds, budget.spent)


def _luby(index: int) -> int:
    """The ``index``-th term (from 1) of the Luby sequence 1 1 2 1 1 2 4 1 1 2 ..."""
    while True:
        size = 1
        while size * 2 - 1 < index:
            size *= 2
        if index == size * 2 - 1:
            return size
        index -= size - 1


class _Budget:
    """The nodes and processor time ``solve`` shares out among its searches."""

    def __init__(self, nodes: int, deadline: float | None) -> None:
        self.nodes = nodes
        self.deadline = deadline
        self.spent = 0

    def left(self) -> bool:
        if self.spent >= self.nodes:
            return False
        return self.deadline is None or time.process_time() < self.deadline

    def give(self, run: Run, nodes: int) -> list[Move] | None:
        """Let ``run`` search up to ``nodes`` more positions; its winning line, if any."""
        before = run.nodes
        run.advance(min(nodes, self.nodes - self.spent), self.deadline)
        self.spent += run.nodes - before
        return run.found


def hint(game: Game, timeout_s: float = 1.0) -> Move | None:
    """The next move of a winning line from this position, or None.

    None when the game is already won, no win exists, or none was found
    in time.
    """
    if game.is_won:
        return None
    result = solve(game, timeout_s)
    if result.result != WINNABLE:
        return None
    return Move.parse(result.moves[0])
