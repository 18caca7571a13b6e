"""``canfield-race analyse`` as a user runs it: the real console script.

What it says is checked against the engine (the continuation replays to
a win from the position before the slip) and the solver (the position
after the slip is proven lost, take-backs searched).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from canfield import Game
from canfield.solver import NOT_WINNABLE, solve

SCRIPT = Path(sys.executable).with_name("canfield-race")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "canfield_cli"]

# a deal won in milliseconds, and a line on it whose R-2 buries the 3C the
# clubs need first under the 2D, the last diamond (tests/shared/test_review.py)
DEAL = "CF1-D3-AAAASGV"
LOSING = "4-F S 2-4 S S S S S W-F S S W-2 F2-2 R-2 S".split()


def analyse(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMAND, "analyse", *args], input=stdin, capture_output=True, text=True, timeout=300
    )


def assert_slip_holds(moves: list[str], slip: int, continuation: list[str]) -> None:
    before = Game.replay(DEAL, moves[:slip])
    assert Game.replay(before, continuation).is_won
    after = Game.replay(DEAL, moves[: slip + 1])
    assert solve(after, 20.0, takebacks=True).result == NOT_WINNABLE


def test_json_names_the_slip_and_a_continuation_that_wins() -> None:
    moves = ["S", "U", *LOSING]
    done = analyse(DEAL, *moves, "--json", "--timeout", "5")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["code"] == DEAL
    assert data["winnable_at_start"] is True and data["winnable_at_end"] is False
    assert data["decided"] is True and data["won"] is False
    assert moves[data["slip"]] == data["slip_move"] == "R-2"
    assert data["slip"] == len(moves) - 1 - moves[::-1].index("R-2")
    assert_slip_holds(moves, data["slip"], data["continuation"])
    assert data["solver_calls"] >= 3 and data["seconds"] >= 0


def test_teach_makes_the_line_short_and_says_what_the_slip_covered() -> None:
    # 0.2 s of searching for a shorter line, not 1: the lesson spends all it is given,
    # and what is checked here (no longer than the solver's first line, what the slip
    # covered) is the same after 0.1 s as after 1 s (tests/shared/test_lesson.py
    # searches longer)
    done = analyse(DEAL, *LOSING, "--json", "--timeout", "5", "--teach", "0.2")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["why"] == {
        "kind": "covered", "card": "3C", "moved": "2D", "need": None, "to": "foundation"
    }  # fmt: skip
    assert len(data["continuation"]) <= data["line_first"]
    assert data["shortest"] in (True, False)
    assert_slip_holds(LOSING, data["slip"], data["continuation"])
    words = analyse(DEAL, *LOSING, "--teach", "0.2")
    assert words.returncode == 0, words.stderr
    assert "lost the win (covered: card 3C, moved 2D, to foundation);" in words.stdout
    assert f"the solver's first line {data['line_first']}" in words.stdout
    bad = analyse(DEAL, *LOSING, "--teach", "0")
    assert bad.returncode == 2 and "--teach must be a positive number" in bad.stderr


def test_plain_words_for_a_slip_read_from_standard_input() -> None:
    done = analyse(DEAL, stdin=" ".join(LOSING[:7]) + "\n" + ", ".join(LOSING[7:]) + "\n")
    assert done.returncode == 0, done.stderr
    first, line = done.stdout.splitlines()
    number = LOSING.index("R-2") + 1
    assert first.startswith(f"The deal could be won. Your move {number} (R-2) lost the win;")
    assert_slip_holds(LOSING, number - 1, line.split())
    assert "solver call" in done.stderr


def test_plain_words_for_a_win_a_line_still_open_a_lost_deal_and_no_time() -> None:
    won = solve(DEAL, 10.0).moves
    assert analyse(DEAL, *won, "G").stdout.strip() == "You won."
    still = analyse(DEAL, *LOSING[:5])
    assert still.stdout.strip() == "The deal could be won. Still winnable when you stopped."
    assert analyse(DEAL, stdin="").stdout.strip() == "The deal could be won."
    lost = analyse("CF1-D3-FEQBCNB", "S")
    assert lost.stdout.startswith("The deal could not be won from the start")
    late = analyse("CF1-D3-SZRRFEE", "S", "--timeout", "0.01", "--json")
    data = json.loads(late.stdout)
    assert data["decided"] is False and data["winnable_at_start"] is None
    assert data["slip"] is None and data["continuation"] is None
    words = analyse("CF1-D3-SZRRFEE", "S", "--timeout", "0.01").stdout
    assert words.startswith("Not decided in the time allowed")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((DEAL, "S", "S", "W-2"), "move 3 ('W-2')"),
        ((DEAL, "U"), "move 1 ('U')"),
        ((DEAL, "S", "G", "S"), "move 2 is a give-up"),
        (("CF1-D4-AAAAAAA", "S"), "draw mode"),
        ((DEAL, "S", "--timeout", "0"), "--timeout"),
        (("--timeout", "1"), "give a deal code"),
    ],
)
def test_bad_input_is_a_clear_error(args: tuple[str, ...], says: str) -> None:
    done = analyse(*args)
    assert done.returncode == 2
    assert says in done.stderr and done.stdout == ""


def test_help_says_the_timeout_is_per_solver_call() -> None:
    done = analyse("--help")
    assert done.returncode == 0
    assert "each solver call" in " ".join(done.stdout.split())


def test_bench_prints_its_figures() -> None:
    done = analyse("--bench", "2", "--timeout", "0.3", "--compare", "--json")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["lines"] == 2 and 0 <= figures["decided"] <= 2
    assert sum(figures["outcomes"].values()) == 2
    for key in ("median_s", "p95_s", "calls_median", "calls_p95"):
        assert figures[key] >= 0, key
    assert len(figures["compared"]) == 2
    text = analyse("--bench", "1", "--timeout", "0.3")
    assert text.returncode == 0 and "decided:" in text.stdout
