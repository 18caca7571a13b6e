"""Screenshots of a race against two ghosts, and its results.

Run ``python tests/web/screenshots_ghost.py [--out DIR]`` (default
``/tmp/shots-ghost``). Starts a bundled redis-server and a real server; two
racers (websockets from this script) race a deal, Ana to a win, Cy giving up;
then a page races that replay against both of them as ghosts ("Race this"),
shot mid-race and on its results at 1920x1080, 1366x768, 390x844 and
360x740, in English and Croatian.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path

from canfield.solver import solve
from canfield_bench.processes import ServerProcess
from canfield_server.storage.embedded_redis import EmbeddedRedis
from pages import WireRacer, give_up, launch, new_page, screenshot_command, wire_race
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
        time.sleep(pause_s)
        if move == "G":
            racer.act(type="give_up")
        else:
            racer.act(type="move", move=move)


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
            racing = wire_race(server.ws_url, ["Ana", "Cyrus the Great"], DEAL)
            room, (ana, cy) = stack.enter_context(racing)
            cy_line = [*line[: len(line) // 3], "G"]
            other = threading.Thread(target=play, args=(cy, cy_line, 0.2))
            other.start()
            play(ana, line, 0.12)
            other.join()
            finished = ana.next_of("finished")
            stack.close()  # the recording's sockets: done with
            replay = str(finished["replay"]).rsplit("/", 1)[-1]
            ids = ",".join(r["id"] for r in finished["standings"])
            with sync_playwright() as pw:
                browser = launch(pw)
                for lang in ("en", "hr"):
                    for size, (width, height) in SIZES.items():
                        small = width < 500
                        page = new_page(
                            browser,
                            locale="hr-HR" if lang == "hr" else "en-US",
                            viewport={"width": width, "height": height},
                            has_touch=small,
                            is_mobile=small,
                            reduced_motion="reduce",  # lanes in place, not caught mid-slide
                        )
                        page.goto(f"{server.http_url}/?ghost={replay}&racers={ids}&lang={lang}")
                        expect(page.locator("#view-race #board .board")).to_be_visible()
                        page.wait_for_timeout(5000)  # the ghosts are well on their way
                        path = out / f"ghost-race-{lang}-{size}.png"
                        page.screenshot(path=str(path))
                        saved.append(path)
                        give_up(page)
                        expect(page.locator("#ghost-compare li")).to_have_count(2)
                        page.wait_for_timeout(600)
                        path = out / f"ghost-results-{lang}-{size}.png"
                        page.screenshot(path=str(path))
                        saved.append(path)
                        page.context.close()
                browser.close()
        finally:
            server.stop()
    return saved


if __name__ == "__main__":
    sys.exit(screenshot_command(__doc__, shoot, Path("/tmp/shots-ghost")))
