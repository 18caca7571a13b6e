"""A game of Canfield: the position, legal moves, apply (push) and undo (pop).

``Game`` is mutable and cheap to copy. ``push`` checks a move against the
rule book (docs/rules.md) and either applies it whole or raises
``IllegalMoveError`` naming the rule, leaving the game untouched. ``pop``
undoes the last action exactly, including the reserve refill that came
with it and its points. A replay is a deal code plus move texts, where
``U`` stands for an undo (``Game.replay``; see docs/moves.md).

The game also keeps what the player has seen of the stock
(``talon_seen``), so a hint can use the player's knowledge only
(``canfield.analysis.has_useful_move_seen``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from .cards import BUILDS_ON, RANKS, SUITS, Card, card_text, parse_card
from .dealcode import DealCode
from .errors import (
    CanfieldError,
    IllegalMoveError,
    InvalidCardError,
    InvalidMoveError,
    NothingToUndoError,
)
from .moves import (
    COLUMN_UP,
    DRAW,
    FOUNDATION,
    ONTO_COLUMN,
    RESERVE,
    RUN,
    STOCK,
    TABLEAU,
    TAKE_BACK,
    TO_FOUNDATION,
    UNDO,
    WASTE,
    Move,
)
from .textinput import BLANK, ascii_upper, strip_spaces

__all__ = ["Game", "UndoRecord", "UNDO_LIMIT", "POINTS_PER_CARD", "WIN_SCORE"]

UNDO_LIMIT = 100
POINTS_PER_CARD = 5
WIN_SCORE = 51 * POINTS_PER_CARD


class UndoRecord(NamedTuple):
    """One entry of ``Game.history``: what ``pop`` must restore after an action."""

    #: the action itself
    move: Move
    #: the foundation the card went to (a play up), else -1
    slot: int
    #: the moved card's entry in ``suit_slot`` before the action (a play up
    #: may claim a slot, a take-back may free one)
    suit_slot: int
    #: the emptied source column took the top reserve card
    refilled: bool
    #: score gained by the action
    points: int
    #: ``fan`` before the action
    fan: int
    #: stock tap: cards turned (> 0), or -n for a recycle of n; several
    #: taps at once (``turn_stock``): the waste size before
    drawn: int


#: ``_new(UndoRecord, (move, slot, ...))`` makes the same record as
#: ``UndoRecord(move, slot, ...)`` without the Python-level ``__new__`` of a
#: NamedTuple: ``push`` makes one per action, and that call alone made
#: apply + undo about a tenth slower
_new = tuple.__new__


class Game:
    """One player's board. Build it with ``Game.deal(code)``."""

    __slots__ = (
        "draw",
        "base_rank",
        "base_suit",
        "reserve",
        "tableau",
        "foundations",
        "suit_slot",
        "stock",
        "waste",
        "fan",
        "score",
        "on_foundations",
        "history",
        "talon_seen",
    )

    def __init__(self, draw: int = 3, base_rank: int = 0, base_suit: int = -1) -> None:
        if draw not in (1, 3):
            raise CanfieldError(f"draw mode must be 1 or 3, not {draw!r}")
        self.draw = draw
        self.base_rank = base_rank
        #: the base card's suit, which owns foundation 1 (-1: not known,
        #: only in a hand-built position without a base card)
        self.base_suit = base_suit
        self.reserve: list[Card] = []
        self.tableau: list[list[Card]] = [[], [], [], []]
        self.foundations: list[list[Card]] = [[], [], [], []]
        #: suit -> foundation slot holding it, or -1
        self.suit_slot: list[int] = [-1, -1, -1, -1]
        #: face down; the last item is turned next
        self.stock: list[Card] = []
        #: face up; the last item is the playable top
        self.waste: list[Card] = []
        #: how many of the last draw's cards still lie fanned on the waste
        self.fan = 0
        self.score = 0
        self.on_foundations = 0
        self.history: deque[UndoRecord] = deque(maxlen=UNDO_LIMIT)
        #: how many cards of the talon (the waste bottom first, then the
        #: stock in turning order) the player has seen face up, counted
        #: from the waste's bottom. Cards are turned in talon order and
        #: the talon keeps its order, so the seen cards are always its
        #: first ``talon_seen``: every waste card and the stock's next
        #: ``talon_seen - len(waste)``. Undo never lowers it (seeing is not
        #: undone); a waste card played lowers it by one, as it leaves the
        #: talon, and its undo raises it again.
        self.talon_seen = 0

    # ------------------------------------------------------------------ build

    @classmethod
    def deal(cls, code: DealCode | str) -> Game:
        """Lay out the deal in the canonical order of the rule book (docs/rules.md)."""
        if isinstance(code, str):
            code = DealCode.parse(code)
        return cls.from_deck(code.deck(), code.draw)

    @classmethod
    def from_deck(cls, deck: Sequence[Card], draw: int = 3) -> Game:
        """Deal ``deck``, given in the canonical deal order (docs/deal-codes.md)."""
        if sorted(deck) != list(range(52)):
            raise InvalidCardError("a deck must hold each of the 52 cards exactly once")
        base = deck[13]
        game = cls(draw, base >> 2, base & 3)
        game.reserve = list(deck[0:13])
        game.foundations[0].append(base)
        game.suit_slot[base & 3] = 0
        game.on_foundations = 1
        game.tableau = [[deck[14]], [deck[15]], [deck[16]], [deck[17]]]
        game.stock = list(reversed(deck[18:52]))
        return game

    @classmethod
    def from_layout(
        cls,
        *,
        reserve: Sequence[str] = (),
        tableau: Sequence[Sequence[str]] = ((), (), (), ()),
        foundations: Sequence[Sequence[str]] = ((), (), (), ()),
        stock: Sequence[str] = (),
        waste: Sequence[str] = (),
        draw: int = 3,
        base_rank: str | None = None,
        base_suit: str | None = None,
        stock_seen: int = 0,
    ) -> Game:
        """A hand-built position (cards as text, piles bottom first).

        ``stock`` lists the cards face down with the next one turned last.
        The waste's cards count as seen, and so do the next ``stock_seen``
        cards of the stock (``-1``: all of them, as after a recycle).
        Cards may be missing (a partial position for a test), never repeated.
        The start rank and the suit of foundation 1 come from the first
        card of foundation 1 unless ``base_rank`` / ``base_suit`` say.
        Score and history start empty.
        """
        if len(tableau) != 4 or len(foundations) != 4:
            raise CanfieldError("a layout has 4 columns and 4 foundations")
        seen: set[Card] = set()

        def cards(items: Sequence[str]) -> list[Card]:
            out = [parse_card(text) for text in items]
            for card in out:
                if card in seen:
                    raise InvalidCardError(f"{card_text(card)} appears twice")
                seen.add(card)
            return out

        found = [cards(pile) for pile in foundations]
        if base_rank is not None:
            rank = RANKS.index(base_rank.strip().upper())
        elif found[0]:
            rank = found[0][0] >> 2
        else:
            raise InvalidCardError("give base_rank or a first foundation card")
        if base_suit is not None:
            suit = SUITS.index(base_suit.strip().upper())
        else:
            suit = found[0][0] & 3 if found[0] else -1
        game = cls(draw, rank, suit)
        game.reserve = cards(reserve)
        game.tableau = [cards(col) for col in tableau]
        game.foundations = found
        for slot, pile in enumerate(found):
            if pile:
                game.suit_slot[pile[0] & 3] = slot
        game.on_foundations = sum(len(pile) for pile in found)
        game.stock = cards(stock)
        game.waste = cards(waste)
        game.fan = min(len(game.waste), 1)
        if stock_seen < 0:
            stock_seen = len(game.stock)
        if stock_seen > len(game.stock):
            raise CanfieldError(f"stock_seen {stock_seen} is more than the stock's cards")
        game.talon_seen = len(game.waste) + stock_seen
        return game

    def copy(self) -> Game:
        """An independent copy (history included)."""
        other = Game.__new__(Game)
        other.draw = self.draw
        other.base_rank = self.base_rank
        other.base_suit = self.base_suit
        other.reserve = self.reserve[:]
        other.tableau = [col[:] for col in self.tableau]
        other.foundations = [pile[:] for pile in self.foundations]
        other.suit_slot = self.suit_slot[:]
        other.stock = self.stock[:]
        other.waste = self.waste[:]
        other.fan = self.fan
        other.score = self.score
        other.on_foundations = self.on_foundations
        other.history = deque(self.history, maxlen=UNDO_LIMIT)
        other.talon_seen = self.talon_seen
        return other

    # ------------------------------------------------------------------ facts

    @property
    def is_won(self) -> bool:
        return self.on_foundations == 52

    @property
    def can_undo(self) -> bool:
        return bool(self.history)

    @property
    def unseen_stock(self) -> int:
        """How many stock cards the player has never seen (0: the talon's order is known)."""
        return len(self.waste) + len(self.stock) - self.talon_seen

    def seen_stock(self) -> list[Card]:
        """The stock cards the player has seen, next turned first (see ``talon_seen``)."""
        known = self.talon_seen - len(self.waste)
        return self.stock[::-1][:known]

    def foundation_accepts(self, card: Card) -> int:
        """The slot that takes ``card`` now, or -1.

        A suit keeps its slot while the slot holds a card. A start-rank
        card of a suit with no slot opens one: foundation 1 for the base
        card's suit, else the leftmost empty one of foundations 2-4.
        """
        suit = card & 3
        slot = self.suit_slot[suit]
        if slot >= 0:
            pile = self.foundations[slot]
            if len(pile) < 13 and (card >> 2) == ((pile[-1] >> 2) + 1) % 13:
                return slot
            return -1
        if (card >> 2) != self.base_rank:
            return -1
        foundations = self.foundations
        if suit == self.base_suit:
            return -1 if foundations[0] else 0
        for index in range(0 if self.base_suit < 0 else 1, 4):
            if not foundations[index]:
                return index
        return -1

    def position_key(self) -> tuple[int, tuple[tuple[Card, ...], ...], tuple[int, ...], int]:
        """Identifies the position for search (not the history or score).

        The stock and waste together always keep the original stock order
        minus the cards played, so their split point says all about them.
        Foundations count per suit, not per slot: which slot a suit happened
        to open changes nothing about what can be played.
        """
        piles = self.foundations
        return (
            len(self.reserve),
            tuple(tuple(col) for col in self.tableau),
            tuple(len(piles[slot]) if slot >= 0 else 0 for slot in self.suit_slot),
            len(self.waste),
        )

    # ------------------------------------------------------------------ moves

    def legal_moves(self, takebacks: bool = True, runs: bool = True) -> Iterator[Move]:
        """Every legal move, foundation plays first, the stock tap last.

        ``takebacks=False`` leaves out cards taken back from a foundation,
        for a search that never plays them; ``runs=False`` the moves from one
        column to another, for a question only the reserve, the waste and the
        foundations answer (most of the work on a full board).
        """
        tableau = self.tableau
        reserve = self.reserve
        waste = self.waste
        accepts = self.foundation_accepts
        builds = BUILDS_ON
        tops = [col[-1] if col else -1 for col in tableau]
        may_fill = not reserve
        # to foundations
        if reserve and accepts(reserve[-1]) >= 0:
            yield TO_FOUNDATION[RESERVE]
        if waste and accepts(waste[-1]) >= 0:
            yield TO_FOUNDATION[WASTE]
        for i in range(4):
            if tops[i] >= 0 and accepts(tops[i]) >= 0:
                yield COLUMN_UP[i]
        # single cards from reserve and waste onto columns
        for src, pile in ((RESERVE, reserve), (WASTE, waste)):
            if pile:
                base = pile[-1] * 52
                onto = ONTO_COLUMN[src]
                for j in range(4):
                    top = tops[j]
                    if (top < 0 and may_fill) or (top >= 0 and builds[base + top]):
                        yield onto[j]
        # runs between columns
        for i in range(4 if runs else 0):
            col = tableau[i]
            height = len(col)
            if not height:
                continue
            run = 1
            while run < height and builds[col[-run] * 52 + col[-run - 1]]:
                run += 1
            # a run climbs one rank per card, so only one depth (and every
            # 13th below it) holds the rank a target takes
            last_rank = col[-1] >> 2
            from_col = RUN[i]
            for j in range(4):
                if j == i:
                    continue
                top = tops[j]
                if top < 0:
                    if may_fill:
                        yield from from_col[j][1 : run + 1]
                    continue
                count = ((top >> 2) - 1 - last_rank) % 13 + 1
                while count <= run:
                    if builds[col[-count] * 52 + top]:
                        yield from_col[j][count]
                    count += 13
        # a foundation's top back onto a column
        for slot, pile in enumerate(self.foundations if takebacks else ()):
            if pile:
                base = pile[-1] * 52
                for j in range(4):
                    top = tops[j]
                    if (top < 0 and may_fill) or (top >= 0 and builds[base + top]):
                        yield TAKE_BACK[slot][j]
        if self.stock or waste:
            yield DRAW

    def is_legal(self, move: Move) -> bool:
        """Whether ``push(move)`` would succeed (never raises)."""
        try:
            self._check(move)
        except (IllegalMoveError, InvalidMoveError):
            return False
        return True

    def _check(self, move: Move) -> None:
        """Raise ``IllegalMoveError`` naming the rule ``move`` breaks.

        A ``Move`` value that no text parses to (a run from the waste, a
        column 7, no target) raises ``InvalidMoveError`` instead.
        """
        src = move.src
        if src == STOCK:
            if not self.stock and not self.waste:
                raise IllegalMoveError("stock-empty", "the stock and the waste are both empty")
            return
        dst = move.dst
        if dst != TABLEAU and dst != FOUNDATION:
            if dst == RESERVE:
                raise IllegalMoveError("reserve-no-build", "nothing is ever placed on the reserve")
            if dst == WASTE:
                raise IllegalMoveError(
                    "waste-no-build", "cards are placed on the waste only by the stock"
                )
            raise InvalidMoveError(f"{move!r}: unknown target {dst!r}")
        if dst == TABLEAU and not 0 <= move.dst_index < 4:
            raise InvalidMoveError(f"{move!r}: there is no column {move.dst_index + 1}")
        count = move.count
        if count != 1 and (src != TABLEAU or count < 1):
            raise InvalidMoveError(f"{move.text()!r}: a run of cards moves only between columns")
        if src == RESERVE:
            if not self.reserve:
                raise IllegalMoveError("reserve-empty", "the reserve is empty")
            card = self.reserve[-1]
        elif src == WASTE:
            if not self.waste:
                raise IllegalMoveError("waste-empty", "the waste is empty")
            card = self.waste[-1]
        elif src == TABLEAU:
            if not 0 <= move.src_index < 4:
                raise InvalidMoveError(f"{move!r}: there is no such column")
            col = self.tableau[move.src_index]
            if count > len(col):
                raise IllegalMoveError(
                    "column-too-short",
                    f"column {move.src_index + 1} holds {len(col)} card(s), not {count}",
                )
            for k in range(1, count):
                if not BUILDS_ON[col[-k] * 52 + col[-k - 1]]:
                    raise IllegalMoveError(
                        "run-broken",
                        f"the last {count} cards of column {move.src_index + 1} "
                        "are not one descending run of alternating colours",
                    )
            card = col[-count]
        elif src == FOUNDATION:
            if not 0 <= move.src_index < 4:
                raise InvalidMoveError(f"{move!r}: there is no such foundation")
            pile = self.foundations[move.src_index]
            if not pile:
                raise IllegalMoveError(
                    "foundation-empty", f"foundation {move.src_index + 1} is empty"
                )
            if dst != TABLEAU:
                raise IllegalMoveError(
                    "foundation-to-column", "a foundation card can only go back onto a column"
                )
            card = pile[-1]
        else:
            raise InvalidMoveError(f"{move!r}: unknown source {src!r}")
        if dst == FOUNDATION:
            if self.foundation_accepts(card) < 0:
                raise IllegalMoveError("foundation-build", self._foundation_reason(card))
            return
        target = self.tableau[move.dst_index]
        if src == TABLEAU and move.src_index == move.dst_index:
            raise IllegalMoveError("same-column", "a run cannot move onto its own column")
        if target:
            if not BUILDS_ON[card * 52 + target[-1]]:
                raise IllegalMoveError(
                    "column-build",
                    f"{card_text(card)} cannot go on {card_text(target[-1])}: a column builds "
                    "down one rank at a time in alternating colours (A takes a K)",
                )
        elif self.reserve:
            raise IllegalMoveError(
                "empty-column-reserved",
                "an empty column is filled from the reserve while it holds cards",
            )

    def _foundation_reason(self, card: Card) -> str:
        slot = self.suit_slot[card & 3]
        text = card_text(card)
        if slot < 0:
            start = RANKS[self.base_rank] + SUITS[card & 3]
            if (card >> 2) == self.base_rank:
                return f"{text} cannot start a foundation: no foundation is free for it"
            return (
                f"{text} cannot start a foundation: the start rank is {start[0]}, "
                f"so only {start} can"
            )
        pile = self.foundations[slot]
        if len(pile) == 13:
            return f"the {SUITS[card & 3]} foundation is complete"
        want = RANKS[((pile[-1] >> 2) + 1) % 13] + SUITS[card & 3]
        return f"{text} cannot go on the foundation: it needs {want} next"

    def push(self, move: Move) -> None:
        """Apply ``move`` or raise ``IllegalMoveError`` with nothing changed."""
        self._check(move)
        self._apply(move)

    def push_text(self, text: str) -> Move:
        """Parse and play one move; ``InvalidMoveError`` or ``IllegalMoveError``."""
        move = Move.parse(text)
        self.push(move)
        return move

    def play_text(self, text: str) -> Move | None:
        """Play one replay entry: a move, or ``U`` for an undo (returns None)."""
        if isinstance(text, str) and ascii_upper(strip_spaces(text, BLANK)) == UNDO:
            self.pop()
            return None
        return self.push_text(text)

    @classmethod
    def replay(cls, start: Game | DealCode | str, texts: Iterable[str]) -> Game:
        """Play ``texts`` (move texts, and ``U`` for an undo) in order from ``start``.

        ``start`` is a deal code, dealt afresh, or a position, which is
        copied and never changed. The first entry that does not parse or
        is not legal raises (``InvalidMoveError``, ``IllegalMoveError``,
        ``NothingToUndoError``). The engine's only replay: the solver's
        lines and the server's race logs are rebuilt with it.
        """
        game = start.copy() if isinstance(start, Game) else cls.deal(start)
        for text in texts:
            game.play_text(text)
        return game

    def _apply(self, move: Move) -> None:
        src = move.src
        fan = self.fan
        if src == STOCK:
            if self.stock:
                drawn = min(self.draw, len(self.stock))
                stock, waste = self.stock, self.waste
                for _ in range(drawn):
                    waste.append(stock.pop())
                self.fan = drawn
                if len(waste) > self.talon_seen:
                    self.talon_seen = len(waste)
            else:
                # turn the waste over: its bottom card becomes the next drawn
                drawn = -len(self.waste)
                self.stock = self.waste[::-1]
                self.waste = []
                self.fan = 0
            self.history.append(_new(UndoRecord, (move, -1, -1, False, 0, fan, drawn)))
            return
        count = move.count
        if src == RESERVE:
            card = self.reserve.pop()
            cards = [card]
        elif src == WASTE:
            card = self.waste.pop()
            cards = [card]
            self.fan = fan - 1 if fan > 1 else (1 if self.waste else 0)
            self.talon_seen -= 1
        elif src == TABLEAU:
            col = self.tableau[move.src_index]
            cards = col[-count:]
            card = cards[0]
            del col[-count:]
        else:  # a take-back from a foundation
            pile = self.foundations[move.src_index]
            card = pile.pop()
            cards = [card]
            self.on_foundations -= 1
        suit = card & 3
        suit_slot = self.suit_slot[suit]
        slot = -1
        points = 0
        if move.dst == FOUNDATION:
            slot = suit_slot if suit_slot >= 0 else self.foundation_accepts(card)
            self.suit_slot[suit] = slot
            self.foundations[slot].append(card)
            self.on_foundations += 1
            points = POINTS_PER_CARD
            self.score += points
        else:
            if src == FOUNDATION and not self.foundations[move.src_index]:
                self.suit_slot[suit] = -1  # the emptied foundation is free again
            self.tableau[move.dst_index].extend(cards)
        refilled = False
        if src == TABLEAU and not self.tableau[move.src_index] and self.reserve:
            self.tableau[move.src_index].append(self.reserve.pop())
            refilled = True
        self.history.append(_new(UndoRecord, (move, slot, suit_slot, refilled, points, fan, 0)))

    def turn_stock(self, taps: int) -> None:
        """Tap the stock ``taps`` times as one action, undone by one ``pop``.

        For search, where taps only matter for the waste card they bring
        up: one call instead of ``taps`` checked pushes. The stock and the
        waste together keep the talon's order, so only their split moves.
        """
        if not self.stock and not self.waste:
            raise IllegalMoveError("stock-empty", "the stock and the waste are both empty")
        before = size = len(self.waste)
        total = before + len(self.stock)
        fan = self.fan
        seen = self.talon_seen
        for _ in range(taps):
            if size < total:
                fan = min(self.draw, total - size)
                size += fan
                if size > seen:
                    seen = size
            else:
                size = fan = 0
        self.talon_seen = seen
        self.history.append(
            _new(UndoRecord, (Move(STOCK, 0, taps), -1, -1, False, 0, self.fan, before))
        )
        self._split_talon(size)
        self.fan = fan

    def _split_talon(self, waste_size: int) -> None:
        """Lay the talon (waste, then stock in turning order) out with this many on the waste."""
        talon = self.waste + self.stock[::-1]
        self.waste = talon[:waste_size]
        self.stock = talon[waste_size:][::-1]

    def pop(self) -> Move:
        """Undo the last action exactly; returns the move undone."""
        if not self.history:
            raise NothingToUndoError("nothing to undo")
        move, slot, suit_slot, refilled, points, fan, drawn = self.history.pop()
        src = move.src
        self.fan = fan
        if src == STOCK:
            if move.count:  # several taps at once (turn_stock): drawn is the old waste size
                self._split_talon(drawn)
            elif drawn > 0:
                stock, waste = self.stock, self.waste
                for _ in range(drawn):
                    stock.append(waste.pop())
            else:
                self.waste = self.stock[::-1]
                self.stock = []
            return move
        if refilled:
            self.reserve.append(self.tableau[move.src_index].pop())
        if move.dst == FOUNDATION:
            card = self.foundations[slot].pop()
            cards = [card]
            self.on_foundations -= 1
            self.score -= points
        else:
            target = self.tableau[move.dst_index]
            cards = target[-move.count :]
            card = cards[0]
            del target[-move.count :]
        self.suit_slot[card & 3] = suit_slot
        if src == RESERVE:
            self.reserve.append(card)
        elif src == WASTE:
            self.waste.append(card)
            self.talon_seen += 1
        elif src == TABLEAU:
            self.tableau[move.src_index].extend(cards)
        else:
            self.foundations[move.src_index].append(card)
            self.on_foundations += 1
        return move

    # ------------------------------------------------------------------ tap

    def locate(self, card: Card) -> Move | None:
        """The move-source that picks up ``card`` (a partial Move), or None.

        Only cards a player can take are found: the top of the reserve or
        waste, a foundation's top, or any card of a column's movable run.
        """
        if self.reserve and self.reserve[-1] == card:
            return Move(RESERVE)
        if self.waste and self.waste[-1] == card:
            return Move(WASTE)
        for i, col in enumerate(self.tableau):
            if card in col:
                count = len(col) - col.index(card)
                for k in range(1, count):
                    if not BUILDS_ON[col[-k] * 52 + col[-k - 1]]:
                        return None
                return Move(TABLEAU, i, count)
        for slot, pile in enumerate(self.foundations):
            if pile and pile[-1] == card:
                return Move(FOUNDATION, slot)
        return None

    def tap_move(self, card: Card, double_click: bool = True) -> Move | None:
        """Where the app sends a tapped card, or None when nowhere.

        Foundation first (a single top card); otherwise, with the "Double
        click" setting on, the longest column that accepts it (ties go to
        the leftmost column), then the leftmost empty column. A whole
        column never moves to an empty one (that changes nothing). A
        foundation's own card stays put: taking one back is a drag.
        """
        source = self.locate(card)
        if source is None or source.src == FOUNDATION:
            return None
        if source.count == 1 and self.foundation_accepts(card) >= 0:
            return Move(source.src, source.src_index, 1, FOUNDATION, 0)
        if not double_click:
            return None
        best = -1
        best_height = 0
        empty = -1
        for j, col in enumerate(self.tableau):
            if source.src == TABLEAU and j == source.src_index:
                continue
            if col:
                if BUILDS_ON[card * 52 + col[-1]] and len(col) > best_height:
                    best, best_height = j, len(col)
            elif empty < 0 and not self.reserve:
                empty = j
        if best < 0:
            whole_column = source.src == TABLEAU and source.count == len(
                self.tableau[source.src_index]
            )
            if empty < 0 or whole_column:
                return None
            best = empty
        return Move(source.src, source.src_index, source.count, TABLEAU, best)

    # ------------------------------------------------------------------ views

    def view(self) -> dict[str, Any]:
        """What the player may see: no stock card, no reserve card under the top."""
        fan = self.waste[-max(self.fan, 1) :] if self.waste else []
        # Draw 3 shows the waste's top three: under a fan of fewer, the cards beneath
        # it (all seen when they were turned), so the next ones to play are in sight
        shown = min(len(self.waste), 3) if self.draw == 3 else len(fan)
        under = self.waste[len(self.waste) - shown : len(self.waste) - len(fan)]
        return {
            "draw": self.draw,
            "start_rank": RANKS[self.base_rank],
            "reserve": {
                "top": card_text(self.reserve[-1]) if self.reserve else None,
                "count": len(self.reserve),
            },
            "foundations": [[card_text(c) for c in pile] for pile in self.foundations],
            "tableau": [[card_text(c) for c in col] for col in self.tableau],
            "stock": {"count": len(self.stock)},
            "waste": {
                "fan": [card_text(c) for c in fan],
                "under": [card_text(c) for c in under],
                "count": len(self.waste),
            },
            "score": self.score,
            "on_foundations": self.on_foundations,
            "won": self.is_won,
            "can_undo": bool(self.history),
        }

    def to_dict(self) -> dict[str, Any]:
        """The full state, history included, compact and JSON-ready.

        ``seen`` is ``talon_seen``; ``from_dict`` reads a dict without it
        (saved before it existed) as having seen only the waste.
        """

        def pack(cards: list[Card]) -> str:
            return "".join(card_text(c) for c in cards)

        return {
            "v": 1,
            "draw": self.draw,
            "base": RANKS[self.base_rank] + (SUITS[self.base_suit] if self.base_suit >= 0 else ""),
            "reserve": pack(self.reserve),
            "tableau": [pack(col) for col in self.tableau],
            "foundations": [pack(pile) for pile in self.foundations],
            "stock": pack(self.stock),
            "waste": pack(self.waste),
            "fan": self.fan,
            "score": self.score,
            "seen": self.talon_seen,
            "history": [
                [m.text(), slot, suit_slot, int(refilled), points, fan, drawn]
                for m, slot, suit_slot, refilled, points, fan, drawn in self.history
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        def unpack(text: str) -> list[Card]:
            return [parse_card(text[i : i + 2]) for i in range(0, len(text), 2)]

        base = data["base"]
        game = cls(
            int(data["draw"]), RANKS.index(base[0]), SUITS.index(base[1]) if base[1:] else -1
        )
        game.reserve = unpack(data["reserve"])
        game.tableau = [unpack(col) for col in data["tableau"]]
        game.foundations = [unpack(pile) for pile in data["foundations"]]
        for slot, pile in enumerate(game.foundations):
            if pile:
                game.suit_slot[pile[0] & 3] = slot
        game.on_foundations = sum(len(p) for p in game.foundations)
        game.stock = unpack(data["stock"])
        game.waste = unpack(data["waste"])
        game.fan = int(data["fan"])
        game.score = int(data["score"])
        game.talon_seen = int(data.get("seen", len(game.waste)))
        for text, slot, suit_slot, refilled, points, fan, drawn in data["history"]:
            game.history.append(
                UndoRecord(Move.parse(text), slot, suit_slot, bool(refilled), points, fan, drawn)
            )
        return game

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        return render(self)


def render(game: Game) -> str:
    """A plain-text picture of the board for the CLI and for debugging."""

    def cards(items: list[Card]) -> str:
        return " ".join(card_text(c) for c in items) or "--"

    lines = [
        f"Draw {game.draw}   start rank {RANKS[game.base_rank]}   score {game.score}"
        f"   on foundations {game.on_foundations}/52",
        f"Reserve ({len(game.reserve)}): {card_text(game.reserve[-1]) if game.reserve else '--'}",
        "Foundations: "
        + "  ".join(
            f"F{i + 1} {card_text(p[-1]) if p else '[' + RANKS[game.base_rank] + ']'}({len(p)})"
            for i, p in enumerate(game.foundations)
        ),
    ]
    for i, col in enumerate(game.tableau):
        lines.append(f"Column {i + 1}: {cards(col)}")
    fan = game.waste[-max(game.fan, 1) :] if game.waste else []
    lines.append(f"Stock ({len(game.stock)})   Waste ({len(game.waste)}): {cards(fan)}")
    if game.is_won:
        lines.append("Won!")
    return "\n".join(lines)
