"""Screenshots of the daily race, My races and replay pages.

Run ``python tests/web/screenshots_daily.py``.

Starts a bundled redis-server and a real server on a fixed test day
(``CANFIELD_DAILY_DATE``); a few players (Python clients) play that day's
deals, one of them to a win along the solver's line; then the next day starts
on the same Redis and address. For each language (English, Croatian) and size
(1920x1080, 390x844) a browser with its own identity, which played yesterday,
opens /daily (not played yet: the standing, yesterday's deal code and
winners, the streak), plays a few moves (the board), gives up (its result and
row), then /me (stats, chart, history) and yesterday's replay. PNGs go to
``./screenshots/`` (git-ignored).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

import redis
from canfield import Game, Move
from canfield.solver import solve
from canfield_bench.processes import ServerProcess, free_port
from canfield_client.client import RaceClient
from canfield_server.storage.embedded_redis import EmbeddedRedis
from pages import PHONE, launch, new_page, tap_or_draw, tappable_moves
from playwright.sync_api import Page, expect, sync_playwright

DAY = "2031-03-14"
NEXT = "2031-03-15"
SIZES = {"1920": {"viewport": {"width": 1920, "height": 1080}}, "390": PHONE}
LANGS = {"en": "en-US", "hr": "hr-HR"}


def env(date: str) -> dict[str, str]:
    # the winner sends the solver's whole line at once: no rate limit in the way
    limits = {"CANFIELD_RATE_PER_S": "100000", "CANFIELD_RATE_BURST": "100000"}
    # its players are new identities, ranked here to show a standing with places
    ranked = {"CANFIELD_DAILY_RANKED_AFTER_DAYS": "0"}
    # its winner plays the solver's line: no integrity signals, or it would be
    # shown under review (tests/web/test_daily_fair_play_in_browser.py shows that)
    unjudged = {"CANFIELD_INTEGRITY_CALLS": "0"}
    return {
        "CANFIELD_DAILY_DATE": date,
        "CANFIELD_DAILY_SECRET": "screenshots",
        **limits,
        **ranked,
        **unjudged,
    }


def code_of(server: ServerProcess, date: str, draw: int) -> str:
    code = redis.Redis.from_url(server.redis_url).get("cf:{dly:" + f"{date}:{draw}" + "}:code")
    assert isinstance(code, bytes), f"no daily deal stored for {date} draw {draw}"
    return code.decode()


async def winner(server: ServerProcess, date: str, name: str, token: str | None) -> str:
    """A daily race won along the solver's line (the deal is known once started)."""
    async with RaceClient(server.ws_url) as client:
        await client.identify(token)
        await client.daily(name, 3)
        for move in solve(code_of(server, date, 3), 20).moves or []:
            await client.move(move)
        return client.identity_token or ""


async def greedy(
    server: ServerProcess, date: str, name: str, actions: int, token: str | None
) -> str:
    """Tap what the engine says goes somewhere, else draw; give up after `actions`."""
    async with RaceClient(server.ws_url) as client:
        await client.identify(token)
        await client.daily(name, 3)
        game = Game.deal(code_of(server, date, 3))
        for _ in range(actions):
            move = next(tappable_moves(game), None) or Move.parse("S")
            await client.move(str(move))
            game.push(move)
        await client.give_up()
        return client.identity_token or ""


def fill_day(server: ServerProcess, date: str, tokens: Mapping[str, str | None]) -> dict[str, str]:
    """Everyone in `tokens` plays the day's draw-3 deal (Petra wins); returns their tokens."""

    async def run() -> dict[str, str]:
        out = {"Petra": await winner(server, date, "Petra", tokens.get("Petra"))}
        for i, name in enumerate(n for n in tokens if n != "Petra"):
            shown = "Ana" if "-" in name else name  # the browsers' player
            out[name] = await greedy(server, date, shown, 10 + 7 * i, tokens.get(name))
        return out

    return asyncio.run(run())


def play_in_page(page: Page, code: str, actions: int) -> None:
    game = Game.deal(code)
    for _ in range(actions):
        tap_or_draw(page, game, "#daily-board")
        expect(page.locator("#daily-board .stock .count")).to_have_text(str(len(game.stock)))


def shoot(out: Path) -> list[Path]:
    saved: list[Path] = []

    def save(page: Page, name: str) -> None:
        path = out / f"{name}.png"
        page.wait_for_timeout(300)  # the board's last card animation (200 ms) lands
        page.screenshot(path=str(path), full_page=True)
        saved.append(path)

    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp) / "redis") as store:
        port = free_port()
        server = ServerProcess(store.url, Path(tmp) / "day1", env=env(DAY), port=port).start()
        combos = [(lang, size) for lang in LANGS for size in SIZES]
        browsers = {f"{lang}-{size}": None for lang, size in combos}
        try:
            names = {"Petra": None, "Marko": None, "Iva": None, **browsers}
            tokens = fill_day(server, DAY, names)
        finally:
            server.stop()
        server = ServerProcess(store.url, Path(tmp) / "day2", env=env(NEXT), port=port).start()
        try:
            today = {name: tokens[name] for name in ("Petra", "Marko", "Iva")}
            fill_day(server, NEXT, today)
            code = code_of(server, NEXT, 3)
            with sync_playwright() as pw:
                browser = launch(pw)
                for lang, size in combos:
                    token = tokens[f"{lang}-{size}"]
                    page = new_page(browser, locale=LANGS[lang], **SIZES[size])
                    stored = json.dumps(json.dumps({"token": token}))
                    page.context.add_init_script(
                        f"localStorage.setItem('cfr.identity', {stored});"
                        f"localStorage.setItem('cfr.pref.lang', {json.dumps(json.dumps(lang))});"
                        "localStorage.setItem('cfr.name', '\"Ana\"');"
                    )
                    base = server.http_url
                    page.goto(base + "/daily")
                    expect(page.locator("#yesterday-winners li").first).to_be_visible()
                    expect(page.locator("#standing tbody tr").nth(2)).to_be_visible()
                    save(page, f"daily-{lang}-{size}")
                    page.click("#daily-play")
                    expect(page.locator("#daily-board .board")).to_be_visible()
                    play_in_page(page, code, 14)
                    save(page, f"daily-playing-{lang}-{size}")
                    page.click("#daily-give-up")
                    page.click("#daily-give-up")
                    expect(page.locator("#daily-result")).to_be_visible()
                    expect(page.locator("#standing tr.me")).to_be_visible()
                    save(page, f"daily-done-{lang}-{size}")
                    page.goto(base + "/me")
                    expect(page.locator("#me-history tbody tr")).to_have_count(2)
                    save(page, f"me-{lang}-{size}")
                    href = page.locator("#me-history a.replay-link").first.get_attribute("href")
                    page.goto(base + href)
                    expect(page.locator("#rp-moves button").first).to_be_visible()
                    page.click("#rp-forward")
                    for _ in range(11):
                        page.click("#rp-forward")
                    save(page, f"replay-{lang}-{size}")
                    page.context.close()
                browser.close()
        finally:
            server.stop()
    return saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("screenshots"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for path in shoot(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
