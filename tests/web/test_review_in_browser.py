"""The solver's review of a finished race, in a real browser, on one real server.

Pia (the page) hosts a race on a deal the solver wins in milliseconds; Ana
(a websocket) plays the solver's winning line, Bo (another) a line built
to lose it, then gives up; Pia gives up at once. Until Pia gives up the race
is on for her, and nothing is reviewed (no request, no key in Redis). Then
the results page shows each racer's verdict in words, the replay marks Bo's
slip on its timeline and steps through the winning line from there, and
back; the shared replay page marks the slip in its move list and follows
the same line. In English and Croatian, at a desktop and a phone size.

``REVIEW_SHOTS=/tmp/shots-review`` saves the screenshots the brief asks for.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from canfield.solver import solve
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Locator, Page, expect
from websockets.sync.client import connect

from tests.server.lines import EASY_DEAL, LOSING_LINE, LOSING_SLIP
from tests.web.pages import (
    WireRacer,
    create_room,
    give_up,
    new_page,
    pick_language,
    quick_server,
    set_deal,
    wait_board,
)

SIZES = [(1920, 1080), (390, 844)]
ALL_SIZES = [(1920, 1080), (1366, 768), (390, 844), (360, 740)]
SHOTS = Path(os.environ["REVIEW_SHOTS"]) if os.environ.get("REVIEW_SHOTS") else None
#: Bo's slip as the page numbers moves (every action counts)
SLIP_MOVE = LOSING_SLIP + 1


@pytest.fixture(scope="module")
def review_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with quick_server(tmp_path_factory.mktemp("review"), CANFIELD_SOLVER_NICENESS="0") as server:
        yield server


def verdict_row(page: Page, name: str) -> Locator:
    """A racer's line of the results' review list ("2. Bo  Move 49 lost the win")."""
    who = page.locator(".who", has_text=re.compile(rf"^\d+\. {name}$"))
    return page.locator("#review-list li").filter(has=who)


def shoot(page: Page, name: str) -> None:
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def shoot_sizes(page: Page, name: str, show: str) -> None:
    """Screenshots at every size the brief asks for, in both languages, with
    ``show`` (a selector) scrolled into view; nothing without REVIEW_SHOTS."""
    if SHOTS is None:
        return
    for width, height in ALL_SIZES:
        page.set_viewport_size({"width": width, "height": height})
        for lang in ("en", "hr"):
            pick_language(page, lang)
            page.locator(show).scroll_into_view_if_needed()
            shoot(page, f"{name}-{lang}-{width}x{height}")
    page.set_viewport_size({"width": 1920, "height": 1080})
    pick_language(page, "en")


def test_verdicts_on_the_results_and_the_winning_line_in_both_replays(
    browser: Browser, review_server: ServerProcess
) -> None:
    base = review_server.http_url
    page = new_page(browser, viewport={"width": 1920, "height": 1080})
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/review") else None)
    room = create_room(page, base, "Pia")
    set_deal(page, EASY_DEAL)
    with connect(review_server.ws_url) as a, connect(review_server.ws_url) as b:
        ana, bo = WireRacer(a), WireRacer(b)
        for racer, name in ((ana, "Ana"), (bo, "Bo")):
            racer.enter(name, room)
            racer.send(type="ready")
        expect(page.locator("#players .ready-mark.on")).to_have_count(2)
        page.click("#start")
        wait_board(page)
        for racer in (ana, bo):
            racer.next_of("started")
        for move in solve(EASY_DEAL, 10).moves:
            ana.act(type="move", move=move)
        for move in LOSING_LINE:
            bo.act(type="move", move=move)
        bo.act(type="give_up")

        # the race is still on for Pia: nothing asked, nothing reviewed
        expect(page.locator("#view-race")).to_be_visible()
        assert asked == []
        store = redis.Redis.from_url(review_server.redis_url)
        assert list(store.scan_iter(match="cf:rv:*")) == []
        give_up(page)
        expect(page.locator("#view-results")).to_be_visible()

    expect(verdict_row(page, "Ana")).to_contain_text("Won")
    expect(verdict_row(page, "Pia")).to_contain_text("Still winnable when you stopped")
    bo_row = verdict_row(page, "Bo")
    # the review, then its lesson (one more job, of 0.2 s here: tests/conftest.py):
    # generous on a loaded machine
    expect(bo_row).to_contain_text(f"Move {SLIP_MOVE} lost the win", timeout=120_000)
    assert list(store.scan_iter(match="cf:rv:*:claim")) == []  # all kept, none under way

    # why, in words: Bo's draw buried the waste's top card, the king of spades,
    # which the solver's line played next (read off the line, named in cards)
    expect(bo_row.locator(".why")).to_have_text(re.compile(r"^This draw buried the king of spades"))
    assert "lost the win" not in bo_row.locator(".why").inner_text()

    # Bo's replay at the slip, marked on its timeline; the winning line, and back
    bo_row.get_by_role("button", name="Show").click()
    expect(page.locator("#view-results .timeline .slip-mark")).to_be_visible()
    expect(page.locator("#rp-step")).to_have_text(f"Move {SLIP_MOVE} of {len(LOSING_LINE) + 1}")
    expect(page.locator(".review-bar .verdict")).to_contain_text(f"Move {SLIP_MOVE} lost the win")
    expect(page.locator("#rv-why")).to_have_text(
        re.compile(r"^This draw buried the king of spades")
    )
    shoot(page, "results-en-1920x1080")
    page.click("#rv-line")
    expect(page.locator(".review-bar .line-tag")).to_have_text("The winning line from here")
    # a short line, its length said, and that a shorter one may exist (the search's bound)
    size = page.locator("#rv-line-len")
    expect(size).to_have_text(
        re.compile(
            r"^(A line of \d+ moves; a shorter one may exist|The shortest line: \d+ moves)\.$"
        )
    )
    moves = int(re.findall(r"\d+", size.inner_text())[0])
    assert moves <= 113  # the solver's first line from there is 113 moves long
    page.click("#rp-forward")
    expect(page.locator("#rp-step")).to_have_text(f"Winning line: move 1 of {moves}")
    shoot(page, "results-line-en-1920x1080")

    # step with the keyboard on the controls, then play at 8x (on the page's own clock)
    page.focus("#rp-forward")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#rp-step")).to_have_text(f"Winning line: move 2 of {moves}")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#rp-step")).to_have_text(f"Move {LOSING_SLIP} of {LOSING_SLIP + moves}")
    page.keyboard.press("ArrowRight")
    speed = page.locator("#rp-speed")
    expect(speed).to_have_text("1\u00d7")
    for shown in ("2\u00d7", "4\u00d7", "8\u00d7"):
        speed.click()
        expect(speed).to_have_text(shown)
    expect(speed).to_have_attribute("aria-label", "Playback speed: 8\u00d7")
    page.clock.install()
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    page.click("#rp-play")
    page.clock.run_for(880)  # 450 ms a step at 1x: 15 steps at 8x, from move 1
    expect(page.locator("#rp-step")).to_have_text(f"Winning line: move 16 of {moves}")
    page.click("#rp-play")  # pause
    speed.click()
    expect(speed).to_have_text("1\u00d7")
    page.click("#rp-play")
    page.clock.run_for(880)  # at 1x: one step
    expect(page.locator("#rp-step")).to_have_text(f"Winning line: move 17 of {moves}")
    page.click("#rp-play")
    page.clock.resume()
    shoot_sizes(page, "all-results-line", ".review-bar")
    page.click("#rp-last")
    expect(page.locator("#replay-board .foundation .card")).not_to_have_count(0)
    page.click("#rv-back")
    expect(page.locator("#rp-step")).to_have_text(f"Move {LOSING_SLIP} of {len(LOSING_LINE) + 1}")

    pick_language(page, "hr")
    expect(bo_row).to_contain_text(f"Potez {SLIP_MOVE} stajao je pobjede")
    expect(bo_row.locator(".why")).to_have_text(
        re.compile(r"^Ovo vučenje zatrpalo je kartu pik kralj")
    )
    expect(verdict_row(page, "Ana")).to_contain_text("Pobjeda")
    page.click("#rv-line")
    expect(page.locator(".review-bar .line-tag")).to_have_text("Pobjednički niz poteza odavde")
    expect(page.locator("#rv-line-len")).to_have_text(
        re.compile(
            rf"^(Niz od {moves} poteza; možda postoji i kraći|Najkraći niz: {moves} poteza)\.$"
        )
    )
    expect(page.locator("#rp-speed")).to_have_attribute(
        "aria-label", "Brzina reprodukcije: 1\u00d7"
    )
    shoot(page, "results-line-hr-1920x1080")
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator(".review-bar").scroll_into_view_if_needed()
    expect(page.locator("#rv-back")).to_be_in_viewport()
    shoot(page, "results-line-hr-390x844")
    page.click("#rv-back")
    pick_language(page, "en")
    page.locator("#review-list").scroll_into_view_if_needed()
    shoot(page, "results-en-390x844")

    # the shared replay page: the slip in the move list, the same winning line
    page.locator("#replay-link").evaluate("a => a.removeAttribute('target')")
    page.click("#replay-link")
    expect(page.locator("#rp-title")).to_have_text("Ana wins!")
    option = page.locator("#replay-player option", has_text=re.compile(r"\. Bo$"))
    page.select_option("#replay-player", option.get_attribute("value"))
    slip = page.locator("#rp-moves li.slip")
    expect(slip).to_contain_text("lost the win")
    expect(slip.locator(".n")).to_have_text(str(SLIP_MOVE))
    page.click("#rv-slip")
    shoot(page, "replay-page-en-390x844")
    page.click("#rv-line")
    expect(page.locator("#rp-moves li.line-head")).to_have_text("The winning line from here")
    expect(page.locator("#rp-moves li.line-head + li.line .n")).to_have_text(str(SLIP_MOVE))
    page.click("#rp-forward")
    expect(page.locator("#rp-moves button.current")).to_have_count(1)
    expect(page.locator("#rp-step")).to_have_text(re.compile(r"^Winning line: move 1 of \d+$"))
    shoot(page, "replay-page-line-en-390x844")
    shoot_sizes(page, "all-replay-page-line", ".review-bar")
    page.set_viewport_size({"width": 1920, "height": 1080})
    pick_language(page, "hr")
    expect(page.locator(".review-bar .line-tag")).to_have_text("Pobjednički niz poteza odavde")
    shoot(page, "replay-page-line-hr-1920x1080")
    page.click("#rv-back")
    expect(page.locator("#rp-moves li.slip")).to_contain_text("ovdje je izgubljena pobjeda")
    shoot(page, "replay-page-hr-1920x1080")
    assert len(asked) <= 16  # polled with a backoff (a review, then its lesson), then stopped
