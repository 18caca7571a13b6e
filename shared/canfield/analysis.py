"""Is any useful move left? A cheap check for the interface's gentle note.

A move is useful when some line starting with it makes progress: more
cards on the foundations or fewer in the reserve (a win is progress too).
Tapping through the stock forever or moving cards back and forth makes
none, and neither does playing home again a card taken back off a
foundation: given the most cards the player ever had home (``best``),
progress is going past it. The check is the solver's own bounded search with that goal, so it
is exact when it finishes; when the node limit comes first it answers
"useful" - the game never declares a loss, and a wrong "nothing left"
would be worse than a missing note.

Two versions:

* ``has_useful_move_seen`` answers from what the player has seen, and is
  the one to show a player: a stock card never turned could change the
  answer, so while one is left it says "useful" (keep drawing); the
  reserve's cards under its top never count. Two games that differ only
  in cards the player has not seen always get the same answer.
* ``has_useful_move`` sees every card, the stock's order included: for
  analysis and tools, never for a player's board, where its answer would
  tell something about the face-down cards.
"""

from __future__ import annotations

from .game import Game
from .solver import search

__all__ = ["has_useful_move", "has_useful_move_seen", "known_position", "DEFAULT_NODE_LIMIT"]

#: enough for nearly every position; past it the answer is "useful"
DEFAULT_NODE_LIMIT = 400


def has_useful_move(game: Game, node_limit: int = DEFAULT_NODE_LIMIT, best: int = 0) -> bool:
    """True unless the search proves no line makes progress. Never changes ``game``.

    ``best``: the most cards this player has had home; a line that only gets
    back there (cards taken back, played home again) is no progress.
    It sees every card: not for a player's board (``has_useful_move_seen``).
    """
    if game.is_won:
        return False
    reserve = len(game.reserve)
    placed = max(game.on_foundations, best)

    def progress(position: Game) -> bool:
        return position.on_foundations > placed or len(position.reserve) < reserve

    outcome = search(game, progress, takebacks=True, node_limit=node_limit)
    return not outcome.exhausted


def has_useful_move_seen(game: Game, node_limit: int = DEFAULT_NODE_LIMIT, best: int = 0) -> bool:
    """``has_useful_move`` from the player's knowledge only. Never changes ``game``.

    While the talon holds a card the player has never seen
    (``game.unseen_stock``), turning it may show something playable, so
    the answer is True. Otherwise the talon's order is known and the
    search runs on ``known_position(game)``, which drops the reserve's
    cards under its top: a line reaches them only by shrinking the
    reserve, which is progress already.
    """
    if game.is_won:
        return False
    if game.unseen_stock:
        return True
    return has_useful_move(known_position(game), node_limit, best)


def known_position(game: Game) -> Game:
    """A copy of ``game`` holding only cards the player knows (no history).

    The reserve keeps just its top card. Only meaningful when every talon
    card has been seen (``game.unseen_stock == 0``); the stock is kept as
    it is.
    """
    known = game.copy()
    known.history.clear()
    known.reserve = game.reserve[-1:]
    return known
