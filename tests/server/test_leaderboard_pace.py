"""The leaderboard's pace: the set rate while the loop keeps time, fewer while it runs late."""

from __future__ import annotations

import pytest
from canfield_server.room.leaderboard import MAX_STRETCH, Pace


def test_a_loop_on_time_keeps_the_set_interval() -> None:
    pace = Pace(0.1)
    for _ in range(50):
        pace.late(0.0)
    assert pace.interval == pytest.approx(0.1)


def test_a_late_loop_stretches_the_interval_up_to_a_bound_and_recovers() -> None:
    pace = Pace(0.1)
    pace.late(0.02)
    stretched = pace.interval
    assert 0.1 < stretched < 0.1 * MAX_STRETCH
    for _ in range(50):
        pace.late(5.0)  # a stalled loop
    assert pace.interval == pytest.approx(0.1 * MAX_STRETCH)
    for _ in range(100):
        pace.late(0.0)
    assert pace.interval == pytest.approx(0.1, abs=1e-3)


def test_no_coalescing_stays_immediate() -> None:
    pace = Pace(0.0)
    pace.late(1.0)
    assert pace.interval == 0.0
