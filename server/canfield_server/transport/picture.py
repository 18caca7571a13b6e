"""A preview picture drawn once, as a list of shapes, and written two ways: SVG
text, and a PNG (link previews in social apps show no SVG).

The shapes are few (rounded boxes, words, the four suits, groups that name a
card); ``svg`` writes them as markup and ``png`` paints them with Pillow, so
both pictures come from one drawing. The PNG is painted at twice its size and
scaled down, which smooths every edge. Its letters are DejaVu Sans where the
machine has it (Debian's fonts-dejavu, which Chromium brings), else Pillow's
own font, so the picture is drawn anywhere the wheel installs.
"""

from __future__ import annotations

import functools
import io
import os
from dataclasses import dataclass, field
from html import escape

from PIL import Image, ImageDraw, ImageFont, ImageOps

__all__ = ["Box", "Words", "Suit", "Group", "Shape", "FELT", "BACK", "svg", "png"]

#: two fills that are not one colour: the table's felt and a card's back
FELT, BACK = "felt", "back"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
FONT_FILES = {
    False: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    True: "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
}
#: the PNG is painted this many times larger, then scaled down
SCALE = 2
#: the felt: its colours from the centre of the top edge outwards
FELT_STOPS = ("#25805a", "#1d6b45", "#124a30")
BACK_STRIPES = ("#3a62b8", "#2d4f9e")

#: the suits in a 100x100 box: circles (cx, cy, r) and polygons
SUITS: dict[str, tuple[tuple[tuple[float, float, float], ...], tuple[tuple[float, ...], ...]]] = {
    "D": ((), ((50, 3, 90, 50, 50, 97, 10, 50),)),
    "H": (((29, 33, 25), (71, 33, 25)), ((6, 43, 94, 43, 50, 96),)),
    "S": (((29, 60, 23), (71, 60, 23)), ((8, 54, 92, 54, 50, 4), (50, 62, 63, 97, 37, 97))),
    "C": (((50, 28, 21), (27, 60, 21), (73, 60, 21)), ((50, 44, 62, 97, 38, 97),)),
}


@dataclass(frozen=True)
class Box:
    """A rectangle, its corners rounded by ``rx``; ``dash``: a dashed outline."""

    x: float
    y: float
    w: float
    h: float
    fill: str
    rx: float = 0
    stroke: str = ""
    stroke_w: float = 1
    dash: bool = False


@dataclass(frozen=True)
class Words:
    """One line of text; ``y`` is its baseline, ``anchor`` start, middle or end."""

    x: float
    y: float
    size: int
    text: str
    fill: str = "#fff"
    weight: int = 400
    anchor: str = "start"


@dataclass(frozen=True)
class Suit:
    """A suit's shape in a square of ``size`` px at (x, y)."""

    x: float
    y: float
    size: float
    suit: str
    fill: str


@dataclass(frozen=True)
class Group:
    """Shapes moved together by (x, y); ``card`` names the card they draw."""

    x: float
    y: float
    card: str
    shapes: tuple[Shape, ...] = field(default_factory=tuple)


Shape = Box | Words | Suit | Group


# ---------------------------------------------------------------- SVG


def _svg_shape(shape: Shape) -> str:
    if isinstance(shape, Group):
        inner = "".join(_svg_shape(s) for s in shape.shapes)
        return (
            f'<g data-card="{escape(shape.card)}" transform="translate({shape.x:g} {shape.y:g})">'
            f"{inner}</g>"
        )
    if isinstance(shape, Words):
        anchor = f' text-anchor="{shape.anchor}"' if shape.anchor != "start" else ""
        return (
            f'<text x="{shape.x:g}" y="{shape.y:g}" font-size="{shape.size}"'
            f' font-weight="{shape.weight}" fill="{shape.fill}"{anchor}>{escape(shape.text)}</text>'
        )
    if isinstance(shape, Suit):
        return (
            f'<use xlink:href="#s-{shape.suit}" x="{shape.x:g}" y="{shape.y:g}"'
            f' width="{shape.size:g}" height="{shape.size:g}" fill="{shape.fill}"/>'
        )
    fill = f"url(#{shape.fill})" if shape.fill in (FELT, BACK) else shape.fill
    stroke = (
        f' stroke="{shape.stroke}" stroke-width="{shape.stroke_w:g}"'
        + (' stroke-dasharray="6 4"' if shape.dash else "")
        if shape.stroke
        else ""
    )
    rx = f' rx="{shape.rx:g}"' if shape.rx else ""
    return (
        f'<rect x="{shape.x:g}" y="{shape.y:g}" width="{shape.w:g}" height="{shape.h:g}"'
        f'{rx} fill="{fill}"{stroke}/>'
    )


def _suit_symbol(suit: str) -> str:
    circles, polygons = SUITS[suit]
    parts = [f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}"/>' for cx, cy, r in circles]
    for points in polygons:
        pairs = " ".join(f"{points[i]:g} {points[i + 1]:g}" for i in range(0, len(points), 2))
        parts.append(f'<path d="M{pairs}Z"/>')
    return f'<symbol id="s-{suit}" viewBox="0 0 100 100">{"".join(parts)}</symbol>'


def svg(width: int, height: int, lang: str, title: str, shapes: list[Shape]) -> str:
    """The picture as SVG text: every text escaped, the suits as shapes."""
    stops = "".join(
        f'<stop offset="{offset}" stop-color="{colour}"/>'
        for offset, colour in zip(("0", ".45", "1"), FELT_STOPS, strict=True)
    )
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
        f' width="{width}" height="{height}" viewBox="0 0 {width} {height}"'
        f' font-family="{FONT}" lang="{lang}">',
        f"<title>{escape(title)}</title>",
        "<defs>",
        f'<radialGradient id="{FELT}" cx="50%" cy="0%" r="110%">{stops}</radialGradient>',
        f'<pattern id="{BACK}" width="10" height="10" patternUnits="userSpaceOnUse"'
        f' patternTransform="rotate(45)"><rect width="10" height="10" fill="{BACK_STRIPES[0]}"/>'
        f'<rect width="5" height="10" fill="{BACK_STRIPES[1]}"/></pattern>',
        *(_suit_symbol(suit) for suit in SUITS),
        "</defs>",
        *(_svg_shape(shape) for shape in shapes),
        "</svg>",
    ]
    return "\n".join(parts)


# ---------------------------------------------------------------- PNG


@functools.lru_cache(maxsize=32)
def _font(size: int, bold: bool) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = FONT_FILES[bold]
    if os.path.exists(path):
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size)


def _rgba(colour: str) -> tuple[int, int, int, int]:
    """A colour as RGBA: #rgb, #rrggbb or #rrggbbaa."""
    value = colour.lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    alpha = int(value[6:8], 16) if len(value) == 8 else 255
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16), alpha


@functools.lru_cache(maxsize=4)
def _felt(width: int, height: int) -> Image.Image:
    """The felt: a radial gradient from the top edge's centre, 110% of the picture."""
    ramp = Image.radial_gradient("L")  # 256x256, 0 at the centre, 255 at the edge
    big = ramp.resize((round(width * 2.2), round(height * 2.2)))
    left = (big.width - width) // 2
    shade = big.crop((left, big.height // 2, left + width, big.height // 2 + height))
    black, mid, white = (_rgba(c)[:3] for c in FELT_STOPS)
    return ImageOps.colorize(shade, black, white, mid, blackpoint=0, whitepoint=255, midpoint=115)


@functools.lru_cache(maxsize=4)
def _back(w: int, h: int, rx: int) -> Image.Image:
    """A card's back: diagonal stripes in its rounded outline."""
    tile = Image.new("RGBA", (w, h), BACK_STRIPES[0])
    draw = ImageDraw.Draw(tile)
    step = 10 * SCALE * 1.41
    for n in range(-h // int(step) - 2, w // int(step) + 2):
        x = n * step
        draw.polygon(
            [(x, 0), (x + step / 2, 0), (x + step / 2 + h, h), (x + h, h)], fill=BACK_STRIPES[1]
        )
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, w - 1, h - 1), rx, fill=255)
    tile.putalpha(mask)
    return tile


class _Painter:
    """Paints shapes on an RGB image ``SCALE`` times the picture's size."""

    def __init__(self, image: Image.Image) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image, "RGBA")

    def shape(self, shape: Shape, dx: float = 0, dy: float = 0) -> None:
        if isinstance(shape, Group):
            for inner in shape.shapes:
                self.shape(inner, dx + shape.x, dy + shape.y)
        elif isinstance(shape, Words):
            self.words(shape, dx, dy)
        elif isinstance(shape, Suit):
            self.suit(shape, dx, dy)
        else:
            self.box(shape, dx, dy)

    def box(self, box: Box, dx: float, dy: float) -> None:
        s = SCALE
        x0, y0 = (box.x + dx) * s, (box.y + dy) * s
        x1, y1 = x0 + box.w * s - 1, y0 + box.h * s - 1
        if box.fill == BACK:
            back = _back(round(box.w * s), round(box.h * s), round(box.rx * s))
            self.image.paste(back, (round(x0), round(y0)), back)
        elif box.fill != FELT:
            self.draw.rounded_rectangle((x0, y0, x1, y1), box.rx * s, fill=_rgba(box.fill))
        if not box.stroke:
            return
        width = max(1, round(box.stroke_w * s))
        colour = _rgba(box.stroke)
        if not box.dash:
            self.draw.rounded_rectangle((x0, y0, x1, y1), box.rx * s, outline=colour, width=width)
            return
        dash, gap = 6 * s, 4 * s
        for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)),
                     ((x0, y1), (x0, y0))):  # fmt: skip
            length = abs(b[0] - a[0]) + abs(b[1] - a[1])
            ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
            at = box.rx * s
            while at < length - box.rx * s:
                end = min(at + dash, length - box.rx * s)
                self.draw.line(
                    (a[0] + ux * at, a[1] + uy * at, a[0] + ux * end, a[1] + uy * end),
                    fill=colour,
                    width=width,
                )
                at += dash + gap

    def words(self, words: Words, dx: float, dy: float) -> None:
        font = _font(words.size * SCALE, words.weight >= 600)
        anchor = {"middle": "ms", "end": "rs"}.get(words.anchor, "ls")
        xy = ((words.x + dx) * SCALE, (words.y + dy) * SCALE)
        self.draw.text(xy, words.text, font=font, fill=_rgba(words.fill), anchor=anchor)

    def suit(self, suit: Suit, dx: float, dy: float) -> None:
        k = suit.size * SCALE / 100
        x0, y0 = (suit.x + dx) * SCALE, (suit.y + dy) * SCALE
        colour = _rgba(suit.fill)
        circles, polygons = SUITS[suit.suit]
        for cx, cy, r in circles:
            box = (x0 + (cx - r) * k, y0 + (cy - r) * k, x0 + (cx + r) * k, y0 + (cy + r) * k)
            self.draw.ellipse(box, fill=colour)
        for points in polygons:
            pairs = [(x0 + points[i] * k, y0 + points[i + 1] * k) for i in range(0, len(points), 2)]
            self.draw.polygon(pairs, fill=colour)


def png(width: int, height: int, shapes: list[Shape]) -> bytes:
    """The picture as PNG bytes (RGB, ``width`` x ``height``); the first shape is
    taken to be the felt under everything."""
    image = _felt(width * SCALE, height * SCALE).copy()
    painter = _Painter(image)
    for shape in shapes:
        painter.shape(shape)
    out = io.BytesIO()
    image.resize((width, height), Image.Resampling.LANCZOS).save(out, "PNG", compress_level=6)
    return out.getvalue()
