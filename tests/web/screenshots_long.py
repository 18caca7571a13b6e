"""Screenshots of a room race with a 30-card column, three racers and a spectator.

Run ``python tests/web/screenshots_long.py [--out DIR]`` (default
``/tmp/shots-long``). Starts a bundled redis-server and a real server; four
pages in one room (Ana hosts and shows the racers' boards to watchers, Bob and
"Cyrus the Great" race, a spectator watches). Ana plays a line the engine
found that builds a 30-card column (through the board's own keys), Bob puts
cards home, Cyrus does nothing: Ana and Cyrus tie for second. Each page is
shot mid-race and on the results (Ana's replay at its end, her long column on
a read-only board) at 1920x1080, 1366x768, 390x844 and 360x740, in English
and Croatian: ``mid-<who>-<lang>-<size>.png``, ``results-<who>-<lang>-<size>.png``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from canfield import Game
from canfield_bench.distance import PLAY, line_of
from pages import (
    SETTLE,
    create_room,
    give_up,
    join_by_link,
    launch,
    new_page,
    pick_language,
    quick_server,
    screenshot_command,
    set_deal,
    tap_or_draw,
    wait_board,
)
from playwright.sync_api import Page, expect, sync_playwright

DEAL = "CF1-D3-AAADKOH"
#: found by a beam search over the engine's legal moves (no card home): column 2
#: ends with 30 cards, king to ace and on round again
LINE = (
    "S S S S W-2 W-4 4:2-1 W-1 R-3 S S S S W-3 W-3 S S W-2 S W-3 S S S S S W-3 S S W-2 S "
    "W-2 W-2 W-1 S W-4 3:6-4 S S W-4 1:5-4 S S S S W-4 S W-4 3-4 W-2 4:17-2 W-2 S W-4 "
    "2:25-4 S S S S W-2 S W-2 4:27-2"
).split()
SIZES = {
    "1920x1080": (1920, 1080),
    "1366x768": (1366, 768),
    "390x844": (390, 844),
    "360x740": (360, 740),
}


def shoot_all(pages: dict[str, Page], scene: str, out: Path) -> list[Path]:
    """Every page at every size, in both languages (full pages: a phone's scrolls)."""
    saved = []
    for lang in ("en", "hr"):
        for page in pages.values():
            pick_language(page, lang)
        for size, (width, height) in SIZES.items():
            for who, page in pages.items():
                page.set_viewport_size({"width": width, "height": height})
                page.evaluate(SETTLE)
                path = out / f"{scene}-{who}-{lang}-{size}.png"
                page.screenshot(path=str(path), full_page=True)
                saved.append(path)
    return saved


def shoot(out: Path) -> list[Path]:
    assert max(map(len, Game.replay(DEAL, LINE).tableau)) == 30
    with (
        tempfile.TemporaryDirectory() as tmp,
        quick_server(Path(tmp)) as server,
        sync_playwright() as pw,
    ):
        base = server.http_url
        browser = launch(pw)
        ana = new_page(browser)
        room = create_room(ana, base, "Ana")
        bob, cy, tv = new_page(browser), new_page(browser), new_page(browser)
        join_by_link(bob, base, room, "Bob")
        join_by_link(cy, base, room, "Cyrus the Great")
        join_by_link(tv, base, room, "Big screen", watch=True)
        set_deal(ana, DEAL)
        ana.locator('#room-settings input[name="spectator_boards"]').check()
        for page in (bob, cy):
            page.click("#ready")
        expect(ana.locator("#players .ready-mark.on")).to_have_count(2)
        ana.click("#start")
        for page in (ana, bob, cy):
            wait_board(page)
        expect(ana.locator("#countdown")).to_be_hidden()
        ana.evaluate(PLAY, [line_of(DEAL, LINE).steps, None])
        game = Game.deal(DEAL)
        for _ in range(25):
            tap_or_draw(bob, game)
        pages = {"ana": ana, "bob": bob, "cy": cy, "tv": tv}
        saved = shoot_all(pages, "mid", out)
        for page in (bob, ana, cy):
            give_up(page)
        for page in pages.values():
            page.wait_for_selector("#view-results:not([hidden])")
        ana.click("#rp-last")  # her replay at its end: the long column on a read-only board
        saved += shoot_all(pages, "results", out)
        browser.close()
    return saved


if __name__ == "__main__":
    sys.exit(screenshot_command(__doc__, shoot, Path("/tmp/shots-long")))
