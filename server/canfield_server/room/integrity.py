"""Integrity signals: what one finished racer's timed line says about how it
was played, for people to judge (never an automatic ban).

Computed off the move path, after a race (room, public or daily) ends,
from the server's receipt times (``room.stamps``) and the solver's view of
the line. ``Signals`` is the evidence one racer's result carries into the
review queue; the rule that flags a result (``flag``) reads nothing else.

Sans-I/O: ``signals`` sums a line up, ``Agreement`` asks the solver its
questions one at a time (``solving.integrity`` answers them in the room's
fair turn at the solver workers), ``flag`` says why a result looks solved.

**Solver agreement.** The line is first cut down to its *net line*: the
moves that stood (an undo takes its move away, as in ``canfield.review``),
with every loop cut out (a stretch of moves that comes back to a position
already passed, such as a full turn of the stock that changed nothing).
Along the net line, the solver is asked for a winning line from the
position reached; each next move *keeps to it* when the position it
reaches lies on that line; a move that leaves it costs one more question,
from the position it reached. The agreement is the share of the moves
played where the position offered a real choice (``is_decision``) that
kept to a solver-winning line. A line copied from the solver keeps to it
all the way (one question or a few: undos and stock turns thrown in are cut
with the loops); a person's winning line takes other roads at many of its
choices, and each one asked about costs a question, so the questions are
capped (``Agreement.max_calls``) and the share is over the moves checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec
from canfield import DRAW, Game
from canfield.moves import UNDO
from canfield.review import stood_moves
from canfield.solver import WINNABLE, SolveResult
from canfield.textinput import BLANK, ascii_upper, strip_spaces

__all__ = [
    "Signals",
    "Thresholds",
    "Agreement",
    "NetLine",
    "net_line",
    "is_decision",
    "think_times",
    "spread",
    "signals",
    "flag",
    "GIVE_UP",
]

#: a race log's give-up (the line ends there)
GIVE_UP = "G"


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
    #: the line won the deal
    won: bool = False
    #: the net line's length (moves that stood, loops cut out) and its length
    #: beyond par (None: no par known): a solver's line, undos and stock turns
    #: thrown in or not, is at par (0)
    net_moves: int = 0
    net_over_par: int | None = None
    #: actions that did not end up on the net line (undos, undone moves, loops):
    #: their share of all actions
    wasted_share: float = 0.0
    #: the times are the server's receipt times (False: a log kept without them)
    timed: bool = False
    #: solver questions asked for the agreement
    solver_calls: int = 0


@dataclass(frozen=True, slots=True)
class NetLine:
    """A line's moves that stood with its loops cut out, and for each of them
    whether the position it was played from offered a real choice."""

    moves: list[str]
    decisions: list[bool]
    won: bool
    #: per given action: whether the position it was played from offered a choice
    #: (None: an undo or the give-up)
    choice_at: list[bool | None]


def is_decision(game: Game) -> bool:
    """Whether the position offers a real choice: more than one legal action,
    one of them something other than turning the stock (take-backs left out:
    nobody has to consider them). Forced: one action, or only the stock."""
    count = 0
    board = False
    for move in game.legal_moves(takebacks=False):
        count += 1
        board = board or move != DRAW
        if count > 1 and board:
            return True
    return False


def _key(game: Game) -> tuple[object, ...]:
    return (game.position_key(), tuple(game.suit_slot))


def net_line(code: str, moves: Sequence[str]) -> NetLine:
    """Replay a race log (``U`` undoes, ``G`` ends it) and cut it down to its net
    line. Raises ``CanfieldError`` on an entry that is not a legal action."""
    game = Game.deal(code)
    choice_at: list[bool | None] = []
    for text in moves:
        entry = ascii_upper(strip_spaces(text, BLANK))
        if entry in (GIVE_UP, UNDO):
            choice_at.append(None)
            if entry == UNDO:
                game.pop()
            continue
        choice_at.append(is_decision(game))
        game.push_text(text)
    _, stood = stood_moves(code, moves)
    game = Game.deal(code)
    path: list[str] = []
    decisions: list[bool] = []
    keys: list[tuple[object, ...]] = [_key(game)]
    seen: dict[tuple[object, ...], int] = {keys[0]: 0}
    for _, text in stood:
        choice = is_decision(game)
        game.push_text(text)
        key = _key(game)
        back = seen.get(key)
        if back is not None:  # a loop: back to a position passed, cut it out
            for gone in keys[back + 1 :]:
                del seen[gone]
            del keys[back + 1 :], path[back:], decisions[back:]
            continue
        path.append(text)
        decisions.append(choice)
        seen[key] = len(keys)
        keys.append(key)
    return NetLine(path, decisions, game.is_won, choice_at)


class Agreement:
    """How much of a line keeps to solver-winning lines, a question at a time:
    while not ``done``, ``question()`` is the moves of the net line that lead to
    a position (from the deal), and ``answer`` takes the solver's verdict on it
    (a ``SolveResult``, its winning line when winnable)."""

    #: positions with no line found before the agreement gives up
    MAX_MISSES = 3

    def __init__(self, code: str, line: NetLine, max_calls: int, max_seconds: float) -> None:
        self.code = code
        self.moves = line.moves
        self.decisions = line.decisions
        self.max_calls = max_calls
        self.max_seconds = max_seconds
        self.calls = 0
        self.misses = 0
        self.seconds = 0.0
        #: net moves walked, decision moves checked and those that kept to a line
        self._at = 0
        self.checked = 0
        self.kept = 0
        self._asking: int | None = 0 if self.moves else None

    @property
    def done(self) -> bool:
        return self._asking is None

    @property
    def share(self) -> float | None:
        return self.kept / self.checked if self.checked else None

    def question(self) -> tuple[str, ...]:
        if self._asking is None:
            raise RuntimeError("no question left")
        return tuple(self.moves[: self._asking])

    def answer(self, result: SolveResult) -> None:
        """The verdict on the last question: the net line is walked along the
        solver's line while it keeps to it; the next question is the position
        where it left (or one further on, when no line was found). The questions
        end at ``max_calls``, ``max_seconds`` of solver time or ``MAX_MISSES``
        positions with no line found."""
        at = self._asking
        if at is None:
            raise RuntimeError("no question left")
        self.calls += 1
        self.seconds += result.seconds
        if result.result != WINNABLE or not result.moves:
            # nothing to compare with here: a quarter of the rest on, the
            # positions get easier to solve as cards go home
            self.misses += 1
            self._next(at + max(1, (len(self.moves) - at) // 4))
            return
        game = Game.replay(self.code, self.moves[:at])
        ahead: dict[tuple[object, ...], int] = {}
        for index, text in enumerate(result.moves):
            game.push_text(text)
            ahead.setdefault(_key(game), index)
        game = Game.replay(self.code, self.moves[:at])
        reached = -1
        while at < len(self.moves):
            game.push_text(self.moves[at])
            step = ahead.get(_key(game))
            on_line = step is not None and step > reached
            if self.decisions[at]:
                self.checked += 1
                self.kept += on_line
            at += 1
            if not on_line:
                break  # left the line: ask from where it went
            reached = step if step is not None else reached
        self._next(at)

    def _next(self, at: int) -> None:
        more = (
            self.calls < self.max_calls
            and self.seconds < self.max_seconds
            and self.misses < self.MAX_MISSES
        )
        self._asking = at if at < len(self.moves) and more else None


def think_times(times_ms: Sequence[int]) -> list[int]:
    """The think time before each action: ms since the one before (the first:
    since the start). Times never run backwards; a late stamp counts 0."""
    out: list[int] = []
    last = 0
    for at in times_ms:
        out.append(max(0, at - last))
        last = max(last, at)
    return out


def _percentile(ordered: Sequence[int], q: float) -> float:
    if not ordered:
        return 0.0
    pos = (len(ordered) - 1) * q
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def _median(values: Sequence[int]) -> int | None:
    return round(_percentile(sorted(values), 0.5)) if values else None


def spread(thinks: Sequence[int]) -> float:
    """(90th - 10th percentile) / median of the think times (0 when none)."""
    ordered = sorted(thinks)
    median = _percentile(ordered, 0.5)
    if median <= 0:
        return 0.0
    return round((_percentile(ordered, 0.9) - _percentile(ordered, 0.1)) / median, 3)


def signals(
    code: str,
    moves: Sequence[str],
    times_ms: Sequence[int] | None,
    par: int | None,
    agreement: Agreement | None = None,
    line: NetLine | None = None,
) -> Signals:
    """One racer's line summed up: its log (``moves``), the receipt time of each
    entry (None: not kept), the deal's par, and the agreement worked out for it
    (None: not asked). Raises ``CanfieldError`` on a log that does not replay."""
    line = line if line is not None else net_line(code, moves)
    actions = [m for m in moves if ascii_upper(strip_spaces(m, BLANK)) != GIVE_UP]
    timed = times_ms is not None and len(times_ms) == len(moves)
    thinks = think_times(times_ms[: len(actions)]) if timed and times_ms is not None else []
    decision = [t for t, c in zip(thinks, line.choice_at, strict=False) if c is True]
    forced = [t for t, c in zip(thinks, line.choice_at, strict=False) if c is False]
    last = times_ms[len(actions) - 1] if thinks and times_ms is not None else 0
    return Signals(
        actions=len(actions),
        moves_per_s=round(len(actions) * 1000 / last, 3) if last > 0 else 0.0,
        think_ms=thinks,
        think_median_ms=_median(thinks) or 0,
        think_spread=spread(thinks),
        decision_think_ms=_median(decision),
        forced_think_ms=_median(forced),
        over_par=len(actions) - par if par else None,
        solver_agreement=None
        if agreement is None or agreement.share is None
        else round(agreement.share, 3),
        checked_moves=agreement.checked if agreement is not None else 0,
        won=line.won,
        net_moves=len(line.moves),
        net_over_par=len(line.moves) - par if par else None,
        wasted_share=round(1 - len(line.moves) / len(actions), 3) if actions else 0.0,
        timed=bool(thinks),
        solver_calls=agreement.calls if agreement is not None else 0,
    )


class Thresholds(msgspec.Struct, frozen=True, kw_only=True):
    """The flag rule's limits (``ops.config``: CANFIELD_FLAG_*)."""

    #: the least solver agreement that flags
    agreement: float = 0.9
    #: the least decision moves checked for the agreement to count
    min_checked: int = 15
    #: the most moves the net line may run over par and still flag
    net_over_par: int = 10


def flag(s: Signals, limits: Thresholds | None = None) -> list[str]:
    """Why a result looks played from a solver's line (empty: not flagged).

    A won line whose choices kept to solver-winning lines (``agreement`` or
    more of at least ``min_checked`` checked choices) and whose net line is at
    most ``net_over_par`` moves over par is flagged: pacing, undos and stock
    turns cannot hide either. The timing then adds what it shows (a steady
    pace, no more thought at choices than at forced moves) to the reasons, for
    the reviewer; it never flags alone, since honest play can look like it.
    """
    limits = limits or Thresholds()
    if not s.won or s.solver_agreement is None or s.checked_moves < limits.min_checked:
        return []
    if s.solver_agreement < limits.agreement:
        return []
    if s.net_over_par is not None and s.net_over_par > limits.net_over_par:
        return []
    reasons = [
        f"solver agreement {s.solver_agreement:.0%} over {s.checked_moves} choices"
        f" (flags from {limits.agreement:.0%})"
    ]
    if s.net_over_par is not None:
        reasons.append(f"net line {s.net_over_par:+d} moves against par")
    if s.timed and s.think_spread < 1.0:
        reasons.append(f"steady pace: think-time spread {s.think_spread:.2f}")
    if (
        s.decision_think_ms is not None
        and s.forced_think_ms
        and s.decision_think_ms < 1.25 * s.forced_think_ms
    ):
        reasons.append(
            f"no more thought at choices ({s.decision_think_ms} ms) than at forced moves"
            f" ({s.forced_think_ms} ms)"
        )
    return reasons
