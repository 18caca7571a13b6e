"""Screenshots of a challenge link's page, and its preview pictures.

Run ``python tests/web/screenshots_challenge.py [--out DIR]``.

Starts a bundled redis-server and a real server; Ana wins a deal along the
solver's line (an action every 0.15 s) and makes a challenge link of it; three
takers race her ghost over real websockets: Bo wins faster, Cy plays a few
moves and gives up, Dee gives up at once. Then for each language (English,
Croatian) and size (1920x1080, 1366x768, 390x844, 360x740) a browser opens the
link. The link's PNG and SVG previews are saved beside them, and the replay's
(``/replays/<id>.png`` and ``.svg``). Files go to ``DIR`` (default
``/tmp/shots-challenge``).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

import websockets
from canfield.solver import solve
from pages import launch, new_page, quick_server, screenshot_command
from playwright.sync_api import expect, sync_playwright

DEAL = "CF1-D3-AAADKOH"
SIZES = [(1920, 1080), (1366, 768), (390, 844), (360, 740)]


class Wire:
    """A websocket client speaking the protocol's JSON, one reply at a time."""

    def __init__(self, ws: Any) -> None:
        self.ws, self.seq = ws, 0

    async def expect(self, kind: str) -> dict[str, Any]:
        while True:
            msg: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), 60))
            if msg["type"] == kind:
                return msg
            if msg["type"] == "error":
                raise RuntimeError(msg)

    async def ask(self, kind: str, **msg: Any) -> dict[str, Any]:
        await self.ws.send(json.dumps(msg))
        return await self.expect(kind)

    async def act(self, move: str) -> None:
        self.seq += 1
        kind = "give_up" if move == "G" else "move"
        fields = {} if move == "G" else {"move": move}
        await self.ask("ack", type=kind, seq=self.seq, **fields)


async def race(ws_url: str) -> tuple[str, str]:
    """Ana's race and challenge, and three takers: (the challenge id, the replay id)."""
    line = solve(DEAL, 30).moves
    async with websockets.connect(ws_url) as ws:
        ana = Wire(ws)
        await ana.ask("identity", type="identify")
        await ana.ask("joined", type="create", name="Ana", settings={"deal": DEAL})
        await ana.ask("started", type="start", force=True)
        for move in line:
            await ana.act(move)
            await asyncio.sleep(0.15)
        finished = await ana.expect("finished")
        replay = finished["replay"].rsplit("/", 1)[1]
        me = next(r["id"] for r in finished["standings"] if r["name"] == "Ana")
        made = await ana.ask("challenge", type="challenge", replay=replay, player_id=me)
    for name, moves in (("Bo", line), ("Cy", ["S", "S", "S", "G"]), ("Dee", ["G"])):
        async with websockets.connect(ws_url) as ws:
            taker = Wire(ws)
            await taker.ask("identity", type="identify")
            await taker.ask("joined", type="take_challenge", challenge=made["id"], name=name)
            await taker.expect("started")
            for move in moves:
                await taker.act(move)
            await taker.expect("finished")
    return made["id"], replay


def save(url: str, path: Path) -> Path:
    with urllib.request.urlopen(url, timeout=30) as response:
        path.write_bytes(response.read())
    return path


def shoot(out: Path) -> list[Path]:
    saved: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp, quick_server(Path(tmp)) as server:
        challenge, replay = asyncio.run(race(server.ws_url))
        base = server.http_url
        for lang in ("en", "hr"):
            query = "" if lang == "en" else "?lang=hr"
            for kind in ("png", "svg"):
                saved.append(
                    save(
                        f"{base}/c/{challenge}.{kind}{query}",
                        out / f"challenge-preview-{lang}.{kind}",
                    )
                )
                saved.append(
                    save(
                        f"{base}/replays/{replay}.{kind}{query}",
                        out / f"replay-preview-{lang}.{kind}",
                    )
                )
        with sync_playwright() as p:
            browser = launch(p)
            for lang, locale in (("en", "en-US"), ("hr", "hr-HR")):
                for width, height in SIZES:
                    page = new_page(
                        browser, locale=locale, viewport={"width": width, "height": height}
                    )
                    page.goto(f"{base}/c/{challenge}?lang={lang}")
                    expect(page.locator("#ch-rows li")).to_have_count(3)
                    path = out / f"challenge-{lang}-{width}x{height}.png"
                    page.screenshot(path=str(path), full_page=True)
                    saved.append(path)
                    page.context.close()
            browser.close()
    return saved


if __name__ == "__main__":
    sys.exit(screenshot_command(__doc__ or "", shoot, Path("/tmp/shots-challenge")))
