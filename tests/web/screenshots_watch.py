"""Screenshots of the spectator screen during a race of three racers.

Run ``python tests/web/screenshots_watch.py [--out DIR]`` (default
``/tmp/shots-watch``). Starts a bundled redis-server and a real server; three
racers (websockets from this script) race the same deal at different paces,
one of them to a win, one gives up; a spectator page that joined after the
start is shot at 1920x1080, 1366x768, 390x844 and 360x740, in English and
Croatian, normal and in big-screen mode.
"""

from __future__ import annotations

import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from canfield.solver import solve
from canfield_bench.processes import ServerProcess
from canfield_server.storage.embedded_redis import EmbeddedRedis
from pages import WireRacer, launch, new_page, screenshot_command, wire_race
from playwright.sync_api import expect, sync_playwright

#: the solver wins it in milliseconds: a line to 52 cards
DEAL = "CF1-D3-AAADKOH"
SIZES = {
    "1920x1080": (1920, 1080),
    "1366x768": (1366, 768),
    "390x844": (390, 844),
    "360x740": (360, 740),
}


def play(racer: WireRacer, line: list[str], pause_s: float) -> None:
    for move in line:
        racer.act(type="move", move=move)
        time.sleep(pause_s)


def shoot(out: Path) -> list[Path]:
    saved: list[Path] = []
    line = solve(DEAL, 30).moves
    assert line, "the solver wins this deal"
    with (
        tempfile.TemporaryDirectory() as tmp,
        EmbeddedRedis(Path(tmp) / "redis") as redis_server,
        ExitStack() as stack,
    ):
        env = {"CANFIELD_COUNTDOWN_S": "0.3", "CANFIELD_RATE_PER_S": "1000"}
        server = ServerProcess(redis_server.url, Path(tmp) / "srv", env=env).start()
        try:
            racing = wire_race(server.ws_url, ["Ana", "Bob", "Cyrus the Great"], DEAL)
            room, (ana, bob, cy) = stack.enter_context(racing)
            third = len(line) // 3
            play(ana, line[:third], 0.05)
            play(bob, line[: third // 2], 0.05)
            with sync_playwright() as pw:
                browser = launch(pw)
                page = new_page(browser, viewport={"width": 1920, "height": 1080})
                page.goto(f"{server.http_url}/r/{room}")
                page.fill("#name", "Big screen")
                page.click("#watch")
                expect(page.locator("#view-race")).to_be_visible()
                play(ana, line[third : 2 * third], 0.03)
                play(cy, line[:third], 0.03)
                bob.act(type="give_up")
                play(ana, line[2 * third :], 0.0)  # Ana wins
                expect(page.locator("#watch-feed .feed-item")).to_have_count(2)
                for lang in ("en", "hr"):
                    page.goto(f"{server.http_url}/r/{room}?lang={lang}")  # TV mode off
                    expect(page.locator("#view-race")).to_be_visible()
                    for big in (False, True):
                        page.set_viewport_size({"width": 1920, "height": 1080})  # has the toggle
                        toggle = page.locator("#big-screen")
                        if toggle.get_attribute("aria-pressed") != str(big).lower():
                            toggle.click()
                        for size, (width, height) in SIZES.items():
                            page.set_viewport_size({"width": width, "height": height})
                            page.wait_for_timeout(400)
                            path = out / f"watch-{lang}-{size}{'-big' if big else ''}.png"
                            page.screenshot(path=str(path))
                            saved.append(path)
                            if size.startswith(("390", "360")) and not big:
                                full = out / f"watch-{lang}-{size}-full.png"
                                page.screenshot(path=str(full), full_page=True)
                                saved.append(full)
                browser.close()
        finally:
            server.stop()
    return saved


if __name__ == "__main__":
    sys.exit(screenshot_command(__doc__, shoot, Path("/tmp/shots-watch")))
