"""A heuristic Canfield player that sees only what a person sees.

The bot looks at the player view: the reserve top, the waste fan, the
columns and foundations, and it remembers every stock card it has seen
turn up (the stock and waste keep one fixed order, so after one pass it
knows them all, as an attentive person would). Its lookahead never
reasons past a card it has not seen: a move that turns one up (the next
reserve card, a column refill, an unseen waste card) ends that line of
search and is scored by what is known. That keeps it honest, and it lets
a networked bot play from a board rebuilt out of the server's view
(``board.game_from_view``): ``choose`` first puts the remembered cards in
their places.

Order of preference: a foundation play; else the line with the best
score found within the lookahead depth (drawing on to a remembered card
counts as one step), if it improves on standing still; else a draw.
Every move must reach a position the bot has not been in
(``Game.position_key``), so a full stock pass that changes nothing ends
the game with ``None`` instead of cycling for ever.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from canfield import DRAW, Game, Move
from canfield.cards import BUILDS_ON, Card
from canfield.moves import FOUNDATION, STOCK, TABLEAU, WASTE
from canfield.textinput import excerpt

__all__ = ["Strategy", "Level", "LEVELS", "evaluate", "play_out"]


@dataclass(frozen=True, slots=True)
class Level:
    """How hard the bot plays: search depth, chance of a random move, and
    how many moves it tries without a new card up before it stops."""

    depth: int
    noise: float
    patience: int


LEVELS: dict[str, Level] = {
    "easy": Level(depth=1, noise=0.3, patience=0),
    "normal": Level(depth=2, noise=0.0, patience=10),
    "strong": Level(depth=2, noise=0.0, patience=80),
}

#: score weights (a foundation card is worth most; the reserve is the main obstacle)
_FOUNDATION = 100
_RESERVE = 15
_STOCK = 1
_EMPTY_COLUMN = 20
_BURIED = 8
_BREAK = 2
_REVEAL = 3


def evaluate(game: Game) -> float:
    """Score a position from visible facts only (no hidden card's identity)."""
    value = _FOUNDATION * game.on_foundations - _RESERVE * len(game.reserve)
    value -= _STOCK * (len(game.stock) + len(game.waste))
    accepts = game.foundation_accepts
    for col in game.tableau:
        if not col:
            if not game.reserve:
                value += _EMPTY_COLUMN
            continue
        height = len(col)
        for index in range(height - 1):
            if accepts(col[index]) >= 0:
                value -= _BURIED + (height - 1 - index)
            if not BUILDS_ON[col[index + 1] * 52 + col[index]]:
                value -= _BREAK
    return value


def _pointless(game: Game, move: Move) -> bool:
    """A whole column onto an empty one changes nothing."""
    return (
        move.src == TABLEAU
        and move.dst == TABLEAU
        and not game.tableau[move.dst_index]
        and move.count == len(game.tableau[move.src_index])
    )


class Strategy:
    """Chooses one move at a time; remembers where it has been."""

    def __init__(self, strength: str = "normal", rng: random.Random | None = None) -> None:
        if strength not in LEVELS:
            raise ValueError(
                f"strength must be one of {', '.join(LEVELS)}, not {excerpt(str(strength))}"
            )
        self.level = LEVELS[strength]
        self.rng = rng or random.Random()
        self.seen: set[tuple] = set()
        self._best_up = 0
        self._tries = 0
        #: the stock and waste as one fixed sequence (waste bottom first, then
        #: the stock in drawing order): each card seen, or None
        self.talon: list[Card | None] = []
        self.known: set[Card] = set()
        self._waste_played: int | None = None

    def reset(self) -> None:
        self.seen.clear()
        self._best_up = 0
        self._tries = 0
        self.talon = []
        self.known = set()
        self._waste_played = None

    # ------------------------------------------------------------ memory

    def _observe(self, game: Game) -> None:
        """Remember the waste fan's cards at their places in the sequence."""
        size = len(game.waste) + len(game.stock)
        if self._waste_played is not None and len(self.talon) == size + 1:
            del self.talon[self._waste_played]
        self._waste_played = None
        if len(self.talon) != size:
            self.talon = [None] * size
        waste = game.waste
        shown = max(game.fan, 1) if waste else 0
        for index in range(len(waste) - shown, len(waste)):
            if self.talon[index] not in (None, waste[index]):
                self.talon = [None] * size  # not the game we remember: start over
            self.talon[index] = waste[index]
        self.known = {card for card in self.talon if card is not None}

    def _recall(self, game: Game) -> None:
        """Put each remembered card in its place (a rebuilt board holds stand-ins)."""
        split = len(game.waste)
        talon = game.waste + game.stock[::-1]
        if all(card is None or card == talon[i] for i, card in enumerate(self.talon)):
            return
        reserve = game.reserve
        where: dict[Card, tuple[list[Card], int]] = {c: (talon, i) for i, c in enumerate(talon)}
        where.update({c: (reserve, i) for i, c in enumerate(reserve[:-1])})
        for index, card in enumerate(self.talon):
            if card is None or talon[index] == card:
                continue
            if card not in where:
                self.talon = [None] * len(talon)
                self.known = set()
                return
            pile, at = where[card]
            other = talon[index]
            pile[at] = other
            where[other] = (pile, at)
            talon[index] = card
            where[card] = (talon, index)
        game.waste = talon[:split]
        game.stock = talon[split:][::-1]

    def choose(self, game: Game) -> Move | None:
        """The next move for ``game`` (left unchanged), or None when stuck."""
        if game.is_won:
            return None
        self._observe(game)
        self._recall(game)
        move = self._choose(game)
        if move is not None and move.src == WASTE:
            self._waste_played = len(game.waste) - 1
        return move

    def _choose(self, game: Game) -> Move | None:
        seen = self.seen
        seen.add(game.position_key())
        candidates = [m for m in game.legal_moves() if m.src != STOCK and not _pointless(game, m)]
        fresh = [m for m in candidates if self._leads_somewhere_new(game, m)]
        for move in fresh:
            if move.dst == FOUNDATION and move.src != FOUNDATION:
                return move
        if fresh and self.level.noise and self.rng.random() < self.level.noise:
            return self.rng.choice(fresh)
        best, best_value = None, evaluate(game)
        can_draw = bool(game.stock or game.waste) and self._leads_somewhere_new(game, DRAW)
        for move in fresh + [DRAW] if can_draw else fresh:
            value = self._line_value(game, move, self.level.depth, {game.position_key()})
            if value > best_value:
                best, best_value = move, value
        if best is not None:
            return best
        if can_draw:
            return DRAW
        return self._try_something(game, fresh)

    def _try_something(self, game: Game, fresh: list[Move]) -> Move | None:
        """Stuck: the best new line even if it scores lower (say a card taken
        back from a foundation to free the reserve), within the patience."""
        if game.on_foundations > self._best_up:
            self._best_up, self._tries = game.on_foundations, 0
        if not fresh or self._tries >= self.level.patience:
            return None
        self._tries += 1
        key = game.position_key()
        return max(fresh, key=lambda m: self._line_value(game, m, self.level.depth, {key}))

    def _leads_somewhere_new(self, game: Game, move: Move) -> bool:
        game.push(move)
        key = game.position_key()
        game.pop()
        return key not in self.seen

    def _line_value(self, game: Game, move: Move, depth: int, path: set[tuple]) -> float:
        """Best score reachable by ``move`` and up to ``depth - 1`` more known moves.

        A draw stands for drawing on until a remembered card that can be
        played lies on the waste (or an unseen one turns up)."""
        reserve, waste = len(game.reserve), len(game.waste)
        pushed = 0
        try:
            if move.src == STOCK:
                start = game.position_key()
                limit = (len(game.stock) + len(game.waste)) // game.draw + 3
                while True:
                    game.push(DRAW)
                    pushed += 1
                    key = game.position_key()
                    if key in self.seen or key in path or key == start or pushed > limit:
                        return float("-inf")
                    if game.waste and game.waste[-1] not in self.known:
                        return evaluate(game) + _REVEAL
                    if game.waste and any(m.src == WASTE for m in game.legal_moves()):
                        break
            else:
                game.push(move)
                pushed = 1
                key = game.position_key()
                if key in self.seen or key in path:
                    return float("-inf")
            value = evaluate(game)
            revealed = len(game.reserve) != reserve or (
                len(game.waste) != waste and game.waste and game.waste[-1] not in self.known
            )
            if revealed:
                return value + _REVEAL  # a card not yet seen turns up: stop here
            if depth <= 1 or game.is_won:
                return value
            path.add(key)
            for nxt in game.legal_moves():
                if nxt.src == STOCK or _pointless(game, nxt):
                    continue
                value = max(value, self._line_value(game, nxt, depth - 1, path))
            path.discard(key)
            return value
        finally:
            for _ in range(pushed):
                game.pop()


def play_out(game: Game, strategy: Strategy, max_moves: int = 5000) -> int:
    """Play ``game`` to a win or a stop; returns the number of moves made."""
    moves = 0
    while moves < max_moves:
        move = strategy.choose(game)
        if move is None:
            break
        game.push(move)
        moves += 1
    return moves
