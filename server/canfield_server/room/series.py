"""Best-of-N series, sans I/O: a race's first place scores, and the series ends
as soon as nobody can catch the leader."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from canfield_protocol import RoomState, Row, Series, SeriesScore

__all__ = ["score_series"]


def score_series(state: RoomState, standings: Sequence[Row]) -> RoomState:
    """Count a race in the room's best-of-N series: its first place wins it (each
    racer of a tie for first). The
    series is decided as soon as nobody can catch the leader (or after its last
    race, where a tie goes to whoever placed better in that race)."""
    best_of = state.settings.best_of
    if best_of <= 1:
        return state
    series = state.series
    if series is None or series.winner_id is not None or series.best_of != best_of:
        series = Series(best_of=best_of)  # a new series
    scores = {s.id: msgspec.structs.replace(s) for s in series.scores}
    for row in standings:
        scores.setdefault(row.id, SeriesScore(id=row.id, name=row.name))
    for row in standings:  # first place, shared by a tie
        if row.rank == standings[0].rank:
            scores[row.id].wins += 1
    races = series.races + 1
    place = {row.id: n for n, row in enumerate(standings)}
    order = sorted(scores.values(), key=lambda s: (-s.wins, place.get(s.id, len(place))))
    leader, runner_up = order[0], order[1].wins if len(order) > 1 else 0
    left = best_of - races
    decided = leader.wins > runner_up + left or left == 0
    return msgspec.structs.replace(
        state,
        series=Series(
            best_of=best_of,
            races=races,
            scores=order,
            winner_id=leader.id if decided else None,
        ),
    )
