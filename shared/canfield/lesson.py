"""What a lost line teaches: a short winning line, and what the slip gave up.

A review (``canfield.review``) finds the move after which the deal could
no longer be won, and a winning line from the position just before it.
That line is whatever the solver found first: its probes wander, so it
can run to a thousand actions where its line for the whole deal took 160. A
line to learn from is a short one, and the move that lost the win is
worth a sentence of why. Both are worked out here, in process, with a
bound, so the server can run them as one more job at its solver workers.

``short_line`` makes the line short in three ways, each sound:

* **Shortcuts**: the solver's line is replayed, and wherever a position
  further along it can be reached in fewer actions (one move after some
  stock taps, or the taps alone), the actions between are cut. Loops
  (a position reached twice) go the same way. This costs one pass of the
  legal moves per position of the line, and never lengthens it.
* **Splices**: from every fifth position of the line a fresh plain search
  (``solver.depth_first.search``, a few thousand positions) looks for a
  win; where it wins in fewer actions than the rest of the line, it
  replaces that rest (detours cut again), and the line is read again.
* **A search** from the position for a line shorter than the best so far:
  best-first on actions spent plus the cards not yet home (which no line
  can beat, since every card needs one more action at least), first
  weighted towards the cards home to find short lines soon, then plain to
  prove there is none shorter; each win found lowers the bound. Positions
  whose actions spent plus cards left reach the best line's length are
  never kept. When the plain search
  runs out of positions within its bound, the line is the shortest there
  is (``shortest``); when the bound comes first, a shorter one may exist,
  and the page says so.

``explain`` says what the slip gave up, read off the winning line: the
first card that line uses which the player's move touched, and how. A
draw in Draw 3 buries the waste card the line played next (it cannot
come back to the top by tapping); a move onto a card takes the place the
line put another card on; a move covers a card the line needed; a card
played elsewhere is a card the line used elsewhere; a card played into an
empty column takes the column the line filled; a card the line played
the same way later went too soon. What the card was for is read from the
line too: the card the line built on it next, and where the line sent
it. The words themselves are the page's (both languages): ``Why`` holds
only the cards and the kind.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import card_text
from .game import Game
from .moves import DRAW, FOUNDATION, RESERVE, STOCK, TABLEAU, WASTE, Move
from .review import Question, Verdict, stood_moves
from .solver.depth_first import is_won, search

__all__ = ["ShortLine", "Why", "short_line", "shortcut", "explain", "teach", "taught"]

#: (reserve size, the columns, cards up per suit, waste size): exact along
#: lines from one position (the reserve only shrinks, the talon keeps its order)
Key = tuple[Any, ...]

#: the search's positions, at most: each position kept is a board in memory,
#: and this many kept a worker under 80 MB (peak, measured); at 2 s the time
#: bound comes first on a loaded machine
NODE_LIMIT = 150_000
#: the share of the bounds used up by the splices (``_splice``), then by the
#: weighted search; the plain search gets the rest
_SPLICE_SHARE = 0.3
_WEIGHTED_SHARE = 0.7
#: a splice tries a fresh plain search from every this many positions of the
#: line, each at most this many positions
_SPLICE_EVERY = 5
_SPLICE_NODES = 3_000
#: the weighted search's weight on the cards left
_WEIGHT = 3


@dataclass(frozen=True, slots=True)
class ShortLine:
    """A winning line from a position, made short within a bound.

    ``first`` is the length of the line it started from; ``shortest`` is
    true only when the search proved no shorter line exists. ``nodes``
    counts the best-first search's positions (the splices' are not).
    """

    moves: list[str]
    first: int
    shortest: bool
    seconds: float = 0.0
    nodes: int = 0


def _key(game: Game) -> Key:
    return game.position_key()


def _steps(game: Game) -> Iterator[tuple[int, Move | None]]:
    """Every (stock taps, then a move) from here; ``None``: the taps alone.

    Taps first reach each other waste size (the talon keeps its order); a
    move is any legal move other than a tap, take-backs included."""
    total = len(game.waste) + len(game.stock)
    for move in game.legal_moves(True):
        if move.src != STOCK:
            yield 0, move
    if not total:
        return
    # each waste size the taps reach, once, fewest taps first
    work = game.copy()
    reached = {len(work.waste)}
    for taps in range(1, 2 * total // work.draw + 4):
        work.push(DRAW)
        size = len(work.waste)
        if size in reached:
            if size == len(game.waste):
                break
            continue
        reached.add(size)
        yield taps, None
        for move in work.legal_moves(True):
            if move.src == WASTE:
                yield taps, move


def _play(game: Game, taps: int, move: Move | None) -> None:
    for _ in range(taps):
        game.push(DRAW)
    if move is not None:
        game.push(move)


def _texts(taps: int, move: Move | None) -> list[str]:
    return ["S"] * taps + ([move.text()] if move is not None else [])


def shortcut(game: Game, line: Sequence[str]) -> list[str]:
    """``line`` (which wins from ``game``) with every detour cut: from each
    position, the furthest position of the line that some taps and at most
    one move reach in fewer actions than the line spends. Never longer."""
    moves = list(line)
    while True:
        work = Game.replay(game, [])
        work.history.clear()
        keys = [_key(work)]
        for text in moves:
            work.play_text(text)
            keys.append(_key(work))
        last = {key: at for at, key in enumerate(keys)}
        out: list[str] = []
        at = 0
        here = game.copy()
        while at < len(moves):
            # the most actions saved: a loop (the same position further on) or a step
            loop = last[keys[at]]
            jump: tuple[int, Move | None] = (0, None)
            saved, to = loop - at, loop
            for taps, move in _steps(here):
                work = here.copy()
                _play(work, taps, move)
                reach = last.get(_key(work), -1)
                if reach - at - _cost(taps, move) > saved:
                    saved, to = reach - at - _cost(taps, move), reach
                    jump = (taps, move)
            if saved <= 0:
                out.append(moves[at])
                here.play_text(moves[at])
                at += 1
                continue
            out.extend(_texts(*jump))
            _play(here, *jump)
            at = to
        if len(out) >= len(moves):
            return moves
        moves = out


def _cost(taps: int, move: Move | None) -> int:
    return taps + (move is not None)


def short_line(
    game: Game,
    line: Sequence[str],
    timeout_s: float | None = 2.0,
    node_limit: int = NODE_LIMIT,
) -> ShortLine:
    """A short winning line from ``game``, starting from ``line`` (which wins
    from it), in at most about ``timeout_s`` processor seconds and
    ``node_limit`` positions. Never changes ``game``."""
    start = time.process_time()
    best = shortcut(game, line)
    nodes = 0
    shortest = False
    if timeout_s is not None:
        best = _splice(game, best, start + timeout_s * _SPLICE_SHARE)
    # the weighted search next (its share of the bounds), then the plain one (the rest)
    for weight, share in ((_WEIGHT, _WEIGHTED_SHARE), (1, 1.0)):
        until = None if timeout_s is None else start + timeout_s * share
        limit = int(node_limit * (share - _SPLICE_SHARE)) - nodes
        found, spent, done = _best_first(game, len(best), weight, until, limit)
        nodes += spent
        if found is not None and len(found) < len(best):
            best = shortcut(game, found)
        shortest = done and weight == 1  # the plain search ran out: nothing shorter
    return ShortLine(best, len(line), shortest, time.process_time() - start, nodes)


def _splice(game: Game, line: list[str], deadline: float) -> list[str]:
    """``line`` made shorter where a fresh plain search from one of its
    positions (every ``_SPLICE_EVERY``-th, each at most ``_SPLICE_NODES``
    positions) wins in fewer actions than the rest of it, its detours cut
    again; until no splice helps or the ``deadline`` passes."""
    best = line
    while time.process_time() < deadline:
        here = game.copy()
        here.history.clear()
        for at, text in enumerate(best):
            if time.process_time() >= deadline:
                return best
            if at % _SPLICE_EVERY == 0:
                found = search(here, is_won, node_limit=_SPLICE_NODES)
                if found.found and len(found.moves) < len(best) - at:
                    tried = shortcut(game, best[:at] + [m.text() for m in found.moves])
                    if len(tried) < len(best):
                        best = tried
                        break
            here.play_text(text)
        else:
            return best
    return best


def _best_first(
    game: Game, bound: int, weight: int, deadline: float | None, node_limit: int
) -> tuple[list[str] | None, int, bool]:
    """Best-first search for a win in fewer than ``bound`` actions, ordered by
    actions spent plus ``weight`` times the cards left; each win found
    lowers the bound, and the search goes on. Returns the shortest line
    found (or None), the positions generated, and whether the search ran
    out of positions within its bounds (with ``weight`` 1: no line is
    shorter than the one returned, or than ``bound`` when none was)."""
    root = game.copy()
    root.history.clear()
    if root.is_won:
        return [], 0, True
    tie = itertools.count()
    # every position kept: (the one it came from, the actions from there)
    came: list[tuple[int, list[str]]] = [(-1, [])]
    # (priority, tie, actions spent, position, its index in ``came``)
    frontier: list[tuple[int, int, int, Game, int]] = [
        (weight * (52 - root.on_foundations), next(tie), 0, root, 0)
    ]
    spent_at: dict[Key, int] = {_key(root): 0}
    best: tuple[int, list[str]] | None = None
    nodes = 0
    clock = time.process_time
    while frontier:
        _, _, spent, here, at = heapq.heappop(frontier)
        if spent + 52 - here.on_foundations >= bound or spent_at.get(_key(here), spent) < spent:
            continue  # past the bound found since, or reached again more cheaply
        for taps, move in _steps(here):
            cost = spent + _cost(taps, move)
            after = here.copy()
            _play(after, taps, move)
            after.history.clear()
            nodes += 1
            left = 52 - after.on_foundations
            if cost + left >= bound:
                continue
            if not left:
                bound, best = cost, (at, _texts(taps, move))
                continue
            key = _key(after)
            if spent_at.get(key, cost + 1) <= cost:
                continue
            spent_at[key] = cost
            came.append((at, _texts(taps, move)))
            priority = cost + weight * left
            heapq.heappush(frontier, (priority, next(tie), cost, after, len(came) - 1))
        if nodes >= node_limit or (deadline is not None and clock() >= deadline):
            return _line(came, best), nodes, False
    return _line(came, best), nodes, True


def _line(
    came: list[tuple[int, list[str]]], best: tuple[int, list[str]] | None
) -> list[str] | None:
    """The actions to the win found (None: none), from the parent links."""
    if best is None:
        return None
    at, tail = best
    parts = [tail]
    while at > 0:
        at, texts = came[at]
        parts.append(texts)
    return [text for texts in reversed(parts) for text in texts]


# ------------------------------------------------------------------ explain


@dataclass(frozen=True, slots=True)
class Why:
    """What the move that lost the win gave up, as cards (texts such as ``5H``).

    ``kind``, with ``card`` the card the winning line needed:

    * ``buried``: the draw put ``card``, the waste's top, out of the taps' reach;
    * ``covered``: ``moved`` was put on ``card``;
    * ``taken``: ``moved`` took the place on ``card`` that ``need`` went to;
    * ``used``: ``moved`` (which is ``card``) went where the line could not use it;
    * ``filled``: ``moved`` filled the empty column that ``card`` went to;
    * ``early``: ``moved`` went where the line put it too, but later: first
      the line moved ``card``;
    * ``instead``: none of those: the line's first move was ``card``.

    ``need`` is the card the line built on ``card`` next (None: none);
    ``to`` is where the line sent ``card``: ``foundation``, a card text
    (onto that card), ``column`` (an empty one), or None.
    """

    kind: str
    card: str
    moved: str | None = None
    need: str | None = None
    to: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {
            "kind": self.kind,
            "card": self.card,
            "moved": self.moved,
            "need": self.need,
            "to": self.to,
        }


@dataclass(frozen=True, slots=True)
class _Step:
    """One action of a line, as cards: which moved, from where, onto what."""

    card: int | None  # the moved card (a run's bottom card); None for a tap
    src: str
    dst: str
    onto: int | None  # the card it landed on; None: a foundation or an empty column


def _step(game: Game, move: Move) -> _Step:
    """``move`` in cards, read from ``game`` before it."""
    if move.src == STOCK:
        return _Step(None, STOCK, "", None)
    if move.src == RESERVE:
        card = game.reserve[-1]
    elif move.src == WASTE:
        card = game.waste[-1]
    elif move.src == TABLEAU:
        card = game.tableau[move.src_index][-move.count]
    else:
        card = game.foundations[move.src_index][-1]
    onto = None
    if move.dst == TABLEAU and game.tableau[move.dst_index]:
        onto = game.tableau[move.dst_index][-1]
    return _Step(card, move.src, move.dst, onto)


def _where(step: _Step) -> str | None:
    if step.dst == FOUNDATION:
        return "foundation"
    if step.dst == TABLEAU:
        return "column" if step.onto is None else card_text(step.onto)
    return None


def explain(game: Game, slip: str, line: Sequence[str]) -> Why | None:
    """What ``slip`` (played from ``game``) gave up, read off ``line`` (a
    winning line from ``game``); None when the line has no card move."""
    move = Move.parse(slip)
    mine = _step(game, move)
    buried = None
    if move.src == STOCK and game.waste:
        buried = game.waste[-1]
    work = game.copy()
    steps: list[_Step] = []
    for text in line:
        played = Move.parse(text)
        steps.append(_step(work, played))
        work.push(played)
    first = next((s for s in steps if s.card is not None), None)
    if first is None:
        return None
    for at, step in enumerate(steps):
        if step.card is None:
            continue
        if buried is not None and step.card == buried and step.src == WASTE:
            return _why("buried", buried, None, steps, at)
        if mine.card is None:
            continue
        if step.card == mine.card:
            # the line plays the same card: elsewhere, or the same way but later
            same = step.dst == mine.dst and step.onto == mine.onto
            before = next((s for s in steps[:at] if s.card is not None), None)
            if same and before is not None:
                return Why("early", _text(before.card), card_text(mine.card), to=_where(before))
            if same:
                break
            return _why("used", mine.card, mine.card, steps, at)
        if mine.onto is not None and step.onto == mine.onto:
            return Why("taken", card_text(mine.onto), card_text(mine.card), card_text(step.card))
        if mine.onto is not None and step.card == mine.onto:
            return _why("covered", mine.onto, mine.card, steps, at)
        if mine.dst == TABLEAU and mine.onto is None and step.dst == TABLEAU and step.onto is None:
            return Why("filled", card_text(step.card), card_text(mine.card), to="column")
    return Why("instead", _text(first.card), to=_where(first))


def _why(kind: str, card: int, moved: int | None, steps: list[_Step], at: int) -> Why:
    """A ``kind`` of loss of ``card``, which the line moves at ``steps[at]``:
    with the card the line built on it next (before it moved again)."""
    need = None
    for later in steps[at + 1 :]:
        if later.onto == card:
            need = _text(later.card)
            break
        if later.card == card:
            break
    return Why(
        kind,
        card_text(card),
        None if moved is None else card_text(moved),
        need,
        _where(steps[at]),
    )


def _text(card: int | None) -> str:
    return "" if card is None else card_text(card)


def teach(verdict: Verdict, before: Question, timeout_s: float | None) -> Verdict:
    """``verdict`` (with a slip) taught: its continuation made short within
    ``timeout_s`` processor seconds, and what the slip gave up. ``before`` is
    the position just before the slip (``LineReview.before_slip``)."""
    if verdict.slip is None or verdict.continuation is None or verdict.slip_move is None:
        return verdict
    game = before.game()
    short = short_line(game, verdict.continuation, timeout_s)
    why = explain(game, verdict.slip_move, short.moves)
    return dataclasses.replace(
        verdict,
        continuation=short.moves,
        why=None if why is None else why.to_dict(),
        line_first=short.first,
        shortest=short.shortest,
        seconds=verdict.seconds + short.seconds,
    )


def taught(code: str, moves: Sequence[str], verdict: Verdict, timeout_s: float | None) -> Verdict:
    """``verdict`` (of ``moves`` as given, on ``code``) with its slip taught, as
    ``teach`` does; the position before the slip is rebuilt from the moves."""
    if verdict.slip is None:
        return verdict
    _, stood = stood_moves(code, moves[: verdict.slip])
    return teach(verdict, Question(code, tuple(text for _, text in stood)), timeout_s)
