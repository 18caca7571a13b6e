"""Is any useful move left? A cheap check for the interface's gentle note.

A move is useful when some line starting with it makes progress: more
cards on the foundations or fewer in the reserve (a win is progress too).
Tapping through the stock forever or moving cards back and forth makes
none. The check is the solver's own bounded search with that goal, so it
is exact when it finishes; when the node limit comes first it answers
"useful" - the game never declares a loss, and a wrong "nothing left"
would be worse than a missing note.
"""

from __future__ import annotations

from .game import Game
from .solver import search

__all__ = ["has_useful_move", "DEFAULT_NODE_LIMIT"]

#: enough for nearly every position; past it the answer is "useful"
DEFAULT_NODE_LIMIT = 400


def has_useful_move(game: Game, node_limit: int = DEFAULT_NODE_LIMIT) -> bool:
    """True unless the search proves no line makes progress. Never changes ``game``."""
    if game.is_won:
        return False
    reserve = len(game.reserve)
    placed = game.on_foundations

    def progress(position: Game) -> bool:
        return position.on_foundations > placed or len(position.reserve) < reserve

    outcome = search(game, progress, takebacks=True, node_limit=node_limit)
    return not outcome.exhausted
