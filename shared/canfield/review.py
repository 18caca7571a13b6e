"""Where the win slipped away: the solver turned on a player's own line.

For a deal and the moves a player made, ``LineReview`` says whether the
deal could be won at the start, and if so, the first move after which it
no longer could (the *slip*), with a winning continuation from the
position just before it; or that it was still winnable when the player
stopped (or won).

Winnability can only fall along a line of legal moves: a win from a later
position is a win from every earlier one (play the moves between, then
that win). That needs "winnable" to mean "some line of legal moves wins",
take-backs included: without them it is not monotone along a line that
takes a card back, and a deal the search without take-backs proves lost
can be won with them (docs/solver.md, "Reviewing a line"). The position
is the piles alone (the stock may be turned over any number of times,
and nothing counts passes), and an undo restores it exactly, so once the
line is cut down to the moves that stood (an undo takes its move away)
the slip is found by bisection over its positions: the start, the end,
then about log2(moves) calls. A slip is claimed only when both sides of
it are decided: winnable before it (with a line that replays to a win)
and proven unwinnable after it; a call that runs out of time leaves the
review undecided, and it says so.

The review is sans-I/O, like the protocol: it asks questions (a position,
given as the deal and the moves that lead to it) and takes the solver's
answers, so the command line answers them in process and the server in
its fair solver service, one bounded call at a time, each as
``solve(question.game(), timeout_s, takebacks=TAKEBACKS)``.
``review_line`` runs one to the end in process.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .dealcode import DealCode
from .errors import CanfieldError
from .game import Game
from .moves import UNDO
from .solver import NOT_WINNABLE, WINNABLE, SolveResult, solve
from .textinput import BLANK, ascii_upper, excerpt, strip_spaces

__all__ = [
    "GIVE_UP",
    "LineError",
    "Question",
    "Verdict",
    "LineReview",
    "TAKEBACKS",
    "review_line",
    "stood_moves",
]

#: a race log's give-up: the line ends there (nothing may follow it)
GIVE_UP = "G"
#: every solver call of a review searches take-backs too, so that "not
#: winnable" means no legal line wins (the server's calls pass it as well)
TAKEBACKS = True


class LineError(CanfieldError):
    """A line that is not a list of legal moves; the message names the entry.

    ``index`` is that entry's 0-based index in the moves given; ``rule`` the
    engine's rule identifier when a well-formed move broke a rule, else None.
    """

    def __init__(self, message: str, index: int, rule: str | None = None) -> None:
        super().__init__(message)
        self.index = index
        self.rule = rule


@dataclass(frozen=True, slots=True)
class Question:
    """A position to decide: the deal and the moves (no undo) that lead to it."""

    code: str
    moves: tuple[str, ...]

    def game(self) -> Game:
        return Game.replay(self.code, self.moves)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a review found. ``slip`` indexes the moves as given (undos and
    all); ``continuation`` wins from the position just before the slip."""

    winnable_at_start: bool | None
    slip: int | None
    continuation: list[str] | None
    winnable_at_end: bool | None
    decided: bool
    won: bool = False
    solver_calls: int = 0
    seconds: float = 0.0
    #: the slip's move in the notation's own form (``w-3`` is ``W-3``), for the reader
    slip_move: str | None = None
    moves: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "winnable_at_start": self.winnable_at_start,
            "slip": self.slip,
            "slip_move": self.slip_move,
            "continuation": self.continuation,
            "winnable_at_end": self.winnable_at_end,
            "decided": self.decided,
            "won": self.won,
            "moves": self.moves,
            "solver_calls": self.solver_calls,
            "seconds": round(self.seconds, 3),
        }


def stood_moves(code: DealCode | str, moves: Sequence[str]) -> tuple[Game, list[tuple[int, str]]]:
    """Replay ``moves`` (``U`` undoes, ``G`` ends the line) from the deal; the final
    game and the moves that stood, each with its index in ``moves``. Raises
    ``LineError`` naming the first entry that is not a legal move (an undo with
    nothing to undo, or anything after a give-up, included). ``U`` and ``G`` are
    read as the engine reads ``U``: ASCII case folding, spaces around trimmed."""
    game = Game.deal(code)
    stood: list[tuple[int, str]] = []
    for index, text in enumerate(moves):
        entry = ascii_upper(strip_spaces(text, BLANK)) if isinstance(text, str) else text
        if entry == GIVE_UP:
            if index != len(moves) - 1:
                raise LineError(f"move {index + 1} is a give-up, and moves follow it", index)
            break
        try:
            if entry == UNDO:
                game.pop()
                stood.pop()
                continue
            move = game.push_text(text)
        except CanfieldError as exc:
            rule = getattr(exc, "rule", None)
            reason = f"{exc} [{rule}]" if rule else str(exc)
            raise LineError(f"move {index + 1} ({excerpt(str(text))}): {reason}", index, rule) from exc
        stood.append((index, move.text()))
    return game, stood


class LineReview:
    """One line's review, a question at a time (``question``, then ``answer``).

    The positions are numbered by how many stood moves lead to them: 0 is the
    deal, ``len(stood)`` where the player stopped. The first question is the
    start, the second the end, then the middle of what is left between the
    last position known winnable and the first known lost.
    """

    def __init__(self, code: DealCode | str, moves: Sequence[str]) -> None:
        self.code = str(code)
        self.given = len(moves)
        final, self.stood = stood_moves(code, moves)
        self.calls = 0
        self.seconds = 0.0
        self._verdict: Verdict | None = None
        self._start: bool | None = None
        #: the last position known winnable (its index in ``stood``) and its winning line
        self._low: int | None = None
        self._low_line: list[str] = []
        #: the first position known unwinnable
        self._high: int | None = None
        self._winnable_at_end: bool | None = None
        if final.is_won:
            self._verdict = Verdict(True, None, None, True, True, won=True, moves=self.given)
        self._asking = 0  # the start first, then the end, then halves

    @property
    def done(self) -> bool:
        return self._verdict is not None

    def verdict(self) -> Verdict:
        if self._verdict is None:
            raise RuntimeError("the review has questions left")
        return self._verdict

    def question(self) -> Question:
        """The next position to decide (only while not ``done``)."""
        if self._verdict is not None:
            raise RuntimeError("the review is done: it has no question left")
        return Question(self.code, tuple(text for _, text in self.stood[: self._asking]))

    def answer(self, result: SolveResult) -> None:
        """The solver's verdict on the last question (asked with take-backs)."""
        question = self.question()
        self.calls += 1
        self.seconds += result.seconds
        at, end = self._asking, len(self.stood)
        if result.result == WINNABLE:
            if not Game.replay(question.game(), result.moves).is_won:
                raise ValueError("the solver's line does not win from the position asked")
            if self._high is not None and at >= self._high:
                raise ValueError("a win after a position proven lost: the answers contradict")
            self._low, self._low_line = at, list(result.moves)
        elif result.result == NOT_WINNABLE:
            if self._low is not None and at <= self._low:
                raise ValueError("a loss before a position won: the answers contradict")
            self._high = at
        else:
            self._finish(decided=False)
            return
        if at == 0:
            self._start = result.result == WINNABLE
        if self._low is None:  # the start is lost: no slip to find
            self._winnable_at_end = False
            self._finish(decided=True)
            return
        if self._high is None:
            if at == end:  # still winnable when the player stopped
                self._winnable_at_end = True
                self._finish(decided=True)
                return
            self._asking = end
            return
        self._winnable_at_end = False
        if self._high - self._low <= 1:
            self._finish(decided=True)
            return
        self._asking = (self._low + self._high) // 2

    def _finish(self, decided: bool) -> None:
        slip = line = move = None
        if decided and self._low is not None and self._high is not None:
            slip, move = self.stood[self._high - 1]
            line = self._low_line
        self._verdict = Verdict(
            winnable_at_start=self._start,
            slip=slip,
            continuation=line,
            winnable_at_end=self._winnable_at_end,
            decided=decided,
            solver_calls=self.calls,
            seconds=self.seconds,
            slip_move=move,
            moves=self.given,
        )


def review_line(
    code: DealCode | str,
    moves: Sequence[str],
    timeout_s: float = 5.0,
    solver: Callable[..., SolveResult] = solve,
) -> Verdict:
    """Review a line in process, each solver call at most ``timeout_s`` of
    processor time."""
    review = LineReview(code, moves)
    while not review.done:
        review.answer(solver(review.question().game(), timeout_s, takebacks=TAKEBACKS))
    return review.verdict()
