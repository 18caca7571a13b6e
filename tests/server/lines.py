"""Lines of play whose reviews are known, for the review tests (server and web)."""

from __future__ import annotations

__all__ = ["EASY_DEAL", "LOSING_LINE", "LOSING_SLIP"]

#: the solver wins this Draw 3 deal in milliseconds
EASY_DEAL = "CF1-D3-AAADKOH"
#: a line built to lose it: the start of the solver's winning line, then
#: moves that bury what it needs; its 49th action (a stock turn, index 48:
#: in Draw 3 the next pass turns the cards in other threes) loses the win
LOSING_LINE = [
    "4-F", "R-3", "F1-1", "S", "S", "S", "S", "W-2", "W-F", "1-F",
    "S", "S", "S", "W-F", "W-F", "S", "W-3", "1-F", "W-3", "S",
    "S", "W-F", "S", "W-3", "S", "S", "S", "S", "S", "W-F",
    "S", "W-1", "R-F", "S", "S", "S", "S", "W-1", "2:2-1", "S",
    "S", "S", "S", "S", "S", "S", "S", "W-4", "S", "W-4",
]  # fmt: skip
LOSING_SLIP = 48
