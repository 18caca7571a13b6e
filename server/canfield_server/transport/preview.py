"""The picture a shared replay link previews with: an SVG of 1200x630 (the
size link previews ask for) drawn from the stored replay, no browser needed.

The final position is rebuilt by the engine from the deal and the featured
racer's moves (the first of the standings), as the replay page rebuilds it:
only what ``GET /replay/<id>`` already serves goes in, and of the board only
what its player saw (``Game.view``: the stock face down, the reserve's top).
Beside it: the product name, the result and the race, in the words of
``replay_words``. Every text is escaped; the suits are shapes, not font
glyphs, so the picture reads the same wherever it is drawn.
"""

from __future__ import annotations

from html import escape
from typing import Any

from canfield import CanfieldError, Game

from canfield_server.room.race import replay as replay_moves
from canfield_server.transport.replay_words import PRODUCT, Summary

__all__ = ["WIDTH", "HEIGHT", "final_view", "render_svg"]

WIDTH, HEIGHT = 1200, 630
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
INK, RED, ACCENT = "#1b1f23", "#c21f32", "#ffcf3f"
#: the board: seven card widths from BOARD_X, two rows from BOARD_Y
CW, GAP, BOARD_X, BOARD_Y = 88, 12, 470, 78
CH = round(CW * 1.4)
ROW2_Y = BOARD_Y + CH + 36
BOARD_BOTTOM = HEIGHT - 28
#: a column's widest fan, in px (the page's: a card's whole corner shows)
FAN_MAX = round(CH * 0.27)
#: the text beside the board
TEXT_X, TEXT_W = 56, 380

#: the suits in a 100x100 box, drawn from circles and polygons
SUIT_SHAPES = {
    "D": '<path d="M50 3 90 50 50 97 10 50Z"/>',
    "H": '<circle cx="29" cy="33" r="25"/><circle cx="71" cy="33" r="25"/>'
    '<path d="M6 43H94L50 96Z"/>',
    "S": '<circle cx="29" cy="60" r="23"/><circle cx="71" cy="60" r="23"/>'
    '<path d="M8 54H92L50 4Z"/><path d="M50 62 63 97H37Z"/>',
    "C": '<circle cx="50" cy="28" r="21"/><circle cx="27" cy="60" r="21"/>'
    '<circle cx="73" cy="60" r="21"/><path d="M50 44 62 97H38Z"/>',
}


def final_view(replay: dict[str, Any]) -> dict[str, Any] | None:
    """The featured racer's final board as they saw it (``Game.view``); the deal as
    dealt if their moves do not replay, None without a readable deal."""
    rows = replay.get("players") or []
    moves = list(rows[0].get("moves_list") or []) if rows else []
    try:
        return replay_moves(replay["deal"], moves).view()
    except (CanfieldError, KeyError, TypeError):
        try:
            return Game.deal(replay.get("deal", "")).view()
        except CanfieldError:
            return None


def _text(x: float, y: float, size: int, text: str, fill: str = "#fff", weight: int = 400) -> str:
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size}" font-weight="{weight}" '
        f'fill="{fill}">{escape(text)}</text>'
    )


def _wrap(text: str, size: int, width: float, max_lines: int, bold: bool = False) -> list[str]:
    """Lines of ``text`` that fit ``width`` px at ``size`` (a character's width
    estimated), at most ``max_lines``, the last cut with an ellipsis."""
    per_line = max(1, int(width / (size * (0.6 if bold else 0.55))))
    lines: list[str] = []
    line = ""
    for word in text.split():
        while len(word) > per_line:  # a word longer than a line: cut it
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:per_line])
            word = word[per_line:]
        candidate = f"{line} {word}".strip()
        if len(candidate) <= per_line:
            line = candidate
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1][: per_line - 1].rstrip() + "\u2026"
    return lines


def _card(x: float, y: float, card: str) -> str:
    rank, suit = ("10" if card[0] == "T" else card[0]), card[1]
    colour = RED if suit in "DH" else INK
    return (
        f'<g data-card="{escape(card)}" transform="translate({x:g} {y:g})">'
        f'<rect width="{CW}" height="{CH}" rx="8" fill="#fff" stroke="#00000033"/>'
        f'<text x="6" y="28" font-size="26" font-weight="700" fill="{colour}"'
        f' letter-spacing="-1">{rank}</text>'
        f'<use xlink:href="#s-{suit}" x="7" y="34" width="20" height="20" fill="{colour}"/>'
        f'<use xlink:href="#s-{suit}" x="{CW - 52}" y="{CH - 54}" width="44" height="44"'
        f' fill="{colour}"/></g>'
    )


def _back(x: float, y: float) -> str:
    return (
        f'<rect x="{x:g}" y="{y:g}" width="{CW}" height="{CH}" rx="8" fill="url(#back)"'
        ' stroke="#fff" stroke-width="4"/>'
    )


def _slot(x: float, y: float, label: str = "") -> str:
    slot = (
        f'<rect x="{x:g}" y="{y:g}" width="{CW}" height="{CH}" rx="8" fill="#0000001f"'
        ' stroke="#ffffff73" stroke-width="2" stroke-dasharray="6 4"/>'
    )
    if label:
        slot += (
            f'<text x="{x + CW / 2:g}" y="{y + CH / 2 + 14:g}" font-size="40" font-weight="800"'
            f' fill="#ffffffb3" text-anchor="middle">{escape(label)}</text>'
        )
    return slot


def _count(x: float, y: float, n: int) -> str:
    return (
        f'<text x="{x + CW / 2:g}" y="{y + CH + 24:g}" font-size="18" font-weight="700"'
        f' fill="#fff" text-anchor="middle">{n}</text>'
    )


def _board(view: dict[str, Any]) -> list[str]:
    """The board as the page lays it out seven wide: stock, waste and the four
    foundations over the reserve and the four columns."""

    def left(col: int) -> float:
        return BOARD_X + col * (CW + GAP)

    out: list[str] = []
    stock = view["stock"]["count"]
    out.append(_back(left(0), BOARD_Y) if stock else _slot(left(0), BOARD_Y))
    out.append(_count(left(0), BOARD_Y, stock))
    fan = view["waste"]["fan"]
    if not fan:
        out.append(_slot(left(1), BOARD_Y))
    for i, card in enumerate(fan):
        out.append(_card(left(1) + i * round(CW * 0.5), BOARD_Y, card))
    start = "10" if view["start_rank"] == "T" else view["start_rank"]
    for i, pile in enumerate(view["foundations"]):
        x = left(3 + i)
        out.append(_card(x, BOARD_Y, pile[-1]) if pile else _slot(x, BOARD_Y, start))
    reserve = view["reserve"]
    top = reserve["top"]
    out.append(_card(left(0), ROW2_Y, top) if top else _slot(left(0), ROW2_Y))
    out.append(_count(left(0), ROW2_Y, reserve["count"]))
    for j, column in enumerate(view["tableau"]):
        x = left(3 + j)
        if not column:
            out.append(_slot(x, ROW2_Y))
            continue
        room = BOARD_BOTTOM - ROW2_Y - CH
        fan_px = min(FAN_MAX, room / max(len(column) - 1, 1))
        out.extend(_card(x, ROW2_Y + i * fan_px, card) for i, card in enumerate(column))
    return out


def _words(summary: Summary) -> list[str]:
    """The product name, the result and the race, down the left side."""
    out = [
        _text(TEXT_X, 104, 46, PRODUCT, weight=800),
        f'<rect x="{TEXT_X}" y="126" width="88" height="6" rx="3" fill="{ACCENT}"/>',
        _text(TEXT_X, 170, 22, summary.word("replay"), fill="#cfe6d8", weight=600),
    ]
    y = 220.0
    for line in _wrap(summary.title, 38, TEXT_W, 3, bold=True):
        out.append(_text(TEXT_X, y, 38, line, fill=ACCENT, weight=800))
        y += 46
    y += 8
    for line in _wrap(summary.how, 24, TEXT_W, 4, bold=True):
        out.append(_text(TEXT_X, y, 24, line, fill="#e4f3ea", weight=600))
        y += 32
    y += 14
    for line in _wrap(summary.players, 22, TEXT_W, 3):
        out.append(_text(TEXT_X, y, 22, line))
        y += 30
    race = ", ".join(p for p in (summary.race, summary.date) if p)
    for i, line in enumerate(reversed(_wrap(race, 20, TEXT_W, 2))):
        out.append(_text(TEXT_X, HEIGHT - 40 - i * 28, 20, line, fill="#cfe6d8"))
    return out


def render_svg(replay: dict[str, Any], summary: Summary) -> str:
    """The preview picture of a replay (``GET /replay/<id>``'s body) as SVG text."""
    view = final_view(replay)
    symbols = "".join(
        f'<symbol id="s-{suit}" viewBox="0 0 100 100">{shape}</symbol>'
        for suit, shape in SUIT_SHAPES.items()
    )
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
        f' width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}"'
        f' font-family="{FONT}" lang="{summary.lang}">',
        f"<title>{escape(summary.title)} - {PRODUCT}</title>",
        "<defs>",
        '<radialGradient id="felt" cx="50%" cy="0%" r="110%">'
        '<stop offset="0" stop-color="#25805a"/><stop offset=".45" stop-color="#1d6b45"/>'
        '<stop offset="1" stop-color="#124a30"/></radialGradient>',
        '<pattern id="back" width="10" height="10" patternUnits="userSpaceOnUse"'
        ' patternTransform="rotate(45)"><rect width="10" height="10" fill="#3a62b8"/>'
        '<rect width="5" height="10" fill="#2d4f9e"/></pattern>',
        symbols,
        "</defs>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="url(#felt)"/>',
        *_words(summary),
    ]
    if view is not None:
        if summary.featured:
            label = summary.word("final_of", name=summary.featured)
            parts.append(_text(BOARD_X, 50, 20, _wrap(label, 20, 680, 1)[0], fill="#e4f3ea"))
        parts.extend(_board(view))
    parts.append("</svg>")
    return "\n".join(parts)
