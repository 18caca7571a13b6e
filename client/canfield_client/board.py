"""Rebuild an engine ``Game`` from the server's player view.

The view hides the stock, the reserve under its top and the waste under
the fan (and under Draw 3's seen ``under`` cards). Those places are filled
with the cards nobody can see, in a fixed order: stand-ins with the right
counts, so the engine's legal moves for everything visible are exact. Only
a player that never reasons about a hidden card's identity
(``strategy.Strategy``) may rely on them.
"""

from __future__ import annotations

from typing import Any

from canfield import Game
from canfield.cards import DECK, card_text, parse_card

__all__ = ["game_from_view"]


def game_from_view(view: dict[str, Any]) -> Game:
    """A playable ``Game`` matching ``view`` in every visible card and count."""
    reserve_top = view["reserve"]["top"]
    fan = list(view["waste"]["fan"])
    under = list(view["waste"].get("under", []))  # absent from an older server
    visible = [card for pile in view["foundations"] for card in pile]
    visible += [card for col in view["tableau"] for card in col] + under + fan
    if reserve_top:
        visible.append(reserve_top)
    known = {parse_card(text) for text in visible}
    hidden = [card_text(c) for c in DECK if c not in known]
    reserve_hidden = max(view["reserve"]["count"] - 1, 0)
    waste_hidden = view["waste"]["count"] - len(under) - len(fan)
    stock_count = view["stock"]["count"]
    reserve = hidden[:reserve_hidden] + ([reserve_top] if reserve_top else [])
    waste = hidden[reserve_hidden : reserve_hidden + waste_hidden] + under + fan
    start = reserve_hidden + waste_hidden
    stock = hidden[start : start + stock_count]
    foundations = view["foundations"]
    game = Game.from_layout(
        reserve=reserve,
        tableau=view["tableau"],
        foundations=foundations,
        stock=stock,
        waste=waste,
        draw=view["draw"],
        base_rank=view["start_rank"],
    )
    game.fan = len(fan)
    game.score = view["score"]
    return game
