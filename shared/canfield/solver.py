"""A "thoughtful" solver: it sees every card and searches for a win.

The search drives the engine itself (``legal_moves``, ``push``, ``pop``)
on a private copy of the game, so the solver and the rules can never
disagree. It is a depth-first search with:

* a transposition table on a canonical key (columns sorted, foundations
  counted per suit), which also stops stock cycles and back-and-forth; it
  knows which waste positions stock taps reach, and skips a position that
  one already seen reaches by tapping alone;
* safe foundation plays made at once, without trying alternatives: a card
  nothing could still be built on (both cards of the other colour one rank
  below are already up) from the reserve, a column, or (Draw 1) the waste;
* stock taps folded into the waste play they lead to: each waste card in
  reach is one move "tap k times, then play it" (taps commute with every
  other move, so nothing is lost);
* no moving a whole column into an empty one (it changes nothing);
* move ordering: foundation plays, reserve cards, column clears, the
  waste card, other column moves, take-backs, then waste cards further
  down the stock (fewest taps first).

``solve`` runs that search (the only one that may answer "not
winnable") in turns with searches that only look for wins and prune
harder (``_duty_of``): probes that put a random move first at every
position (in Draw 3 half of them starting along the line to the most
promising position a probe has reached), and a resumable finder (Draw 3:
foundation plays last). Every line any of them finds is a line the
engine played.

Foundation take-backs are left out unless asked for (``takebacks=True``),
as in the published winnability study this is compared with, so
"not winnable" means "not winnable without taking a card back".

``solve`` is a pure function of its input, so a worker process can run it
on a deal code and send the ``SolveResult`` back.
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .cards import BUILDS_ON
from .dealcode import DealCode
from .game import Game
from .moves import (
    DRAW,
    FOUNDATION,
    ONTO_COLUMN,
    RESERVE,
    STOCK,
    TABLEAU,
    TO_FOUNDATION,
    WASTE,
    Move,
)

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
_RANK_LATE_UP = 7

_BIG = 1 << 30

#: ``solve``'s portfolio (see ``solve``): nodes for the first turn of a
#: resumable search, for each short probe (and each later turn of the
#: finder), and for each later turn of the plain search
_FIRST_NODES = 20_000
_PROBE_NODES = 1_000
_PLAIN_NODES = 500

_WASTE_UP = TO_FOUNDATION[WASTE]
_WASTE_TO = ONTO_COLUMN[WASTE]


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
    piles = game.foundations
    return (
        len(game.reserve),
        tuple([len(piles[s]) if s >= 0 else 0 for s in game.suit_slot]),
        tuple(sorted(map(tuple, game.tableau))),
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

    def covers(self, key: tuple, game: Game) -> bool:
        """Whether a position seen already reaches this one by taps alone."""
        entry = self.table.get(key)
        if entry is None:
            return False
        waste = len(game.waste)
        if waste % self.draw == 0 or not game.stock:
            return True  # any size reaches the pass class
        return entry[waste % self.draw] <= waste

    def add(self, key: tuple, game: Game) -> bool:
        """Record the position; False when it (or one reaching it) was seen."""
        if self.covers(key, game):
            return False
        entry = self.table.get(key)
        if entry is None:
            entry = self.table[key] = [0] + [_BIG] * (self.draw - 1)
        waste = len(game.waste)
        if waste % self.draw == 0 or not game.stock:
            entry[0] = 1
        else:
            entry[waste % self.draw] = waste
        return True


def _suit_counts(game: Game) -> list[int]:
    piles = game.foundations
    return [len(piles[s]) if s >= 0 else 0 for s in game.suit_slot]


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
    # finish this pass (every size is new), turn the waste over, then one full pass
    taps = 0
    for size in range(waste + draw, total + draw, draw):
        taps += 1
        reach.append((taps, size if size < total else total))
    taps += 1
    for size in range(draw, total + draw, draw):
        taps += 1
        if size >= total:
            size = total
            if waste < total:
                break  # reached in this pass already
        elif size > waste and (size - waste) % draw == 0:
            continue  # reached in this pass already
        if size != waste:
            reach.append((taps, size))
    return reach


#: What a move leaves the next one to do in a win-only search (see ``_duty_of``).
Duty = tuple[int, ...]
_OWE_COLUMN = 0  # (tag, card uncovered, card joined or -1, cards moved)
_OWE_BUILD = 1  # (tag, card): build on this card
_OWE_SUIT = 2  # (tag, suit): play the next card of this suit up
#: a child: (stock taps first, the move, the duty it leaves or None)
Child = tuple[int, Move, "Duty | None"]


def _duty_of(game: Game, move: Move, card: int) -> Duty | None:
    """What the move after ``move`` (of ``card``) must do, or None; ``game`` is before it.

    Only searches that look for wins use duties: they find wins sooner
    but are not proofs, so a search that may answer "not winnable" has
    none.

    A column-to-column move that leaves cards behind only uncovers a card
    and joins its run to the card it lands on (-1: an empty column); a
    winning line can often put it off until just before that card or that
    join is used, so the very next move must use one of them. Not always:
    two such moves can wait for the same move (one uncovers a card, the
    other a place for it), and then neither order passes.

    In Draw 1, where every stock card stays in reach, a stock card played
    onto a column must be built on at once, and one played up (not the
    last of its suit) must be followed by the next card of its suit.
    """
    src = move.src
    if src == TABLEAU:
        if move.dst != TABLEAU:
            return None
        col = game.tableau[move.src_index]
        if move.count >= len(col):
            return None
        target = game.tableau[move.dst_index]
        return (_OWE_COLUMN, col[-move.count - 1], target[-1] if target else -1, move.count)
    if src == WASTE and game.draw == 1:
        if move.dst == TABLEAU:
            return (_OWE_BUILD, card)
        if ((card >> 2) - game.base_rank) % 13 != 12:
            return (_OWE_SUIT, card & 3)
    return None


def _demand(game: Game, duty: Duty) -> tuple[int, int, int, int]:
    """A duty in terms of this position: (tag, column or suit, column joined, cards moved)."""
    tag = duty[0]
    if tag == _OWE_SUIT:
        return (tag, duty[1], -1, 0)
    if tag == _OWE_BUILD:
        for j, col in enumerate(game.tableau):
            if col and col[-1] == duty[1]:
                return (tag, j, -1, 0)
        return (tag, -1, -1, 0)
    _, exposed, joint, moved = duty
    src = dst = -1
    for j, col in enumerate(game.tableau):
        if col and col[-1] == exposed:
            src = j
        elif joint >= 0 and len(col) > moved and col[-moved - 1] == joint:
            dst = j
    return (tag, src, dst, moved)


def _pays(demand: tuple[int, int, int, int], move: Move, card: int) -> bool:
    """Whether ``move`` (moving ``card``) does what the duty behind ``demand`` asks."""
    tag, where, joined, moved = demand
    if tag == _OWE_SUIT:
        return move.dst == FOUNDATION and card & 3 == where
    if move.dst == TABLEAU and move.dst_index == where:
        return True
    if tag == _OWE_BUILD or move.src != TABLEAU:
        return False
    return move.src_index == where or (move.src_index == joined and move.count > moved)


def _children(
    game: Game,
    takebacks: bool,
    duty: Duty | None = None,
    win_only: bool = False,
    late_up: bool = False,
) -> list[Child]:
    """Moves worth trying here, best last, each with the duty it leaves.

    Stock taps only ever matter for the waste card they bring up, so a
    tap is never a move of its own: each waste card in reach is offered
    as "tap k times, then play it". Only a ``win_only`` search gives
    moves duties; with a ``duty`` only moves that do what it asks are
    kept, unless a safe play is found (made at once).
    """
    counts: list[int] | None = None
    ranked: list[tuple[int, int, int, Move, Duty | None]] = []
    tableau = game.tableau
    draw1 = game.draw == 1
    reserve, waste, piles = game.reserve, game.waste, game.foundations
    demand = _demand(game, duty) if duty else None
    up_rank = _RANK_LATE_UP if late_up else _RANK_FOUNDATION
    order = 0
    for order, move in enumerate(game.legal_moves(takebacks)):
        src = move.src
        if src == STOCK:
            continue
        dst = move.dst
        if src == TABLEAU:
            card = tableau[move.src_index][-move.count]
        elif src == RESERVE:
            card = reserve[-1]
        elif src == WASTE:
            card = waste[-1]
        else:
            card = piles[move.src_index][-1]
        if dst == FOUNDATION:
            if src != WASTE or draw1:
                if counts is None:
                    counts = _suit_counts(game)
                if _is_safe(game, card, src, counts):
                    return [(0, move, None)]
            rank = up_rank
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
            rank = _RANK_TAKEBACK
        if demand is None or _pays(demand, move, card):
            owes = _duty_of(game, move, card) if win_only else None
            ranked.append((rank, order, 0, move, owes))
    if game.stock or game.waste:
        talon = game.waste + game.stock[::-1]
        tops = [col[-1] if col else -1 for col in tableau]
        may_fill = not game.reserve
        accepts = game.foundation_accepts
        for taps, size in _talon_reach(game):
            card = talon[size - 1]
            order += 1
            if accepts(card) >= 0:
                if draw1:
                    if counts is None:
                        counts = _suit_counts(game)
                    if _is_safe(game, card, WASTE, counts):
                        return [(taps, _WASTE_UP, None)]
                if demand is None or _pays(demand, _WASTE_UP, card):
                    owes = _duty_of(game, _WASTE_UP, card) if win_only else None
                    ranked.append((up_rank, order, taps, _WASTE_UP, owes))
            base = card * 52
            filled = False
            for j in range(4):
                top = tops[j]
                if top < 0:
                    if not may_fill or filled:
                        continue
                    filled = True
                elif not BUILDS_ON[base + top]:
                    continue
                move = _WASTE_TO[j]
                if demand is None or _pays(demand, move, card):
                    owes = _duty_of(game, move, card) if win_only else None
                    ranked.append((_RANK_DRAW, order, taps, move, owes))
    ranked.sort(reverse=True)  # by rank, then order (unique, so nothing else is compared)
    return [(taps, move, owes) for _, _, taps, move, owes in ranked]


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
    run = _Run(game, goal, takebacks)
    run.advance(_BIG if node_limit is None else node_limit, deadline)
    return run.outcome()


class _Run:
    """One depth-first search that can be paused and resumed.

    It keeps its transposition table between calls of ``advance``, so a
    search given its time in slices does exactly what one long call would.
    With ``shake`` (a seeded ``random.Random``) it now and then tries a
    move from further down the order first: a different but still
    complete search. Such a probe also keeps the line to the most
    promising position it reached (``best_line``, see ``_promise``).
    A ``win_only`` run gives moves duties (see ``_duty_of``): fewer
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
        self.best = -_BIG
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
        seen = _Seen(work.draw)
        seen.add(position_key(work), work)
        owing: set[tuple] = set()
        path: list[Child] = []
        frames: list[list[Child]] = [_children(work, takebacks, None, win_only, late_up)]
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
            if not _visit(seen, owing, work, duty):
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
            children = _children(work, takebacks, duty, win_only, late_up)
            if shake is not None and len(children) > 1:
                pick = shake.randrange(len(children))
                children[-1], children[pick] = children[pick], children[-1]
            frames.append(children)
        self.nodes = nodes
        self.exhausted = True


def _visit(seen: _Seen, owing: set[tuple], game: Game, duty: Duty | None) -> tuple | None:
    """Record a newly reached position; None when it is not worth a visit.

    A position reached with a duty is only partly searched, so it is kept
    apart (with its duty) and never stands in for a full visit.
    """
    key = position_key(game)
    if duty is None:
        return key if seen.add(key, game) else None
    if seen.covers(key, game):
        return None
    entry = (key, len(game.waste), duty)
    if entry in owing:
        return None
    owing.add(entry)
    return key


def _promise(game: Game) -> int:
    """How far along a position looks: cards up, the reserve (which blocks most) counted twice."""
    return game.on_foundations - 2 * len(game.reserve)


def _expand(path: list[Child]) -> list[Move]:
    moves: list[Move] = []
    for taps, move, _ in path:
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
    start = time.process_time()
    game = _as_game(game_or_code)
    deadline = None if timeout_s is None else start + timeout_s
    budget = _Budget(_BIG if node_limit is None else node_limit, deadline)
    draw1 = game.draw == 1
    plain = _Run(game, _is_won, takebacks)
    # the finder: a resumable search with the duties (Draw 3: foundations last)
    finder = _Run(game, _is_won, takebacks, win_only=True, late_up=not draw1)
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
    elite_promise = -_BIG
    while line is None and not plain.exhausted and budget.left():
        seed += 1
        # Draw 1 probes alternate between the two orders; Draw 3 ones play foundations last
        late = not draw1 or seed % 2 == 0
        shake = random.Random(seed)
        prefix: list[Move] = []
        if elite and not draw1 and shake.random() < 0.5:
            prefix = elite[: shake.randrange(len(elite))]
        origin = _played(game, prefix) if prefix else game
        probe = _Run(origin, _is_won, takebacks, shake, win_only=True, late_up=late)
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

    def give(self, run: _Run, nodes: int) -> list[Move] | None:
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


def replay(game_or_code: Game | DealCode | str, moves: list[str]) -> Game:
    """Play ``moves`` with the engine on a fresh copy; raises on an illegal move."""
    return _played(_as_game(game_or_code), [Move.parse(text) for text in moves])


def _played(game: Game, line: list[Move]) -> Game:
    """A copy of ``game`` (with an unbounded undo history) after ``line``."""
    game = game.copy()
    game.history = deque()
    for move in line:
        game.push(move)
    return game
