"""The leaderboard's pace: the set rate while the loop keeps time, fewer while it runs late."""

from __future__ import annotations

import pytest
from canfield_server.room.leaderboard import MAX_STRETCH, SLOT_S, TIMER_SLACK_S, Pace


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


def test_a_timer_late_by_its_own_resolution_stretches_nothing() -> None:
    pace = Pace(0.1)
    for _ in range(50):
        pace.late(TIMER_SLACK_S)  # the loop's timers fire to the millisecond
    assert pace.interval == pytest.approx(0.1)


def test_rooms_due_together_are_spread_never_earlier_than_due() -> None:
    """Twenty rooms whose races started together: their leaderboards go one to
    a slot, the first on time, none before it is due."""
    pace = Pace(0.1)
    due = 10.0
    placed = [pace.place(due) for _ in range(20)]
    slots = [slot for slot, _ in placed]
    assert len(set(slots)) == 20
    assert placed[0][1] == due
    assert all(due <= at < due + 21 * SLOT_S for _, at in placed)
    # a slot freed (its leaderboard went) is taken again
    pace.free(slots[0])
    assert pace.place(due) == placed[0]


def test_more_rooms_than_slots_share_them_and_stay_within_an_interval() -> None:
    pace = Pace(0.1)
    due = 10.0
    rooms = 1000  # 50 slots in an interval: about 20 to a slot
    ats = [pace.place(due)[1] for _ in range(rooms)]
    assert min(ats) == due
    assert max(ats) < due + 0.1 + SLOT_S


def test_no_coalescing_places_nothing_apart() -> None:
    pace = Pace(0.0)
    assert [pace.place(5.0)[1] for _ in range(3)] == [5.0] * 3
