"""What distance costs a racer: the same line played through a real page at
two extra round trips, through a delaying proxy (``delay_proxy.py``).

The page guesses the board of every action that turns up no hidden card and
shows it at once (``web/js/predict.js``); a draw, a reserve card or a column
refilled from the reserve turns one up, and costs one round trip. The aim:
the far run takes no longer than the near one plus one extra round trip per
reveal, plus a tenth of the near one.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from canfield import Game, Move
from canfield.cards import card_text

from canfield_bench.browser import launch
from canfield_bench.processes import DelayProxy, local_servers

__all__ = [
    "PLAY",
    "Line",
    "Run",
    "line_of",
    "picked_card",
    "reveals",
    "shown_cards",
    "solo_race",
    "run_distance",
    "report",
]


def shown_cards(view: dict[str, Any]) -> set[str]:
    """Every card a player's view shows (the server's ``board``)."""
    cards = {card for pile in view["foundations"] + view["tableau"] for card in pile}
    cards.update(view["waste"]["fan"], view["waste"].get("under", []))  # Draw 3's beneath
    if view["reserve"]["top"]:
        cards.add(view["reserve"]["top"])
    return cards


def reveals(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whether an action turned up a card the player's view did not show: the
    page cannot know that board before the server says it."""
    return bool(shown_cards(after) - shown_cards(before))


def picked_card(game: Game, move: Move) -> str:
    """The card a move picks up (the bottom card of a run)."""
    if move.src == "R":
        return card_text(game.reserve[-1])
    if move.src == "W":
        return card_text(game.waste[-1])
    if move.src == "F":
        return card_text(game.foundations[move.src_index][-1])
    return card_text(game.tableau[move.src_index][-move.count])


#: where a move's card lies, by its source
_PILES = {"R": ".reserve", "W": ".waste", "F": ".foundation"}


class Line(NamedTuple):
    """A line of moves as a player's hands make it on the page: ``steps`` for
    ``PLAY`` and how many of its moves turn up a card (``reveals``)."""

    steps: list[dict[str, Any]]
    reveals: int
    game: Game


def line_of(start: Game | str, moves: Sequence[str]) -> Line:
    """The steps of ``moves`` from ``start`` (a deal code or a position, not
    changed): a draw waits until the stock shows the count it had before it (the
    draws before it are on the board), a card's move until that card can be
    picked up; ``game`` is the position after the line."""
    game = Game.deal(start) if isinstance(start, str) else start.copy()
    steps: list[dict[str, Any]] = []
    turned = 0
    for text in moves:
        move = Move.parse(text)
        before = game.view()
        if move.src == "S":
            steps.append({"draw": True, "stock": before["stock"]["count"]})
        else:
            key = "f" if move.dst == "F" else str(move.dst_index + 1)
            pile, size = _PILES.get(move.src, ""), 0
            if move.src == "T":
                pile, size = f'[data-drop="T{move.src_index}"]', len(game.tableau[move.src_index])
            steps.append({"card": picked_card(game, move), "key": key, "pile": pile, "size": size})
        game.push(move)
        turned += reveals(before, game.view())
    return Line(steps, turned, game)


#: Plays steps on the race board through its own keyboard handlers, as fast as
#: the board lets a player (a card waits until it can be picked up where the
#: move takes it from, its column as long as the line has it; a draw until the
#: draws before it show), and returns the ms it took; with ``until``, until
#: that selector shows (the results of a won race).
PLAY = """async ([steps, until]) => {
    const root = document.querySelector('#board');
    const key = (el, name) =>
        el.dispatchEvent(new KeyboardEvent('keydown', { key: name, bubbles: true }));
    const seen = { subtree: true, childList: true, attributes: true, characterData: true };
    const when = (test) => new Promise((resolve) => {
        const found = test();
        if (found) return resolve(found);
        const watch = new MutationObserver(() => {
            const now = test();
            if (now) { watch.disconnect(); resolve(now); }
        });
        watch.observe(document.body, seen);
    });
    const stock = () => root.querySelector('.stock .count')?.textContent;
    const shown = (selector) => document.querySelector(selector)?.hidden === false;
    const begun = performance.now();
    for (const step of steps) {
        if (step.draw) {
            await when(() => stock() === String(step.stock));
            key(document.body, ' ');
            continue;
        }
        const el = await when(() => {
            const pile = [...root.querySelectorAll(step.pile)].find((p) =>
                p.querySelector(`.card.source[data-card="${step.card}"]`));
            const size = pile?.querySelectorAll('.card[data-card]').length;
            return pile && (!step.size || size === step.size)
                && pile.querySelector(`.card[data-card="${step.card}"]`);
        });
        el.focus();
        key(el, step.key);
        key(document.activeElement, 'Enter');
    }
    if (until) await when(() => shown(until));
    return performance.now() - begun;
}"""


#: the deal the benchmark races (its solver line: 270 actions, draws and all)
DEAL = "CF1-D3-AAAAAGH"
#: the server's settings for a line played as fast as the board allows: a short
#: countdown, and no message rate limit in its way (no person plays this fast)
SERVER_ENV = {
    "CANFIELD_COUNTDOWN_S": "0.3",
    "CANFIELD_RATE_PER_S": "1000",
    "CANFIELD_RATE_BURST": "1000",
}


def solo_race(page: Any, base: str, deal: str, name: str = "Ana") -> None:
    """On the page (Playwright's): create a room at ``base``, type ``deal`` in
    its settings, start, and wait until the countdown is over."""
    page.goto(base + "/")
    page.fill("#name", name)
    page.click("#create")
    page.check("#room-settings input[name=deal_kind][value=code]")
    page.fill("#room-settings input[name=deal_code]", deal)
    page.press("#room-settings input[name=deal_code]", "Enter")
    page.click("#start")
    page.wait_for_selector("#view-race:not([hidden]) #board .board")
    page.wait_for_selector("#countdown", state="hidden")


class Run(NamedTuple):
    rtt_ms: float
    seconds: float
    #: the page's median round trip as the server measured it and the results
    #: show it ("238 ms"; "" when the results show none)
    measured: str = ""


def play_at(
    browser: Any, server_port: int, rtt_ms: float, deal: str, line: Line, logs: Path
) -> Run:
    """The line played on a fresh page through a delaying proxy of ``rtt_ms``,
    from its first action to the results of the won race."""
    proxy = DelayProxy(server_port, rtt_ms, logs).start()
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.set_default_timeout(120_000)
    try:
        solo_race(page, proxy.http_url, deal)
        ms = page.evaluate(PLAY, [line.steps, "#view-results"])
        measured = page.locator("#final-lb td.c-rtt").first.inner_text().strip()
    finally:
        page.close()
        proxy.stop()
    return Run(rtt_ms, ms / 1000, measured if measured.endswith(" ms") else "")


def run_distance(
    rtts_ms: Sequence[float] = (0.0, 200.0), deal: str = DEAL
) -> tuple[Line, list[Run]]:
    """The solver's winning line of ``deal`` played through a real Chromium page
    once per extra round trip in ``rtts_ms``, on a server and Redis of its own."""
    from canfield.solver import solve
    from playwright.sync_api import sync_playwright

    moves = solve(deal, 60).moves
    if not moves:
        raise RuntimeError(f"the solver found no win for {deal}")
    line = line_of(deal, moves)
    with (
        local_servers(1, SERVER_ENV, prefix="canfield-distance-") as (_, [server]),
        tempfile.TemporaryDirectory(prefix="canfield-proxy-") as logs,
        sync_playwright() as playwright,
    ):
        browser = launch(playwright)
        try:
            runs = [play_at(browser, server.port, rtt, deal, line, Path(logs)) for rtt in rtts_ms]
        finally:
            browser.close()
    return line, runs


def report(line: Line, runs: Sequence[Run]) -> str:
    """The figures: each run's time (and the round trip the server measured), and
    the aim for each farther one: the near run's time and a tenth, plus one
    extra round trip per reveal."""
    near = runs[0]
    rows = [f"line: {len(line.steps)} actions, {line.reveals} turn up a card"]
    for run in runs:
        text = f"+{run.rtt_ms:g} ms round trip: {run.seconds:.2f} s"
        if run.measured:
            text += f" (the server measured {run.measured})"
        if run is not near:
            extra = line.reveals * (run.rtt_ms - near.rtt_ms) / 1000
            aim = near.seconds * 1.1 + extra
            verdict = "within" if run.seconds <= aim else "OVER"
            text += f" (aim {aim:.2f} s: {near.seconds:.2f} + 10% + {line.reveals} x"
            text += f" {run.rtt_ms - near.rtt_ms:g} ms; {verdict})"
        rows.append(text)
    return "\n".join(rows)
