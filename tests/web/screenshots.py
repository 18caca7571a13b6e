"""Save screenshots of the web client for review: ``python tests/web/screenshots.py``.

Starts a bundled redis-server and a real server, plays a short race in
two browsers (one desktop, one phone-sized) and writes PNGs to
``./screenshots/`` (git-ignored): home, lobby, board (desktop and
390x844 phone), spectator view and results; then, in English and Croatian at
1920x1080 and 390x844: the lobby of a best-of-3 room, the spectator's view
(race chart and standings), a player who is done (place and chart), the
results (winner, series, race chart) for a player and a spectator, and How to
play.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from canfield import Game
from canfield_bench.processes import ServerProcess
from canfield_server.storage.embedded_redis import EmbeddedRedis
from pages import (
    DESKTOP,
    PHONE,
    create_room,
    give_up,
    join_by_link,
    launch,
    leaderboard_row,
    new_page,
    set_deal,
    tap_or_draw,
    wait_board,
)
from playwright.sync_api import Browser, Page, expect, sync_playwright

DEAL = "CF1-D3-AAAAACL"


def autoplay(page: Page, name: str, actions: int) -> None:
    """Play like a hurried human: tap what the engine says goes somewhere, else draw."""
    game = Game.deal(DEAL)
    for done in range(1, actions + 1):
        tap_or_draw(page, game)
        expect(leaderboard_row(page, name).locator("td.c-moves")).to_have_text(str(done))


#: saves a screenshot of the page under the name
Save = Callable[[Page, str], None]


def shoot(base_url: str, out: Path) -> list[Path]:
    saved: list[Path] = []

    def save(page: Page, name: str) -> None:
        path = out / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        saved.append(path)

    with sync_playwright() as pw:
        browser = launch(pw)
        host = new_page(browser, **DESKTOP)
        host.goto(base_url + "/")
        host.fill("#name", "Ana")
        save(host, "home")
        room = create_room(host, base_url, "Ana")
        phone = new_page(browser, **PHONE)
        join_by_link(phone, base_url, room, "Marko")
        watcher = new_page(browser, viewport={"width": 1280, "height": 720})
        join_by_link(watcher, base_url, room, "Big screen", watch=True)
        set_deal(host, DEAL)
        phone.click("#ready")
        host.wait_for_selector("#players li .ready-mark.on")
        save(host, "lobby")
        save(phone, "lobby-phone")
        host.click("#start")
        wait_board(host)
        wait_board(phone)
        autoplay(host, "Ana", 40)
        autoplay(phone, "Marko", 25)
        save(host, "board-desktop")
        save(phone, "board-phone")
        save(watcher, "spectator")
        source = host.locator("#board .column .card.source").last
        box = source.bounding_box()
        host.mouse.move(box["x"] + 20, box["y"] + 10)
        host.mouse.down()
        host.mouse.move(box["x"] + 60, box["y"] + 120, steps=4)
        save(host, "board-dragging")
        host.mouse.move(box["x"] + 20, box["y"] + 10, steps=2)
        host.mouse.up()
        for page in (host, phone):
            give_up(page)
        host.wait_for_selector("#view-results:not([hidden])")
        phone.wait_for_selector("#view-results:not([hidden])")
        host.click("#rp-forward")
        host.click("#rp-forward")
        save(host, "results")
        save(phone, "results-phone")
        for lang in ("en", "hr"):
            shoot_boards(browser, base_url, lang, save)
        for lang in ("en", "hr"):
            for size, options in SIZES.items():
                shoot_story(browser, base_url, lang, size, options, save)
        browser.close()
    return saved


SIZES = {
    "1920": {"viewport": {"width": 1920, "height": 1080}},
    "390": PHONE,
}


def shoot_story(
    browser: Browser, base_url: str, lang: str, size: str, options: dict[str, Any], save: Save
) -> None:
    """One best-of-3 room seen in one language and size: lobby, race, results, rules."""
    locale = {"en": "en-US", "hr": "hr-HR"}[lang]
    host = new_page(browser, locale=locale, **options)
    room = create_room(host, base_url, "Ana")
    guest = new_page(browser, locale=locale)
    join_by_link(guest, base_url, room, "Marko")
    watcher = new_page(browser, locale=locale, **options)
    join_by_link(watcher, base_url, room, "Big screen", watch=True)
    host.locator("#room-settings select[name=best_of]").select_option("3")
    set_deal(host, DEAL)
    guest.click("#ready")
    host.wait_for_selector("#players li .ready-mark.on")
    host.wait_for_selector("#lobby-series .series")
    save(host, f"lobby-{lang}-{size}")
    host.click("#start")
    wait_board(host)
    wait_board(guest)
    autoplay(host, "Ana", 30)
    autoplay(guest, "Marko", 18)
    give_up(host)  # on a phone behind the More button
    host.wait_for_selector("#race-watch .finish-card:not([hidden])")
    save(host, f"done-{lang}-{size}")
    save(watcher, f"spectator-{lang}-{size}")
    give_up(guest)
    for page in (host, watcher):
        page.wait_for_selector("#view-results:not([hidden]) #results-chart svg")
    save(host, f"results-{lang}-{size}")
    save(watcher, f"results-spectator-{lang}-{size}")
    host.goto(base_url + "/#rules")
    host.wait_for_selector("dialog#howto[open]")
    save(host, f"rules-{lang}-{size}")
    for page in (host, guest, watcher):
        page.context.close()


BOARD_SIZES = {
    "1920x1080": (1920, 1080),
    "1366x768": (1366, 768),
    "390x844": (390, 844),
    "360x740": (360, 740),
}


def shoot_boards(browser: Browser, base_url: str, lang: str, save: Save) -> None:
    """The race board at each size (phones as phones) mid-race: board-<lang>-<size>;
    a phone's lobby (Start in view), a card lifted by keyboard, the four-colour deck."""
    locale = {"en": "en-US", "hr": "hr-HR"}[lang]
    still = "() => document.getAnimations().every((a) => a.playState !== 'running')"
    for size, (width, height) in BOARD_SIZES.items():
        phone = width < 500
        options: dict[str, Any] = {"viewport": {"width": width, "height": height}}
        if phone:
            options.update(has_touch=True, is_mobile=True)
        page = new_page(browser, locale=locale, **options)
        create_room(page, base_url, "Ana")
        if phone:
            save(page, f"lobby-start-{lang}-{size}")
        set_deal(page, DEAL)
        page.click("#start")
        wait_board(page)
        expect(page.locator("#countdown")).to_be_hidden()
        autoplay(page, "Ana", 24)
        page.wait_for_function(still)  # the last draw has landed
        save(page, f"board-{lang}-{size}")
        if size in ("1366x768", "360x740"):
            page.locator("#board .column .card.source").last.focus()
            page.keyboard.press("Enter")
            expect(page.locator("#board .card.picked")).to_have_count(1)
            save(page, f"board-keys-{lang}-{size}")
            page.keyboard.press("Escape")
        if size == "390x844":
            page.click("#settings summary")
            page.check("#pref-four")
            save(page, f"board-settings-{lang}-{size}")
            page.click("#race-clock")  # a click outside closes the menu
            save(page, f"board-four-colour-{lang}-{size}")
        page.context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("screenshots"))
    parser.add_argument("--url", help="use a running server instead of starting one")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.url:
        saved = shoot(args.url.rstrip("/"), args.out)
    else:
        with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp) / "redis") as redis:
            server = ServerProcess(redis.url, Path(tmp) / "server").start()
            try:
                saved = shoot(server.http_url, args.out)
            finally:
                server.stop()
    for path in saved:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
