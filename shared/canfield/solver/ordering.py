"""Which moves a search tries at a position, in what order, and the duties they leave.

* Safe foundation plays are made at once, without trying alternatives: a
  card nothing could still be built on (both cards of the other colour
  one rank below are already up) from the reserve, a column, or (Draw 1)
  the waste.
* Stock taps are folded into the waste play they lead to: each waste
  card in reach is one move "tap k times, then play it" (taps commute
  with every other move, so nothing is lost).
* A whole column never moves into an empty one (it changes nothing).
* The order: foundation plays, reserve cards, column clears, the waste
  card, other column moves, take-backs, then waste cards further down
  the stock (fewest taps first).
* Searches that only look for wins also give moves duties
  (``duty_of``): what the next move must do.
"""

from __future__ import annotations

from ..cards import BUILDS_ON
from ..game import Game
from ..moves import (
    FOUNDATION,
    ONTO_COLUMN,
    RESERVE,
    STOCK,
    TABLEAU,
    TO_FOUNDATION,
    WASTE,
    Move,
)

__all__ = ["Duty", "Child", "children", "duty_of"]

# move-ordering ranks: lower is tried first
_RANK_FOUNDATION = 0
_RANK_RESERVE = 1
_RANK_CLEAR = 2
_RANK_WASTE = 3
_RANK_COLUMN = 4
_RANK_TAKEBACK = 5
_RANK_DRAW = 6
_RANK_LATE_UP = 7

_WASTE_UP = TO_FOUNDATION[WASTE]
_WASTE_TO = ONTO_COLUMN[WASTE]

#: What a move leaves the next one to do in a win-only search (see ``duty_of``).
Duty = tuple[int, ...]
_OWE_COLUMN = 0  # (tag, card uncovered, card joined or -1, cards moved)
_OWE_BUILD = 1  # (tag, card): build on this card
_OWE_SUIT = 2  # (tag, suit): play the next card of this suit up
#: a child: (stock taps first, the move, the duty it leaves or None)
Child = tuple[int, Move, "Duty | None"]


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


def duty_of(game: Game, move: Move, card: int) -> Duty | None:
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


def children(
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
            owes = duty_of(game, move, card) if win_only else None
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
                    owes = duty_of(game, _WASTE_UP, card) if win_only else None
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
                    owes = duty_of(game, move, card) if win_only else None
                    ranked.append((_RANK_DRAW, order, taps, move, owes))
    ranked.sort(reverse=True)  # by rank, then order (unique, so nothing else is compared)
    return [(taps, move, owes) for _, _, taps, move, owes in ranked]
