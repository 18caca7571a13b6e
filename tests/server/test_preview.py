"""The picture and the words a shared replay link previews with, rendered in
process from a replay as ``GET /replay/<id>`` serves it (the server's routes
are tested end to end in ``tests/web/test_replay_page_in_browser.py``)."""

from __future__ import annotations

import asyncio
import io
import threading
import xml.etree.ElementTree as ET
from typing import Any, cast

from canfield import Game
from canfield.solver import solve
from canfield_server.transport.picture_cache import PictureCache
from canfield_server.transport.preview import (
    BOARD_X,
    BOARD_Y,
    CW,
    HEIGHT,
    WIDTH,
    render_png,
    render_svg,
)
from canfield_server.transport.replay_words import language, summarize
from canfield_server.transport.share import preview_head
from PIL import Image

#: the solver wins this one in milliseconds
WINNABLE_DEAL = "CF1-D3-AAADKOH"
SVG = "{http://www.w3.org/2000/svg}"


def room_replay(line: list[str], name: str = "Ana & Bo's <b>") -> dict[str, Any]:
    """A room race's replay: the first racer played ``line``, the second gave up."""
    won = len(line) > 100  # the solver's line
    return {
        "kind": "room",
        "id": "r-AAAAAAAAAAAAAAAA",
        "room": "QX7P",
        "deal": WINNABLE_DEAL,
        "draw": 3,
        "par": None,
        "at": 1_931_250_000_000,
        "players": [
            {"rank": 1, "id": "a1", "name": name, "score": 0, "on_foundations": 52 if won else 1,
             "moves": len(line), "status": "won" if won else "gave_up", "time_ms": 192_000,
             "moves_list": line},
            {"rank": 2, "id": "b2", "name": "Mo", "score": 0, "on_foundations": 1, "moves": 1,
             "status": "gave_up", "time_ms": 5_000, "moves_list": ["S", "G"]},
        ],
    }  # fmt: skip


def cards_in(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [g.attrib["data-card"] for g in root.iter(f"{SVG}g") if "data-card" in g.attrib]


def texts_in(svg: str) -> str:
    """The picture's words, its lines joined by spaces."""
    return " ".join(t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text"))


def test_the_picture_of_a_won_race_shows_its_final_foundations() -> None:
    line = solve(WINNABLE_DEAL, 30).moves
    race = room_replay(line)
    svg = render_svg(race, summarize(race, "en"))
    root = ET.fromstring(svg)  # well-formed XML, the name's markup escaped
    assert root.attrib["width"] == str(WIDTH) and root.attrib["height"] == str(HEIGHT)
    final = Game.replay(WINNABLE_DEAL, line).view()
    tops = [pile[-1] for pile in final["foundations"]]
    assert tops == ["6C", "6D", "6S", "6H"]
    assert cards_in(svg) == tops  # all 52 home: nothing else on the board
    texts = texts_in(svg)
    assert "Canfield Race" in texts
    assert "Ana & Bo's <b> wins!" in texts
    assert "All 52 cards home in 3:12" in texts
    assert "Room QX7P, draw 3, 2031-03-14" in texts


def test_a_race_left_midway_shows_the_board_its_player_saw_in_croatian() -> None:
    race = room_replay(["4-F", "R-3", "S"])
    view = Game.replay(WINNABLE_DEAL, ["4-F", "R-3", "S"]).view()
    svg = render_svg(race, summarize(race, "hr"))
    shown = cards_in(svg)
    seen = [*view["waste"]["fan"], view["reserve"]["top"]]
    seen += [pile[-1] for pile in view["foundations"] if pile]
    seen += [card for column in view["tableau"] for card in column]
    assert sorted(shown) == sorted(seen)  # no stock card, no reserve card under the top
    texts = texts_in(svg)
    assert "Nitko nije pobijedio" in texts
    assert "Najviše karata na temeljima: Ana & Bo's <b>, 1 od 52" in texts


def test_an_unreadable_line_still_draws_the_deal() -> None:
    race = room_replay(["W-F"])  # the waste is empty: not a legal move
    shown = cards_in(render_svg(race, summarize(race, "en")))
    assert sorted(shown) == sorted(["7C", "5S", "9D", "QH", "3C", "8C"])


def test_the_preview_tags_are_escaped_and_name_the_result() -> None:
    race = room_replay(solve(WINNABLE_DEAL, 30).moves, name='Ana "&" Bo')
    head = preview_head(summarize(race, "en"), "https://cards.example", "r-AAAAAAAAAAAAAAAA")
    assert "Ana &quot;&amp;&quot; Bo wins! - Canfield Race" in head
    assert '"&"' not in head
    assert 'content="https://cards.example/replays/r-AAAAAAAAAAAAAAAA.png"' in head
    assert '<meta property="og:image:type" content="image/png">' in head
    assert (
        'type="image/svg+xml" href="https://cards.example/replays/r-AAAAAAAAAAAAAAAA.svg"' in head
    )
    assert '<meta name="twitter:card" content="summary_large_image">' in head
    description = summarize(race, "en").description
    assert description == (
        'All 52 cards home in 3:12. Players: Ana "&" Bo and Mo. Room QX7P, draw 3, 2031-03-14.'
    )
    croatian = preview_head(summarize(race, "hr"), "https://x.example", "r-AAAAAAAAAAAAAAAA")
    assert "r-AAAAAAAAAAAAAAAA.png?lang=hr" in croatian and "pobjeđuje" in croatian


def test_the_language_is_the_asked_one_else_the_browsers() -> None:
    assert language("hr", "en-US") == "hr"
    assert language(None, "de-DE,hr;q=0.8,en;q=0.5") == "hr"
    assert language("fr", None) == "en"
    assert language(None, "") == "en"


def test_the_png_is_the_same_picture_painted() -> None:
    line = solve(WINNABLE_DEAL, 30).moves
    race = room_replay(line)
    painted = render_png(race, summarize(race, "en"))
    assert painted[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(painted)).convert("RGB")
    assert image.size == (WIDTH, HEIGHT)

    def pixel(x: float, y: float) -> tuple[int, int, int]:
        r, g, b = cast(tuple[int, int, int], image.getpixel((round(x), round(y))))
        return r, g, b

    felt = pixel(WIDTH // 2, 10)
    assert felt[1] > felt[0] and felt[1] > felt[2]  # green felt
    # the first foundation (column 3 of the board) holds a card: white paper
    paper = pixel(BOARD_X + 3 * (CW + 12) + CW / 2, BOARD_Y + 6)
    assert min(paper) > 240
    # the stock is empty (all 52 home): its slot shows the felt through it
    slot = pixel(BOARD_X + CW / 2, BOARD_Y + 60)
    assert max(slot) < 200
    assert 20_000 < len(painted) < 400_000


async def test_pictures_are_painted_once_kept_within_bounds_and_refused_when_too_many_wait() -> (
    None
):
    pictures = PictureCache(entries=2, at_once=1, waiting=2)
    painted: list[str] = []

    def paint(name: str) -> bytes:
        painted.append(name)
        return name.encode()

    assert await pictures.get("a", lambda: paint("a")) == b"a"
    assert await pictures.get("a", lambda: paint("a")) == b"a"
    assert painted == ["a"]  # kept
    await pictures.get("b", lambda: paint("b"))
    await pictures.get("c", lambda: paint("c"))
    assert len(pictures) == 2  # "a", the least recently served, dropped
    await pictures.get("a", lambda: paint("a"))
    assert painted == ["a", "b", "c", "a"]

    gate = threading.Event()

    def slow(name: str) -> bytes:
        gate.wait(30)
        return name.encode()

    first = asyncio.create_task(pictures.get("x", lambda: slow("x")))
    second = asyncio.create_task(pictures.get("y", lambda: slow("y")))
    while pictures._queued < 2:
        await asyncio.sleep(0)
    assert await pictures.get("z", lambda: slow("z")) is None  # two wait already: refused
    gate.set()
    assert await asyncio.wait_for(asyncio.gather(first, second), 30) == [b"x", b"y"]
