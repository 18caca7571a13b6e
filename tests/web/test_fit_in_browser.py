"""A board that never spills, with every rival in view: three racers, one of
them with a 33-card column, at 1920x1080, 1366x768, 390x844 and 360x740, in
English and Croatian.

The server is real; the long column is written into the board frames the
page receives (a real deal needs a long solver line to build one), so what is
measured is the page's layout alone: no page scroll either way, every card
and every racer's lane inside the window, each card's corner (rank and suit)
whole and readable, the column squeezing evenly and, past the smallest
readable strip, scrolling inside itself, its top saying how many cards lie
above ("▲ 5"). A watcher's boards of the racers keep such a column inside
its racer's board, never drawn over the next racer's.
"""

from __future__ import annotations

import json
from typing import Any

from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, WebSocketRoute, expect
from websockets.sync.client import connect

from tests.web.pages import (
    SETTLE,
    WireRacer,
    create_room,
    join_by_link,
    new_page,
    pick_language,
    set_deal,
    wait_board,
)

DEAL = "CF1-D3-AAAAACL"
SIZES = [(1920, 1080), (1366, 768), (390, 844), (360, 740)]
#: 32 more cards under column 1's own (a wrapped run can pass 13 cards)
RUN = [rank + suit for rank, suit in zip("KQJT98765432" * 3, "SHCD" * 9, strict=False)][:32]
#: the smallest corner font the page keeps, in px (board-fit.js MIN_CORNER)
MIN_CORNER = 11

MEASURE = """() => {
    const box = (el) => el.getBoundingClientRect();
    const column = document.querySelector('#board .column[data-drop="T0"]');
    const cards = [...column.querySelectorAll('.card[data-card]')];
    const inside = (r) => r.top >= -0.5 && r.left >= -0.5
        && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5;
    const clip = box(column);
    const strips = cards.slice(0, -1).map((card, i) => {
        const corner = box(card.querySelector('.corner'));
        return {
            gap: box(cards[i + 1]).top - box(card).top,
            cut: corner.bottom - box(cards[i + 1]).top,
            font: parseFloat(getComputedStyle(card.querySelector('.corner')).fontSize),
        };
    });
    const outside = [...document.querySelectorAll('#board .card, #race-lb .lane')]
        .filter((el) => el.getClientRects().length && !column.contains(el) && !inside(box(el)))
        .map((el) => el.dataset.card || el.textContent);
    const cue = column.querySelector('.more-above');
    return {
        cards: cards.length,
        scrolls: column.classList.contains('scrolls'),
        above: cards.filter((c) => box(c.querySelector('.corner')).top < clip.top - 0.5).length,
        cue: cue && cue.getClientRects().length ? cue.textContent : null,
        cueInside: cue
            ? inside(box(cue.firstChild)) && box(cue.firstChild).top >= clip.top - 0.5 : null,
        columnInside: inside(clip),
        scrollHeight: document.scrollingElement.scrollHeight,
        scrollWidth: document.scrollingElement.scrollWidth,
        innerHeight, innerWidth,
        strips, outside,
        lanes: [...document.querySelectorAll('#race-lb .lane')].map((l) => inside(box(l))),
        cutNames: [...document.querySelectorAll('#race-lb .lane .name')]
            .filter((el) => el.scrollWidth > el.clientWidth + 0.5).map((el) => el.textContent),
        // the live standings beside the board (on a phone, only once the race is over)
        table: [...document.querySelectorAll('#race-lb table')]
            .filter((t) => t.getClientRects().length)
            .map((t) => t.closest('.lb-wrap').clientWidth - t.scrollWidth),
        last: inside(box(cards[cards.length - 1])),
    };
}"""


def tall(text: str) -> str:
    """A board frame with 32 more cards in column 1; the standings' rows as wide as a
    race's middle makes them (13 cards home, a score of 130, 123 moves, a racer away)."""
    msg = json.loads(text)
    board = msg.get("board")
    if isinstance(board, dict) and board.get("tableau"):
        board["tableau"][0] = RUN + board["tableau"][0]
        return json.dumps(msg)
    if msg.get("type") == "leaderboard":
        for row in msg["rows"]:
            row.update(on_foundations=13, score=130, moves=123)
        msg["rows"][-1]["status"] = "disconnected"  # its widest word: "prekid veze"
        return json.dumps(msg)
    return text


def with_tall_column(page: Page) -> None:
    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        ws.on_message(lambda m: server.send(m))
        server.on_message(lambda m: ws.send(tall(m) if isinstance(m, str) else m))

    page.route_web_socket("**/ws", route)


def check(got: dict[str, Any], where: str) -> None:
    assert got["cards"] == 33, where
    assert got["scrollHeight"] <= got["innerHeight"], where  # the page never scrolls
    assert got["scrollWidth"] <= got["innerWidth"], where
    assert got["outside"] == [], where  # every other card inside the window
    assert got["columnInside"] and got["last"], where  # the column and its playable end
    assert got["lanes"] == [True, True, True], where  # every racer in view
    if got["innerWidth"] < 500:  # a phone's three lanes, one to a row: "Cyrus the Great" whole
        assert got["cutNames"] == [], where
    assert all(room >= 0 for room in got["table"]), where  # the standings' words whole
    if got["scrolls"]:  # cards out of sight above: the column's top says how many
        assert got["above"] > 0 and got["cue"] == f"\u25b2 {got['above']}", where
        assert got["cueInside"], where
    else:
        assert got["above"] == 0 and got["cue"] is None, where
    gaps = [s["gap"] for s in got["strips"]]
    assert max(gaps) - min(gaps) < 1.5, where  # squeezed evenly
    for strip in got["strips"]:
        assert strip["font"] >= MIN_CORNER, where  # readable
        assert strip["cut"] <= 0.5, where  # the corner whole, above the next card


def test_a_33_card_column_never_spills_and_every_rival_stays_in_view(
    browser: Browser, shared_server: ServerProcess
) -> None:
    base = shared_server.http_url
    ana = new_page(browser)
    with_tall_column(ana)
    room = create_room(ana, base, "Ana")
    others = [new_page(browser), new_page(browser)]
    for page, name in zip(others, ("Bob", "Cyrus the Great"), strict=True):
        join_by_link(page, base, room, name)
        page.click("#ready")
    set_deal(ana, DEAL)
    expect(ana.locator("#players .ready-mark.on")).to_have_count(2)
    ana.click("#start")
    for page in (ana, *others):
        wait_board(page)
    expect(ana.locator("#race-lb .lane")).to_have_count(3)
    squeezed = set()
    for lang in ("en", "hr"):
        pick_language(ana, lang)
        for width, height in SIZES:
            ana.set_viewport_size({"width": width, "height": height})
            ana.evaluate(SETTLE)
            got = ana.evaluate(MEASURE)
            check(got, f"{lang} {width}x{height}: {got}")
            squeezed.add(got["scrolls"])
    assert False in squeezed  # on a big screen all 33 cards fit, squeezed
    assert True in squeezed
    # scrolled to its top, the column hides nothing above and its cue goes
    ana.eval_on_selector('#board .column[data-drop="T0"]', "c => c.scrollTo(0, 0)")
    expect(ana.locator('#board .column[data-drop="T0"] .more-above')).to_be_hidden()
    assert ana.evaluate(MEASURE)["above"] == 0


#: each watcher's board: its cards and columns inside its cell, the cells apart
CELLS = """() => {
    const box = (el) => el.getBoundingClientRect();
    const within = (r, o) => r.top >= o.top - 0.5 && r.left >= o.left - 0.5
        && r.bottom <= o.bottom + 0.5 && r.right <= o.right + 0.5;
    const cells = [...document.querySelectorAll('#watch-boards .wb-cell')];
    const spills = [];
    for (const cell of cells) {
        const frame = box(cell);
        for (const col of cell.querySelectorAll('.column')) {
            if (!within(box(col), frame)) spills.push(`column of ${cell.dataset.id}`);
            const clip = col.classList.contains('scrolls') ? box(col) : frame;
            for (const card of col.querySelectorAll('.card[data-card]')) {
                const r = box(card);
                const seen = r.bottom > clip.top && r.top < clip.bottom;
                if (seen && !within(r, frame)) spills.push(card.dataset.card);
            }
        }
    }
    const overlaps = [];
    cells.forEach((a, i) => cells.slice(i + 1).forEach((b) => {
        const p = box(a), q = box(b);
        if (p.left < q.right - 0.5 && q.left < p.right - 0.5
            && p.top < q.bottom - 0.5 && q.top < p.bottom - 0.5) overlaps.push([i, i + 1]);
    }));
    const tall = [...document.querySelectorAll('#watch-boards .column')]
        .find((col) => col.querySelectorAll('.card[data-card]').length > 30);
    const cue = tall?.querySelector('.more-above');
    return {
        cells: cells.length, spills, overlaps,
        tall: tall ? box(tall).height : null,
        scrolls: tall?.classList.contains('scrolls'),
        cue: cue && cue.getClientRects().length ? cue.textContent : null,
        scrollWidth: document.scrollingElement.scrollWidth, innerWidth,
        whole: (() => {  // every board in the grid's view, none below its fold
            const grid = document.querySelector('#watch-boards');
            return grid.scrollHeight <= grid.clientHeight + 1;
        })(),
        cutNames: [...document.querySelectorAll('#race-lb .lane .name')]
            .filter((el) => el.scrollWidth > el.clientWidth + 0.5).map((el) => el.textContent),
    };
}"""


def test_a_watchers_boards_keep_a_33_card_column_inside_its_racers_board(
    browser: Browser, shared_server: ServerProcess
) -> None:
    base = shared_server.http_url

    def taller(text: str) -> str:
        """Every racer's board with a 33-card column: the leader's large one and the others'."""
        msg = json.loads(text)
        if msg.get("type") != "boards":
            return text
        for racer in msg["boards"]:
            racer["board"]["tableau"][0] = RUN + racer["board"]["tableau"][0]
        return json.dumps(msg)

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        ws.on_message(lambda m: server.send(m))
        server.on_message(lambda m: ws.send(taller(m) if isinstance(m, str) else m))

    with connect(shared_server.ws_url) as a, connect(shared_server.ws_url) as b:
        ana, bob = WireRacer(a), WireRacer(b)
        room = ana.enter("Ana")
        bob.enter("Bob", room)
        cy = new_page(browser)
        join_by_link(cy, base, room, "Cyrus the Great")
        ana.send(type="settings", deal=DEAL, spectator_boards=True)
        tv = new_page(browser)
        tv.route_web_socket("**/ws", route)
        join_by_link(tv, base, room, "Big screen", watch=True)
        ana.send(type="start", force=True)
        ana.next_of("started")
        ana.act(type="move", move="S")
        expect(tv.locator("#watch-boards .wb-cell")).to_have_count(3)
        for lang in ("en", "hr"):
            pick_language(tv, lang)
            for width, height in SIZES:
                tv.set_viewport_size({"width": width, "height": height})
                tv.evaluate(SETTLE)
                got = tv.evaluate(CELLS)
                where = f"{lang} {width}x{height}: {got}"
                assert got["cells"] == 3 and got["tall"], where
                assert got["spills"] == [] and got["overlaps"] == [], where
                assert got["scrollWidth"] <= got["innerWidth"], where
                if width >= 1366:  # a wide screen has room for every racer's whole name
                    assert got["cutNames"] == [], where
                    assert got["whole"], where  # ... and shows every board whole
                if got["scrolls"]:  # its cards out of sight above, counted
                    assert got["cue"] and got["cue"].startswith("\u25b2 "), where
        # a TV: the big-screen mode's larger lanes leave the boards less room, all still whole
        tv.set_viewport_size({"width": 1920, "height": 1080})
        tv.click("#big-screen")
        expect(tv.locator("body.big-screen")).to_have_count(1)
        tv.evaluate(SETTLE)
        got = tv.evaluate(CELLS)
        assert got["whole"] and got["spills"] == [] and got["overlaps"] == [], got
