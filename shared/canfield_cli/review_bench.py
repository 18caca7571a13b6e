"""``canfield-race analyse --bench N``: how a line's review fares on random play.

N random Draw 3 deals that ``solve`` wins (seeded), one line on each: random
legal moves (take-backs and stock turns included) for a random length of 1
to ``LONGEST`` moves, or until none is legal or the deal is won. Each line
is reviewed as ``analyse`` reviews it; the figures are the share decided
and, per line, the processor time (the review's replays included) and
solver calls. ``compare`` reviews each line twice more: with ``solve``
searching take-backs from the start (honest, slower to find wins), and
with ``solve`` leaving them out (not honest: to show where it would be
wrong); docs/solver.md, "Reviewing a line". ``teach_s`` teaches each slip
found (``canfield.lesson``): the winning line's length before and after.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from canfield import DealCode, Game
from canfield.dealcode import SEED_SPACE
from canfield.lesson import taught
from canfield.review import Verdict, decide, review_line
from canfield.solver import WINNABLE, SolveResult, solve

from canfield_cli.stats import percentile, wilson

__all__ = ["LONGEST", "winnable_code", "random_line", "measure", "format_figures"]

#: the longest random line
LONGEST = 150
#: processor seconds ``solve`` gets to win a random deal before another is drawn
FIND_TIMEOUT = 2.0


def winnable_code(rng: random.Random) -> str:
    """A random Draw 3 deal code that ``solve`` wins (its line replays to a win)."""
    while True:
        code = str(DealCode.from_seed(rng.randrange(SEED_SPACE), 3))
        if solve(code, FIND_TIMEOUT).result == WINNABLE:
            return code


def random_line(code: str, rng: random.Random) -> list[str]:
    """Random legal moves from the deal, for 1 to ``LONGEST`` moves."""
    game = Game.deal(code)
    line: list[str] = []
    for _ in range(rng.randint(1, LONGEST)):
        moves = list(game.legal_moves())
        if not moves or game.is_won:
            break
        move = rng.choice(moves)
        game.push(move)
        line.append(move.text())
    return line


def _without_takebacks(game: Game, timeout_s: float, takebacks: bool = True) -> SolveResult:
    """The solver with take-backs left out whatever is asked: for comparison only."""
    return solve(game, timeout_s, takebacks=False)


#: the solvers ``compare`` reviews each line with, the review's own first
SOLVERS: dict[str, Callable[..., SolveResult]] = {
    "review (decide: a win without take-backs first, then the search with them)": decide,
    "solve with take-backs (honest)": solve,
    "solve without take-backs (comparison only: not a proof)": _without_takebacks,
}


def _outcome(verdict: Verdict) -> str:
    if not verdict.decided:
        if verdict.winnable_at_start is None:
            return "undecided at the start"
        if verdict.winnable_at_end is None:
            return "undecided at the end"
        return "undecided in between"
    if verdict.won:
        return "won"
    if not verdict.winnable_at_start:
        return "lost at the start"
    return "slip found" if verdict.slip is not None else "still winnable"


def _figures(reviews: list[tuple[Verdict, float]]) -> dict[str, Any]:
    count = len(reviews)
    decided = sum(verdict.decided for verdict, _ in reviews)
    low, high = wilson(decided, count)
    times = [seconds for _, seconds in reviews]
    calls = [float(verdict.solver_calls) for verdict, _ in reviews]
    outcomes: dict[str, int] = {}
    for verdict, _ in reviews:
        outcomes[_outcome(verdict)] = outcomes.get(_outcome(verdict), 0) + 1
    return {
        "lines": count,
        "decided": decided,
        "decided_pct": round(100.0 * decided / count, 1),
        "decided_ci95": [round(100 * low, 1), round(100 * high, 1)],
        "outcomes": dict(sorted(outcomes.items())),
        "median_s": round(percentile(times, 50) or 0.0, 3),
        "p95_s": round(percentile(times, 95) or 0.0, 3),
        "max_s": round(max(times), 3),
        "calls_median": percentile(calls, 50),
        "calls_p95": percentile(calls, 95),
        "calls_max": max(calls),
    }


def _review(
    code: str, line: list[str], timeout: float, solver: Callable[..., SolveResult]
) -> tuple[Verdict, float]:
    start = time.process_time()
    verdict = review_line(code, line, timeout, solver=solver)
    return verdict, time.process_time() - start


def _lessons(lessons: list[Verdict]) -> dict[str, Any]:
    """The taught slips' lines, before and after, and the lessons' processor time."""
    first = [float(v.line_first or 0) for v in lessons]
    short = [float(len(v.continuation or [])) for v in lessons]
    seconds = [v.seconds for v in lessons]
    return {
        "slips": len(lessons),
        "line_first_median": percentile(first, 50),
        "line_median": percentile(short, 50),
        "shortest": sum(bool(v.shortest) for v in lessons),
        "lesson_s_median": round(percentile(seconds, 50) or 0.0, 3),
        "lines": [[v.line_first, len(v.continuation or []), v.shortest] for v in lessons],
        "why": [v.why["kind"] if v.why else None for v in lessons],
    }


def measure(
    count: int, seed: int, timeout: float, compare: bool = False, teach_s: float | None = None
) -> dict[str, Any]:
    """Review ``count`` random lines (each question at most ``timeout``
    processor seconds); the figures, and with ``compare`` those of the other
    solvers of ``SOLVERS`` on the same lines, with the lines where a decided
    review of theirs claims other than a decided review of ours. With
    ``teach_s``, each slip the review finds is taught in at most that long
    (``canfield.lesson``): its line's length before and after, and the time."""
    rng = random.Random(seed)
    started = time.perf_counter()
    solvers = list(SOLVERS.items()) if compare else list(SOLVERS.items())[:1]
    reviews: list[list[tuple[Verdict, float]]] = [[] for _ in solvers]
    differ: list[list[dict[str, Any]]] = [[] for _ in solvers]
    moves: list[float] = []
    lessons: list[Verdict] = []
    for done in range(1, count + 1):
        code = winnable_code(rng)
        line = random_line(code, rng)
        moves.append(float(len(line)))
        for index, (_, solver) in enumerate(solvers):
            reviews[index].append(_review(code, line, timeout, solver))
            if index == 0 and teach_s is not None and reviews[0][-1][0].slip is not None:
                # the lesson's own processor time only (the review's is its own)
                verdict = replace(reviews[0][-1][0], seconds=0.0)
                lessons.append(taught(code, line, verdict, teach_s))
            ours, theirs = reviews[0][-1][0], reviews[index][-1][0]
            if ours.decided and theirs.decided and _claim(ours) != _claim(theirs):
                differ[index].append(
                    {"code": code, "moves": line, "review": _claim(ours), "this": _claim(theirs)}
                )
        if done % 20 == 0 or done == count:
            print(f"{done}/{count} lines", file=sys.stderr, flush=True)
    figures: dict[str, Any] = {
        "seed": seed,
        "timeout_s": timeout,
        "moves_median": percentile(moves, 50),
        **_figures(reviews[0]),
    }
    if teach_s is not None:
        figures["taught"] = {"teach_s": teach_s, **_lessons(lessons)}
    if compare:
        figures["compared"] = {
            name: {**_figures(reviews[index]), "differ": differ[index]}
            for index, (name, _) in enumerate(solvers)
            if index
        }
    figures["wall_s"] = round(time.perf_counter() - started, 1)
    return figures


def _claim(verdict: Verdict) -> dict[str, Any]:
    """What a decided review claims (its costs left out)."""
    return {
        "winnable_at_start": verdict.winnable_at_start,
        "slip": verdict.slip,
        "winnable_at_end": verdict.winnable_at_end,
    }


def format_figures(figures: dict[str, Any]) -> str:
    """The figures as lines for docs/solver.md."""
    lines = [_format_one(next(iter(SOLVERS)), figures)]
    for name, other in figures.get("compared", {}).items():
        lines.append(_format_one(name, other))
        lines.append(
            f"  lines both decided where it claims other than the review: {len(other['differ'])}"
            + "".join(f"\n    {case}" for case in other["differ"])
        )
    if "taught" in figures:
        lesson = figures["taught"]
        lines.append(
            f"taught slips: {lesson['slips']} at {lesson['teach_s']:g} s each; line length "
            f"median {lesson['line_first_median']:g} before, {lesson['line_median']:g} after "
            f"({lesson['shortest']} proven shortest); lesson processor s median "
            f"{lesson['lesson_s_median']:.3f}\n  before -> after: "
            + ", ".join(f"{a} -> {b}" for a, b, _ in lesson["lines"])
        )
    lines.append(
        f"({figures['lines']} lines on random winnable Draw 3 deals, seed {figures['seed']}, "
        f"median {figures['moves_median']:g} moves, timeout {figures['timeout_s']:g} s per "
        f"solver call, wall {figures['wall_s']:g} s)"
    )
    return "\n".join(lines)


def _format_one(title: str, figures: dict[str, Any]) -> str:
    low, high = figures["decided_ci95"]
    outcomes = ", ".join(f"{name} {n}" for name, n in figures["outcomes"].items())
    return (
        f"{title}:\n"
        f"  decided: {figures['decided']}/{figures['lines']} = {figures['decided_pct']:.1f}% "
        f"(95% CI {low:.1f}-{high:.1f})\n"
        f"  outcomes: {outcomes}\n"
        f"  processor s per line: median {figures['median_s']:.3f}, p95 {figures['p95_s']:.3f}, "
        f"max {figures['max_s']:.3f}\n"
        f"  solver calls per line: median {figures['calls_median']:g}, "
        f"p95 {figures['calls_p95']:g}, max {figures['calls_max']:g}"
    )
