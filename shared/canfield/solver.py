"""A "thoughtful" solver: it sees every card and searches for a win.

The search drives the engine itself (``legal_moves``, ``push``, ``pop``)
on a private copy of the game, so the solver and the rules can never
disagree. It is a depth-first search with:

* a transposition table on a canonical key (columns sorted, foundations
  counted per suit), which also stops stock cycles and back-and-forth;
* safe foundation plays made at once, without trying alternatives: a card
  nothing could still be built on (both cards of the other colour one rank
  below are already up) from the reserve, a column, or (Draw 1) the waste;
* stock taps folded into the waste play they lead to: each waste card in
  reach is one move "tap k times, then play it" (taps commute with every
  other move, so nothing is lost);
* no moving a whole column into an empty one (it changes nothing);
* move ordering: foundation plays, reserve cards, column clears, waste
  cards, other column moves, foundation take-backs, the stock tap.

Foundation take-backs are left out unless asked for (``takebacks=True``),
as in the published winnability study this is compared with, so
"not winnable" means "not winnable without taking a card back".

``solve`` is a pure function of its input, so a worker process can run it
on a deal code and send the ``SolveResult`` back.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from .cards import BUILDS_ON
from .dealcode import DealCode
from .game import Game
from .moves import DRAW, FOUNDATION, RESERVE, STOCK, TABLEAU, WASTE, Move

__all__ = [
    "WINNABLE",
    "NOT_WINNABLE",
    "UNKNOWN",
    "SolveResult",
    "SearchOutcome",
    "search",
    "solve",
    "hint",
    "replay",
]

WINNABLE = "winnable"
NOT_WINNABLE = "not winnable"
UNKNOWN = "unknown"

#: how often (in nodes) the clock is read
_CLOCK_EVERY = 512

# move-ordering ranks: lower is tried first
_RANK_FOUNDATION = 0
_RANK_RESERVE = 1
_RANK_CLEAR = 2
_RANK_WASTE = 3
_RANK_COLUMN = 4
_RANK_TAKEBACK = 5
_RANK_DRAW = 6

_BIG = 1 << 30

_WASTE_UP = Move(WASTE, 0, 1, FOUNDATION, 0)
_WASTE_TO = [Move(WASTE, 0, 1, TABLEAU, j) for j in range(4)]


@dataclass(frozen=True, slots=True)
class SolveResult:
    """The verdict on a deal or position, and what it cost to reach."""

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


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    """What ``search`` found: a line to the goal, proof there is none, or a limit hit."""

    found: bool
    exhausted: bool
    moves: list[Move]
    nodes: int


def position_key(game: Game) -> tuple:
    """A canonical key for everything but the stock/waste split.

    Columns are interchangeable, so they are sorted; foundations are
    counted per suit (the slot a suit happens to sit in does not matter).
    The reserve keeps its order, so its size says all; so does the talon
    (stock and waste), whose split is handled by ``_Seen``.
    """
    slots = game.suit_slot
    piles = game.foundations
    return (
        len(game.reserve),
        tuple(len(piles[s]) if s >= 0 else 0 for s in slots),
        tuple(sorted(tuple(col) for col in game.tableau)),
    )


class _Seen:
    """The transposition table, aware of what stock taps can reach.

    With ``d`` cards per tap, every waste size that is a multiple of ``d``
    (or the whole talon) reaches every other such size by tapping: one
    class. Any other size ``w`` reaches ``w + d``, ``w + 2d``, ... and then
    that class. A position is skipped when a position already seen reaches
    it by taps alone, since it can do nothing the seen one cannot.
    """

    __slots__ = ("draw", "table")

    def __init__(self, draw: int) -> None:
        self.draw = draw
        #: key -> [pass class seen (0/1), least size seen for remainder 1, 2, ...]
        self.table: dict[tuple, list[int]] = {}

    def add(self, game: Game) -> bool:
        """Record the position; False when it (or one reaching it) was seen."""
        key = position_key(game)
        waste = len(game.waste)
        draw = self.draw
        entry = self.table.get(key)
        if waste % draw == 0 or not game.stock:
            if entry is None:
                self.table[key] = [1] + [_BIG] * (draw - 1)
                return True
            if entry[0] or min(entry) < _BIG:
                return False
            entry[0] = 1
            return True
        slot = waste % draw
        if entry is None:
            entry = self.table[key] = [0] + [_BIG] * (draw - 1)
        elif entry[slot] <= waste:
            return False
        entry[slot] = waste
        return True


def _suit_counts(game: Game) -> list[int]:
    piles = game.foundations
    return [len(piles[s]) if s >= 0 else 0 for s in game.suit_slot]


def _source_card(game: Game, move: Move) -> int:
    src = move.src
    if src == RESERVE:
        return game.reserve[-1]
    if src == WASTE:
        return game.waste[-1]
    if src == TABLEAU:
        return game.tableau[move.src_index][-move.count]
    return game.foundations[move.src_index][-1]


def _is_safe(game: Game, card: int, src: str, counts: list[int]) -> bool:
    """Whether playing ``card`` from ``src`` to its foundation can never hurt.

    No card can ever be built on this card again (both cards of the other
    colour one rank below are up and stay up), and taking it from its
    source loses nothing: the reserve and columns only reveal the next
    card; the waste only in Draw 1, where every stock card stays in reach.
    """
    if src == WASTE and game.draw != 1:
        return False
    level = ((card >> 2) - game.base_rank) % 13
    if level == 0:
        return False
    red = (card & 3) in (1, 2)
    if red:
        return counts[0] >= level and counts[3] >= level
    return counts[1] >= level and counts[2] >= level


def _talon_reach(game: Game) -> list[tuple[int, int]]:
    """(taps, waste size) for each other waste size the stock taps reach.

    The stock and waste hold the talon in a fixed order; tapping turns
    ``draw`` cards (fewer at the end) and an empty stock turns the waste
    back over, so the reachable waste tops are a little arithmetic.
    """
    waste = len(game.waste)
    total = waste + len(game.stock)
    draw = game.draw
    reach: list[tuple[int, int]] = []
    seen = {waste}
    taps = 0
    size = waste
    # finish this pass, turn the waste over, then one full pass
    for _ in range(2):
        while size < total:
            size = min(size + draw, total)
            taps += 1
            if size not in seen:
                seen.add(size)
                reach.append((taps, size))
        size = 0
        taps += 1
    return reach


def _children(game: Game, takebacks: bool) -> list[tuple[int, Move]]:
    """Moves worth trying here as (stock taps first, move), best last.

    Stock taps only ever matter for the waste card they bring up, so a
    tap is never a move of its own: each waste card in reach is offered
    as "tap k times, then play it".
    """
    counts: list[int] | None = None
    ranked: list[tuple[int, int, int, Move]] = []
    tableau = game.tableau
    order = 0
    for order, move in enumerate(game.legal_moves()):
        src = move.src
        if src == STOCK:
            continue
        dst = move.dst
        if dst == FOUNDATION:
            if src != WASTE or game.draw == 1:
                if counts is None:
                    counts = _suit_counts(game)
                if _is_safe(game, _source_card(game, move), src, counts):
                    return [(0, move)]
            rank = _RANK_FOUNDATION
        elif src == RESERVE:
            rank = _RANK_RESERVE
        elif src == WASTE:
            rank = _RANK_WASTE
        elif src == TABLEAU:
            height = len(tableau[move.src_index])
            if move.count == height:
                if not tableau[move.dst_index]:
                    continue  # a whole column into an empty one changes nothing
                rank = _RANK_CLEAR
            else:
                rank = _RANK_COLUMN
        else:
            if not takebacks:
                continue
            rank = _RANK_TAKEBACK
        ranked.append((rank, order, 0, move))
    if game.stock or game.waste:
        talon = game.waste + game.stock[::-1]
        tops = [col[-1] if col else -1 for col in tableau]
        may_fill = not game.reserve
        accepts = game.foundation_accepts
        for taps, size in _talon_reach(game):
            card = talon[size - 1]
            order += 1
            if accepts(card) >= 0:
                if game.draw == 1:
                    if counts is None:
                        counts = _suit_counts(game)
                    if _is_safe(game, card, WASTE, counts):
                        return [(taps, _WASTE_UP)]
                ranked.append((_RANK_FOUNDATION, order, taps, _WASTE_UP))
            base = card * 52
            filled = False
            for j in range(4):
                top = tops[j]
                if top < 0:
                    if may_fill and not filled:
                        filled = True
                        ranked.append((_RANK_DRAW, order, taps, _WASTE_TO[j]))
                elif BUILDS_ON[base + top]:
                    ranked.append((_RANK_DRAW, order, taps, _WASTE_TO[j]))
    ranked.sort(reverse=True)
    return [(taps, move) for _, _, taps, move in ranked]


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
    a node limit or the ``deadline`` (a ``time.perf_counter`` value) stops
    it early with neither ``found`` nor ``exhausted``.
    """
    work = game.copy()
    work.history = deque()  # unbounded: a line can be longer than the undo limit
    if goal(work):
        return SearchOutcome(True, False, [], 0)
    seen = _Seen(work.draw)
    seen.add(work)
    path: list[tuple[int, Move]] = []
    frames: list[list[tuple[int, Move]]] = [_children(work, takebacks)]
    nodes = 0
    limit = node_limit if node_limit is not None else -1
    clock = time.perf_counter
    push, pop = work.push, work.pop
    while frames:
        moves = frames[-1]
        if not moves:
            frames.pop()
            if path:
                for _ in range(path.pop()[0] + 1):
                    pop()
            continue
        step = moves.pop()
        taps, move = step
        for _ in range(taps):
            push(DRAW)
        push(move)
        nodes += 1
        if nodes == limit or (
            deadline is not None and nodes % _CLOCK_EVERY == 0 and clock() >= deadline
        ):
            return SearchOutcome(False, False, [], nodes)
        if goal(work):
            path.append(step)
            return SearchOutcome(True, False, _expand(path), nodes)
        if not seen.add(work):
            for _ in range(taps + 1):
                pop()
            continue
        path.append(step)
        frames.append(_children(work, takebacks))
    return SearchOutcome(False, True, [], nodes)


def _expand(path: list[tuple[int, Move]]) -> list[Move]:
    moves: list[Move] = []
    for taps, move in path:
        moves.extend([DRAW] * taps)
        moves.append(move)
    return moves


def _is_won(game: Game) -> bool:
    return game.on_foundations == 52


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
    start = time.perf_counter()
    game = _as_game(game_or_code)
    deadline = None if timeout_s is None else start + timeout_s
    outcome = search(game, _is_won, takebacks=takebacks, node_limit=node_limit, deadline=deadline)
    seconds = time.perf_counter() - start
    if outcome.found:
        return SolveResult(WINNABLE, [m.text() for m in outcome.moves], seconds, outcome.nodes)
    verdict = NOT_WINNABLE if outcome.exhausted else UNKNOWN
    return SolveResult(verdict, [], seconds, outcome.nodes)


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


def replay(game_or_code: Game | DealCode | str, moves: list[str]) -> Game:
    """Play ``moves`` with the engine on a fresh copy; raises on an illegal move."""
    game = _as_game(game_or_code).copy()
    game.history = deque()
    for text in moves:
        game.push(Move.parse(text))
    return game
