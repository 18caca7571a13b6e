"""``canfield-race solve`` as a user runs it: a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from canfield import Game, Move

CLI = [sys.executable, "-m", "canfield_cli", "solve"]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120)


def test_json_shape_and_the_line_replays_to_a_win() -> None:
    done = run_cli("CF1-D3-AAADKOH", "--json", "--timeout", "5")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {"result", "moves", "seconds", "nodes"} <= set(data)
    assert data["result"] == "winnable"
    assert isinstance(data["seconds"], float) and data["nodes"] > 0
    game = Game.deal("CF1-D3-AAADKOH")
    for text in data["moves"]:
        game.push(Move.parse(text))
    assert game.is_won


def test_unknown_when_out_of_time_has_no_moves() -> None:
    done = run_cli("CF1-D3-AAACNDD", "--json", "--timeout", "0.05")
    data = json.loads(done.stdout)
    assert data["result"] == "unknown"
    assert data["moves"] == []


def test_plain_output_names_the_verdict_then_the_moves() -> None:
    done = run_cli("cf1-d1-aaadkoh", "--timeout", "5")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "winnable"
    game = Game.deal("CF1-D1-AAADKOH")
    for text in lines[1].split():
        game.push(Move.parse(text))
    assert game.is_won


def test_bad_code_is_a_clear_error() -> None:
    done = run_cli("CF1-D4-AAAAAAA")
    assert done.returncode == 2
    assert "draw mode" in done.stderr
    assert done.stdout == ""


def test_study_figures_and_the_summary_of_its_lines(tmp_path: Path) -> None:
    out = tmp_path / "study.jsonl"
    args = ("--study", "4", "--draw", "1", "--timeout", "0.2", "--out", str(out))
    done = run_cli(*args, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["deals"] == 4
    assert data["winnable"] + data["not_winnable"] + data["unknown"] == 4
    assert data["median_s"] <= data["p90_s"]
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 4 and all(line["code"].startswith("CF1-D1-") for line in lines)
    summary = run_cli("--summary", str(out))
    assert summary.returncode == 0, summary.stderr
    row = summary.stdout.splitlines()[-1]
    assert row.startswith("| Draw 1 | 4 | ")
    assert f"{data['winnable_pct']:.1f}%" in row


def test_bench_useful_prints_its_figures() -> None:
    done = run_cli("--bench-useful", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("has_useful_move on ")
    assert "median" in done.stdout and "max" in done.stdout
