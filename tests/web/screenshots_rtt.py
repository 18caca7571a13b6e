"""Screenshots of each racer's round trip: the lanes' signal icons and the results' column.

Run ``python tests/web/screenshots_rtt.py [--out DIR]`` (default
``/tmp/shots-rtt``). Starts a bundled redis-server and a real server probing
twice a second; Bob's page is near, Ana's goes through a delaying proxy (its
own process, loopback only) adding 200 ms to every round trip. Ana's page is
shot racing and on the results at 1920x1080, 1366x768, 390x844 and 360x740, in
English and Croatian.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from canfield_bench.processes import DelayProxy, ServerProcess
from canfield_server.storage.embedded_redis import EmbeddedRedis
from pages import (
    create_room,
    give_up,
    join_by_link,
    launch,
    new_page,
    pick_language,
    screenshot_command,
    set_deal,
)
from playwright.sync_api import Page, expect, sync_playwright

DEAL = "CF1-D3-AAADKOH"
SIZES = {
    "1920x1080": (1920, 1080),
    "1366x768": (1366, 768),
    "390x844": (390, 844),
    "360x740": (360, 740),
}


def shots(page: Page, out: Path, what: str) -> list[Path]:
    saved = []
    for lang in ("en", "hr"):
        pick_language(page, lang)
        for size, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(400)
            path = out / f"rtt-{what}-{lang}-{size}.png"
            page.screenshot(path=str(path))
            saved.append(path)
    pick_language(page, "en")
    return saved


def shoot(out: Path) -> list[Path]:
    saved: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp) / "redis") as redis_server:
        env = {"CANFIELD_COUNTDOWN_S": "0.3", "CANFIELD_RTT_PING_S": "0.5"}
        server = ServerProcess(redis_server.url, Path(tmp) / "srv", env=env).start()
        proxy = DelayProxy(server.port, 200, Path(tmp)).start()
        try:
            with sync_playwright() as pw:
                browser = launch(pw)
                bob = new_page(browser, viewport={"width": 1366, "height": 768})
                ana = new_page(browser, viewport={"width": 1366, "height": 768})
                room = create_room(bob, server.http_url, "Bob")
                set_deal(bob, DEAL)
                join_by_link(ana, proxy.http_url, room, "Ana")
                ana.click("#ready")
                expect(bob.locator("#players .ready-mark.on")).to_have_count(1)
                bob.click("#start")
                expect(ana.locator("#race-lb .lane .signal:not([hidden])")).to_have_count(2)
                ana.keyboard.press("Space")  # a draw: the lanes' tracks move a little
                saved += shots(ana, out, "race")
                give_up(bob)
                ana.set_viewport_size({"width": 1366, "height": 768})
                give_up(ana)
                expect(ana.locator("#final-lb td.c-rtt .signal:not([hidden])")).to_have_count(2)
                saved += shots(ana, out, "results")
                browser.close()
        finally:
            proxy.stop()
            server.stop()
    return saved


if __name__ == "__main__":
    sys.exit(screenshot_command(__doc__, shoot, Path("/tmp/shots-rtt")))
