"""The picture a shared replay link previews with: 1200x630 (the size link
previews ask for), drawn from the stored replay as shapes (``picture``) and
written as SVG and as PNG, no browser needed.

The final position is rebuilt by the engine from the deal and the featured
racer's moves (the first of the standings), as the replay page rebuilds it:
only what ``GET /replay/<id>`` already serves goes in, and of the board only
what its player saw (``Game.view``: the stock face down, the reserve's top).
Beside it: the product name, the result and the race, in the words of
``replay_words``. Every text is escaped; the suits are shapes, not font
glyphs, so the picture reads the same wherever it is drawn.
"""

from __future__ import annotations

from typing import Any

from canfield import CanfieldError, Game
from canfield_protocol import ChallengeView

from canfield_server.room.race import replay as replay_moves
from canfield_server.transport import picture
from canfield_server.transport.picture import BACK, FELT, Box, Group, Shape, Suit, Words
from canfield_server.transport.replay_words import (
    PRODUCT,
    WORDS,
    Summary,
    challenge_title,
    result,
)

__all__ = [
    "WIDTH",
    "HEIGHT",
    "final_view",
    "render_svg",
    "render_png",
    "challenge_svg",
    "challenge_png",
]

WIDTH, HEIGHT = 1200, 630
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


def _text(x: float, y: float, size: int, text: str, fill: str = "#fff", weight: int = 400) -> Words:
    return Words(x, y, size, text, fill, weight)


def wrap(text: str, size: int, width: float, max_lines: int, bold: bool = False) -> list[str]:
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


def _card(x: float, y: float, card: str) -> Group:
    rank, suit = ("10" if card[0] == "T" else card[0]), card[1]
    colour = RED if suit in "DH" else INK
    return Group(
        x,
        y,
        card,
        (
            Box(0, 0, CW, CH, "#fff", rx=8, stroke="#00000033"),
            Words(6, 28, 26, rank, colour, 700),
            Suit(7, 34, 20, suit, colour),
            Suit(CW - 52, CH - 54, 44, suit, colour),
        ),
    )


def back(x: float, y: float) -> Box:
    return Box(x, y, CW, CH, BACK, rx=8, stroke="#fff", stroke_w=4)


def _slot(x: float, y: float, label: str = "") -> list[Shape]:
    slot: list[Shape] = [
        Box(x, y, CW, CH, "#0000001f", rx=8, stroke="#ffffff73", stroke_w=2, dash=True)
    ]
    if label:
        slot.append(Words(x + CW / 2, y + CH / 2 + 14, 40, label, "#ffffffb3", 800, "middle"))
    return slot


def _count(x: float, y: float, n: int) -> Words:
    return Words(x + CW / 2, y + CH + 24, 18, str(n), "#fff", 700, "middle")


def _board(view: dict[str, Any]) -> list[Shape]:
    """The board as the page lays it out seven wide: stock, waste and the four
    foundations over the reserve and the four columns."""

    def left(col: int) -> float:
        return BOARD_X + col * (CW + GAP)

    out: list[Shape] = []
    stock = view["stock"]["count"]
    if stock:
        out.append(back(left(0), BOARD_Y))
    else:
        out.extend(_slot(left(0), BOARD_Y))
    out.append(_count(left(0), BOARD_Y, stock))
    fan = view["waste"]["fan"]
    if not fan:
        out.extend(_slot(left(1), BOARD_Y))
    for i, card in enumerate(fan):
        out.append(_card(left(1) + i * round(CW * 0.5), BOARD_Y, card))
    start = "10" if view["start_rank"] == "T" else view["start_rank"]
    for i, pile in enumerate(view["foundations"]):
        x = left(3 + i)
        if pile:
            out.append(_card(x, BOARD_Y, pile[-1]))
        else:
            out.extend(_slot(x, BOARD_Y, start))
    reserve = view["reserve"]
    top = reserve["top"]
    if top:
        out.append(_card(left(0), ROW2_Y, top))
    else:
        out.extend(_slot(left(0), ROW2_Y))
    out.append(_count(left(0), ROW2_Y, reserve["count"]))
    for j, column in enumerate(view["tableau"]):
        x = left(3 + j)
        if not column:
            out.extend(_slot(x, ROW2_Y))
            continue
        room = BOARD_BOTTOM - ROW2_Y - CH
        fan_px = min(FAN_MAX, room / max(len(column) - 1, 1))
        out.extend(_card(x, ROW2_Y + i * fan_px, card) for i, card in enumerate(column))
    return out


def heading(kind: str) -> list[Shape]:
    """The felt, the product name, its rule and what the picture is (``kind``)."""
    return [
        Box(0, 0, WIDTH, HEIGHT, FELT),
        _text(TEXT_X, 104, 46, PRODUCT, weight=800),
        Box(TEXT_X, 126, 88, 6, ACCENT, rx=3),
        _text(TEXT_X, 170, 22, kind, fill="#cfe6d8", weight=600),
    ]


def _words(summary: Summary) -> list[Shape]:
    """The product name, the result and the race, down the left side."""
    out = heading(summary.word("replay"))
    y = 220.0
    for line in wrap(summary.title, 38, TEXT_W, 3, bold=True):
        out.append(_text(TEXT_X, y, 38, line, fill=ACCENT, weight=800))
        y += 46
    y += 8
    for line in wrap(summary.how, 24, TEXT_W, 4, bold=True):
        out.append(_text(TEXT_X, y, 24, line, fill="#e4f3ea", weight=600))
        y += 32
    y += 14
    for line in wrap(summary.players, 22, TEXT_W, 3):
        out.append(_text(TEXT_X, y, 22, line))
        y += 30
    race = ", ".join(p for p in (summary.race, summary.date) if p)
    for i, line in enumerate(reversed(wrap(race, 20, TEXT_W, 2))):
        out.append(_text(TEXT_X, HEIGHT - 40 - i * 28, 20, line, fill="#cfe6d8"))
    return out


def shapes(replay: dict[str, Any], summary: Summary) -> list[Shape]:
    """The preview picture of a replay (``GET /replay/<id>``'s body), as shapes."""
    view = final_view(replay)
    out = _words(summary)
    if view is not None:
        if summary.featured:
            label = summary.word("final_of", name=summary.featured)
            out.append(_text(BOARD_X, 50, 20, wrap(label, 20, 680, 1)[0], fill="#e4f3ea"))
        out.extend(_board(view))
    return out


def render_svg(replay: dict[str, Any], summary: Summary) -> str:
    """The preview picture of a replay (``GET /replay/<id>``'s body) as SVG text."""
    title = f"{summary.title} - {PRODUCT}"
    return picture.svg(WIDTH, HEIGHT, summary.lang, title, shapes(replay, summary))


def render_png(replay: dict[str, Any], summary: Summary) -> bytes:
    """The same picture as PNG bytes (a few tens of ms of CPU: ``share`` caches it)."""
    return picture.png(WIDTH, HEIGHT, shapes(replay, summary))


#: the rows of a challenge's standing its picture lists
CHALLENGE_ROWS = 6


def challenge_shapes(view: ChallengeView, lang: str) -> list[Shape]:
    """A challenge link's picture: what to beat on the left; on the right five
    cards face down (the deal stays hidden) over the standing's first rows."""
    words = WORDS[lang]
    out = heading(words["challenge"])
    y = 220.0
    for line in wrap(challenge_title(view, lang), 38, TEXT_W, 5, bold=True):
        out.append(_text(TEXT_X, y, 38, line, fill=ACCENT, weight=800))
        y += 46
    out.append(_text(TEXT_X, HEIGHT - 40, 22, words["ch_draw"].format(draw=view.draw), "#cfe6d8"))
    for i in range(5):
        out.append(back(BOARD_X + 40 + i * 120, BOARD_Y))
    top = ROW2_Y + 10
    count = len(view.standing)
    head = words["ch_racers"].format(n=count) if count else words["ch_none"]
    out.append(_text(BOARD_X + 40, top, 26, head, fill="#e4f3ea", weight=700))
    for i, row in enumerate(view.standing[:CHALLENGE_ROWS]):
        row_y = top + 44 + i * 38
        name = wrap(f"{row.rank}. {row.name}", 24, 420, 1)[0]
        colour = ACCENT if row.beat else "#fff"
        out.append(_text(BOARD_X + 40, row_y, 24, name, fill=colour, weight=600))
        out.append(
            Words(
                WIDTH - 60, row_y, 24, result(row.won, row.time_ms, row.cards), colour, 700, "end"
            )
        )
    return out


def challenge_svg(view: ChallengeView, lang: str) -> str:
    """A challenge link's picture as SVG text."""
    title = f"{challenge_title(view, lang)} - {PRODUCT}"
    return picture.svg(WIDTH, HEIGHT, lang, title, challenge_shapes(view, lang))


def challenge_png(view: ChallengeView, lang: str) -> bytes:
    """A challenge link's picture as PNG bytes."""
    return picture.png(WIDTH, HEIGHT, challenge_shapes(view, lang))
