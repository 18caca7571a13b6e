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
and proven unwinnable after it. A position the solver cannot decide in
time is stepped round (at most ``LineReview.MAX_UNDECIDED`` times); when
that does not close in on the slip, the review is undecided, and says so.

The review is sans-I/O, like the protocol: it asks questions (a position,
given as the deal and the moves that lead to it) and takes the solver's
answers, so the command line answers them in process and the server in
its fair solver service, one bounded call at a time, each as
``decide(question.game(), timeout_s)``. ``review_line`` runs one to the
end in process.

``decide`` answers with take-backs allowed, but looks for a win without
them first: a win found either way is a legal line, that search is the
quicker one, and only proving that no line wins needs the search with
take-backs, which then gets the time left.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .dealcode import DealCode
from .errors import CanfieldError
from .game import Game
from .moves import UNDO
from .solver import NOT_WINNABLE, UNKNOWN, WINNABLE, SolveResult, solve
from .textinput import BLANK, ascii_upper, excerpt, strip_spaces

__all__ = [
    "GIVE_UP",
    "LineError",
    "Question",
    "Verdict",
    "LineReview",
    "TAKEBACKS",
    "decide",
    "review_line",
    "stood_moves",
]

#: a race log's give-up: the line ends there (nothing may follow it)
GIVE_UP = "G"
#: a review's "not winnable" means no line of legal moves wins, take-backs
#: included (``decide`` and ``review_line`` pass it to the solver)
TAKEBACKS = True


class LineError(CanfieldError):
    """A line that is not a list of legal moves; the message names the entry.

    ``index`` is that entry's 0-based index in the moves given (None when not
    known); ``rule`` the engine's rule identifier when a well-formed move broke
    a rule, else None.
    """

    def __init__(self, message: str, index: int | None = None, rule: str | None = None) -> None:
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
    #: what the slip gave up (``canfield.lesson.Why.to_dict``), once taught
    why: dict[str, str | None] | None = None
    #: once taught: the length of the solver's first line (``continuation`` is
    #: then the short one), and whether no shorter line exists (proven)
    line_first: int | None = None
    shortest: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "why": self.why,
            "line_first": self.line_first,
            "shortest": self.shortest,
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
            raise LineError(
                f"move {index + 1} ({excerpt(str(text))}): {reason}", index, rule
            ) from exc
        stood.append((index, move.text()))
    return game, stood


class LineReview:
    """One line's review, a question at a time (``question``, then ``answer``).

    The positions are numbered by how many stood moves lead to them: 0 is the
    deal, ``len(stood)`` where the player stopped. The first question is the
    start, the second the end, then the middle of what is left between the
    last position known winnable and the first known lost (or the end, while
    that is not known). A position the solver leaves undecided is stepped
    round: the next question is the nearest other one to the middle, so an
    undecided position away from the slip costs one call, not the review;
    after ``MAX_UNDECIDED`` of them, or with nothing left to ask, the review
    ends undecided.
    """

    #: undecided answers a review takes before it gives up (each costs a full timeout)
    MAX_UNDECIDED = 2

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
        #: positions the solver left undecided
        self._undecided: set[int] = set()
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

    def before_slip(self) -> Question | None:
        """The position just before the slip (once done with one), else None."""
        if self._verdict is None or self._verdict.slip is None or self._low is None:
            return None
        return Question(self.code, tuple(text for _, text in self.stood[: self._low]))

    def question(self) -> Question:
        """The next position to decide (only while not ``done``)."""
        if self._verdict is not None:
            raise RuntimeError("the review is done: it has no question left")
        return Question(self.code, tuple(text for _, text in self.stood[: self._asking]))

    def answer(self, result: SolveResult) -> None:
        """The solver's verdict on the last question (asked with take-backs).
        A line that does not win, or an answer that contradicts an earlier
        one, raises ``ValueError`` and changes nothing."""
        question = self.question()
        at = self._asking
        if result.result == WINNABLE:
            if not Game.replay(question.game(), result.moves).is_won:
                raise ValueError("the solver's line does not win from the position asked")
            if self._high is not None and at >= self._high:
                raise ValueError("a win after a position proven lost: the answers contradict")
        elif result.result == NOT_WINNABLE and self._low is not None and at <= self._low:
            raise ValueError("a loss before a position won: the answers contradict")
        self.calls += 1
        self.seconds += result.seconds
        if result.result == WINNABLE:
            self._low, self._low_line = at, list(result.moves)
        elif result.result == NOT_WINNABLE:
            self._high = at
        else:
            self._undecided.add(at)
        if at == 0:
            self._start = {WINNABLE: True, NOT_WINNABLE: False}.get(result.result)
        if self._start is None:  # nothing is known without the start
            self._finish(decided=False)
        elif not self._start or self._low == len(self.stood):
            self._finish(decided=True)  # lost from the start, or still winnable at the end
        elif self._high is not None and self._low is not None and self._high - self._low <= 1:
            self._finish(decided=True)  # the slip: won just before, lost just after
        elif len(self._undecided) > self.MAX_UNDECIDED:
            self._finish(decided=False)
        else:
            following = self._next()
            if following is None:
                self._finish(decided=False)
            else:
                self._asking = following

    def _next(self) -> int | None:
        """The next position to ask: the end first, then the one nearest the
        middle of those left between the known winnable and the known lost."""
        low = self._low or 0
        end = len(self.stood)
        if self._high is None and end not in self._undecided:
            return end
        high = self._high if self._high is not None else end + 1
        left = [at for at in range(low + 1, high) if at not in self._undecided]
        middle = (low + high) / 2
        return min(left, key=lambda at: (abs(at - middle), at), default=None)

    def _finish(self, decided: bool) -> None:
        slip = line = move = None
        if decided and self._low is not None and self._high is not None:
            slip, move = self.stood[self._high - 1]
            line = self._low_line
        at_end: bool | None = None
        if self._high is not None:
            at_end = False  # lost there, so lost at the end too
        elif self._low == len(self.stood):
            at_end = True
        self._verdict = Verdict(
            winnable_at_start=self._start,
            slip=slip,
            continuation=line,
            winnable_at_end=at_end,
            decided=decided,
            solver_calls=self.calls,
            seconds=self.seconds,
            slip_move=move,
            moves=self.given,
        )


def decide(game: Game, timeout_s: float | None, *, takebacks: bool = TAKEBACKS) -> SolveResult:
    """Whether ``game`` can be won, in at most about ``timeout_s`` processor
    seconds in all (None: no limit), take-backs allowed unless ``takebacks``
    is false. A call of ``solve`` without take-backs first: its win is a win
    all the same, and it comes sooner; when it finds none (it may have proven
    only that no line without take-backs wins), ``solve`` with take-backs
    gets the time left, and only its "not winnable" is the answer."""
    first = solve(game, timeout_s)
    if first.result == WINNABLE or not takebacks:
        return first
    left = None if timeout_s is None else timeout_s - first.seconds
    if left is not None and left <= 0:
        return SolveResult(UNKNOWN, [], first.seconds, first.nodes)
    second = solve(game, left, takebacks=True)
    return SolveResult(
        second.result, second.moves, first.seconds + second.seconds, first.nodes + second.nodes
    )


def review_line(
    code: DealCode | str,
    moves: Sequence[str],
    timeout_s: float = 5.0,
    solver: Callable[..., SolveResult] = decide,
) -> Verdict:
    """Review a line in process, each question at most ``timeout_s`` of
    processor time; ``solver`` is called as ``decide`` is (``solve`` fits too)."""
    review = LineReview(code, moves)
    while not review.done:
        review.answer(solver(review.question().game(), timeout_s, takebacks=TAKEBACKS))
    return review.verdict()
