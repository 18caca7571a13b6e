"""The story around a race, in real browsers on a real server: the moment a
player finishes (their place from the leaderboard, and the live race chart
instead of a frozen board), the spectator's chart beside the standings, the
results' winner call-out, own place, replay chart and card words, a best-of-3
series tally, every refusal worded in Croatian (never the server's English),
the How to play page, and an axe-core scan of home, lobby, board and results.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from canfield import Game, Move
from canfield.solver import solve
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, WebSocketRoute, expect
from websockets.sync.client import ClientConnection, connect

from tests.conftest import ServerFactory
from tests.web.helpers import DEAL, HOME_MOVES, play_home, start_race
from tests.web.pages import (
    confirm_box,
    create_room,
    give_up,
    join_by_link,
    leaderboard_row,
    new_page,
    pick_language,
    picked_card,
    record_frames,
    set_deal,
    wait_board,
)

SUITS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
BIG = {"viewport": {"width": 1920, "height": 1080}}
#: the solver wins this one in milliseconds
WINNABLE_DEAL = "CF1-D3-AAADKOH"


def card_label(text: str) -> str:
    return ("10" if text[0] == "T" else text[0]) + SUITS[text[1]]


def next_of(socket: ClientConnection, kind: str) -> dict[str, Any]:
    """The next frame of type ``kind`` (or an error, which fails the test)."""
    while True:
        msg = json.loads(socket.recv(timeout=20))
        assert msg["type"] != "error", msg
        if msg["type"] == kind:
            return msg


def chart_lines(page: Page, root: str) -> dict[str, tuple[int, int]]:
    """The chart's lines by player name: (last cards home, number of points)."""
    lines = page.eval_on_selector_all(
        f"{root} svg.chart-svg path.line",
        "els => els.map(e => [e.dataset.name, Number(e.dataset.last), Number(e.dataset.points)])",
    )
    return {name: (last, points) for name, last, points in lines}


def test_finish_place_live_chart_winner_call_and_replay_chart(
    browser: Browser, shared_server: ServerProcess
) -> None:
    base = shared_server.http_url
    ana, bob, vi = new_page(browser), new_page(browser), new_page(browser, **BIG)
    room = create_room(ana, base, "Ana")
    join_by_link(bob, base, room, "Bob")
    join_by_link(vi, base, room, "Big screen", watch=True)
    set_deal(ana, DEAL)
    start_race(ana, [bob])

    # while Ana races, her board is there and no chart hides it
    game = play_home(ana)
    assert game.on_foundations == 3
    expect(leaderboard_row(vi, "Ana").locator("td.c-cards")).to_have_text("3")
    expect(ana.locator("#race-watch")).to_be_hidden()

    # the spectator: the live chart (one line per player, ending at their cards home)
    # beside the standings, on a 1920-wide screen
    expect(vi.locator("#race-watch svg.chart-svg path.line")).to_have_count(2)
    expect(vi.locator('#race-watch path.line[data-name="Ana"]')).to_have_attribute("data-last", "3")
    expect(vi.locator('#race-watch path.line[data-name="Bob"]')).to_have_attribute("data-last", "1")
    chart_box, lb_box = (
        vi.locator("#race-watch .chart-panel").bounding_box(),
        vi.locator("#race-lb .leaderboard").bounding_box(),
    )
    assert chart_box and lb_box and lb_box["x"] >= chart_box["x"] + chart_box["width"] - 1
    assert chart_box["width"] > 700, chart_box  # it uses the screen
    expect(vi.locator("#race-watch .chart-legend li")).to_have_text(["Ana3", "Bob1"])

    # Ana gives up: her place, and the race chart instead of a frozen board;
    # everyone else is told at once, over the board (Ana has her own moment)
    give_up(ana)
    for page in (bob, vi):
        expect(page.locator("#race-news[role=status] .news")).to_have_text(
            ["Ana gave up with 3 cards home"]
        )
    expect(ana.locator("#race-news .news")).to_have_count(0)
    # her lane says so, as its mark shows it: no cards in play any more (then
    # her round trip, once one is measured)
    expect(bob.locator("#race-lb .lane").first).to_have_attribute(
        "aria-label",
        re.compile(r"^1\. Ana, 3 cards home, gave up(, Round trip to the server: \d+ ms)?$"),
    )
    # a reader who switches language reads it in theirs while it shows
    pick_language(vi, "hr")
    expect(vi.locator("#race-news .news")).to_have_text(["Ana odustaje, 3 karte na temeljima"])
    pick_language(vi, "en")
    expect(ana.locator(".finish-card .place-text")).to_have_text("1st of 2")
    expect(ana.locator(".finish-card")).to_contain_text("You gave up")
    expect(ana.locator(".finish-card")).to_contain_text("place so far")
    expect(ana.locator("#board")).to_be_hidden()
    expect(ana.locator("#race-watch svg.chart-svg path.line")).to_have_count(2)
    expect(ana.locator('#race-watch path.line[data-name="Ana"]')).to_have_attribute(
        "data-last", "3"
    )
    expect(ana.locator("#race-watch path.line.me")).to_have_attribute("data-name", "Ana")
    expect(bob.locator("#race-watch")).to_be_hidden()  # Bob still races on his board

    # Bob gives up last: the race ends
    give_up(bob)
    for page in (ana, bob, vi):
        page.wait_for_selector("#view-results:not([hidden])")
        # both gave up: nobody won, and the page does not say otherwise
        expect(page.locator("#winner-call .winner")).to_have_text("Nobody won")
        expect(page.locator("#winner-call .how")).to_have_text("Most cards home: Ana, 3 of 52")
    expect(ana.locator("#winner-call .your-place")).to_have_text("You finished 1st of 2")
    expect(bob.locator("#winner-call .your-place")).to_have_text("You finished 2nd of 2")
    expect(vi.locator("#winner-call .your-place")).to_have_count(0)

    # the results chart, replayed from the moves: one line per player, the last
    # point at their cards home in the standings; Ana's steps at her two plays
    standings = {
        row[1]: int(row[3])
        for row in ana.eval_on_selector_all(
            "#final-lb tbody tr", "trs => trs.map(tr => [...tr.cells].map(c => c.textContent))"
        )
    }
    assert standings == {"Ana": 3, "Bob": 1}
    expect(ana.locator("#results-chart svg.chart-svg path.line")).to_have_count(2)
    assert chart_lines(ana, "#results-chart") == {"Ana": (3, 3), "Bob": (1, 1)}
    assert chart_lines(vi, "#results-chart") == {"Ana": (3, 3), "Bob": (1, 1)}
    # over time: the server kept when each action came (its note says so)
    expect(ana.locator("#results-chart .axis-label").first).to_have_text("time")
    expect(ana.locator("#results-chart figcaption")).to_contain_text("over time")

    # the spectator's results: every column of the standings fits its panel
    lb = vi.locator("#final-lb").bounding_box()
    for column in ("c-moves", "c-status", "c-time"):
        cell = vi.locator(f"#final-lb th.{column}").bounding_box()
        assert lb and cell and cell["x"] + cell["width"] <= lb["x"] + lb["width"] + 1, column

    # the replay says each move in words, cards as rank and suit symbol
    ana.select_option("#replay-player", label="1. Ana")
    ana.click("#rp-forward")
    first = picked_card(Game.deal(DEAL), Move.parse(HOME_MOVES[0]))
    expect(ana.locator("#rp-words")).to_have_text(f"{card_label(first)} to a foundation")


def test_best_of_three_series_tally(browser: Browser, shared_server: ServerProcess) -> None:
    base = shared_server.http_url
    ana, bob = new_page(browser), new_page(browser)
    room = create_room(ana, base, "Ana")
    join_by_link(bob, base, room, "Bob")
    best_of = ana.locator("#room-settings select[name=best_of]")
    expect(best_of).to_have_value("1")
    expect(bob.locator("#room-settings select[name=best_of]")).to_be_disabled()
    best_of.select_option("3")
    expect(bob.locator("#room-settings select[name=best_of]")).to_have_value("3")
    expect(bob.locator("#lobby-series")).to_contain_text("First to 2 wins takes the series.")

    for race in (1, 2):
        set_deal(ana, DEAL)
        start_race(ana, [bob])
        play_home(ana)
        give_up(ana)
        give_up(bob)
        for page in (ana, bob):
            page.wait_for_selector("#view-results:not([hidden])")
            tally = page.locator("#results-series .series")
            expect(tally.locator("h3")).to_have_text(f"Best of 3 - after race {race}")
            expect(tally.locator("li .who")).to_have_text(["Ana", "Bob"])
            expect(tally.locator("li .wins")).to_have_text([f"{race} won", "0 won"])
        if race == 1:
            expect(bob.locator("#results-series")).to_contain_text("First to 2 wins")
            ana.click("#rematch")
            bob.wait_for_selector("#view-lobby:not([hidden])")
            expect(bob.locator("#lobby-series li .wins")).to_have_text(["1 won", "0 won"])
    # two wins of three: decided
    for page in (ana, bob):
        expect(page.locator("#results-series .series-winner")).to_have_text("Ana wins the series!")
        expect(page.locator("#results-series li.winner .who")).to_have_text("Ana")


# ---------------------------------------------------------------- every refusal in Croatian


def croatian_page(browser: Browser) -> Page:
    page = new_page(browser, locale="hr-HR")
    page.add_init_script("localStorage.setItem('cfr.pref.lang', JSON.stringify('hr'))")
    return page


def socket_to_server(page: Page) -> list[WebSocketRoute]:
    """Route the page's WebSocket through the test, which may add messages of its own."""
    routes: list[WebSocketRoute] = []

    def handler(ws: WebSocketRoute) -> None:
        routes.append(ws.connect_to_server())

    page.route_web_socket(re.compile(r".*/ws$"), handler)
    return routes


def server_messages(frames: list[dict[str, Any]]) -> list[str]:
    return [f["message"] for f in frames if f.get("type") == "error"]


def expect_worded(
    page: Page, selector: str, text: str | re.Pattern[str], frames: list[dict[str, Any]], code: str
) -> None:
    """The page shows its own Croatian words for an error the server sent (in English)."""
    expect(page.locator(selector)).to_have_text(text)
    sent = [f for f in frames if f.get("type") == "error" and f["code"] == code]
    assert sent, f"the server never sent {code}"
    shown = page.locator("body").inner_text()
    for message in server_messages(frames):
        assert message not in shown, (code, message)


def test_every_refusal_the_page_can_drive_is_worded_in_croatian(
    browser: Browser, server_factory: ServerFactory
) -> None:
    server = server_factory(
        env={
            "CANFIELD_COUNTDOWN_S": "0.3",
            "CANFIELD_MAX_PLAYERS_PER_ROOM": "2",
            "CANFIELD_MAX_OPEN_ROOMS_PER_IP": "1",
        }
    )
    base = server.http_url
    ana, bob, cy = croatian_page(browser), croatian_page(browser), croatian_page(browser)
    frames = {name: record_frames(page) for name, page in (("ana", ana), ("bob", bob), ("cy", cy))}
    bob_socket = socket_to_server(bob)
    room = create_room(ana, base, "Ana")
    expect(ana.locator("#lobby-title")).to_have_text(f"Soba {room}")

    # bad-name: a name that is taken (case and look alike)
    bob.goto(f"{base}/r/{room}")
    bob.fill("#name", "ANA")
    bob.click("#join")
    expect_worded(
        bob,
        "#home-error",
        "Ime ANA je zauzeto u ovoj sobi (ili nalikuje zauzetom). Odaberi drugo.",
        frames["bob"],
        "bad-name",
    )
    join_by_link(bob, base, room, "Bob")

    # room-full: two players already
    cy.goto(f"{base}/r/{room}")
    cy.fill("#name", "Cy")
    cy.click("#join")
    expect_worded(
        cy,
        "#home-error",
        "Soba je puna: u njoj može biti najviše 2 igrača, ljudi i botova zajedno.",
        frames["cy"],
        "room-full",
    )

    # rate-limited: one room open per address (Ana's, from the same one)
    cy.goto(base + "/")
    cy.fill("#name", "Cy")
    cy.click("#create")
    expect_worded(
        cy,
        "#home-error",
        "S tvoje mreže već je otvorena 1 soba, koliko je najviše dopušteno. Završi utrku"
        " ili napusti sobu koju više ne koristiš, pa napravi novu.",
        frames["cy"],
        "rate-limited",
    )
    retry = [f for f in frames["cy"] if f.get("code") == "rate-limited"][-1]
    assert retry["params"]["cap"] == "open_rooms" and retry["params"]["limit"] == 1

    # unknown-room
    cy.fill("#room-code", "ZZZZZZ")
    cy.click("#join")
    expect_worded(
        cy,
        "#home-error",
        "Sobe ZZZZZZ više nema: utrka je gotova ili je poveznica stara."
        " Pokreni novu utrku ili upiši drugi kôd.",
        frames["cy"],
        "unknown-room",
    )

    # not-host: Bob's page (its controls are off) is made to send a settings change
    assert bob_socket, "the page's WebSocket was not routed"
    bob_socket[-1].send(json.dumps({"type": "settings", "draw": 1}))
    expect_worded(bob, "#lobby-error", "To može samo domaćin.", frames["bob"], "not-host")

    # bad-deal-code: the host types a code that does not read
    set_deal(ana, "CF1-D3-AAAAAA1")
    expect_worded(
        ana,
        "#lobby-error",
        "Ta šifra dijeljenja nije čitljiva (izgleda ovako: CF1-D3-AAAAACL).",
        frames["ana"],
        "bad-deal-code",
    )

    # not-ready (params.names): the host is asked, naming who
    ana.click("#start")
    expect(confirm_box(ana).locator("#confirm-text")).to_have_text(
        "Još se čeka: Bob. Ipak započeti?"
    )
    assert [f["params"] for f in frames["ana"] if f.get("code") == "not-ready"] == [
        {"names": ["Bob"]}
    ]
    confirm_box(ana).locator("#confirm-yes").click()
    wait_board(bob)

    # wrong-phase: "ready" during the race; not-allowed: a hint in a race
    bob_socket[-1].send(json.dumps({"type": "ready", "ready": True}))
    expect_worded(bob, "#toast", "Ne sada: soba nije u toj fazi.", frames["bob"], "wrong-phase")
    bob_socket[-1].send(json.dumps({"type": "hint"}))
    expect_worded(bob, "#toast", "To u ovoj sobi nije dopušteno.", frames["bob"], "not-allowed")


def test_every_error_code_and_rule_has_words_in_both_languages(
    browser: Browser, static_url: str
) -> None:
    """Each code of docs/protocol.md's table is worded (English and Croatian); an
    unknown code falls back to the server's message."""
    doc = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    table = doc.split("## Error codes", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `([a-z-]+)` \|", table, flags=re.M)
    assert len(documented) >= 30
    page = new_page(browser)
    page.goto(static_url + "/")
    found = page.evaluate(
        """async (codes) => {
          const { CODES, RULES, errorText } = await import('/js/errors.js');
          const i18n = await import('/js/i18n.js');
          const out = {missing: codes.filter((c) => !CODES.includes(c)), en: {}, hr: {}};
          for (const lang of ['en', 'hr']) {
            i18n.setLang(lang);
            for (const code of CODES) out[lang][code] = errorText({code, message: 'SERVER TEXT'});
            for (const rule of RULES) {
              out[lang][rule] = errorText({code: 'illegal-move', rule, message: 'SERVER TEXT'});
            }
          }
          i18n.setLang('en');
          out.unknown = errorText({code: 'brand-new', message: 'SERVER TEXT'});
          out.card = errorText({code: 'illegal-move', rule: 'column-build', message: 'x'},
            {action: {move: '1-2'}, board: {tableau: [['TS'], ['JS'], [], []]}});
          i18n.setLang('en');
          return out;
        }""",
        documented,
    )
    assert found["missing"] == []
    for lang in ("en", "hr"):
        for key, text in found[lang].items():
            assert text and "SERVER TEXT" not in text, (lang, key)
            assert not text.startswith(("err_", "rule_")), (lang, key)
    differ = [k for k in found["en"] if found["en"][k] == found["hr"][k]]
    assert differ == [], differ
    assert found["unknown"] == "SERVER TEXT"
    assert found["card"].startswith("10\u2660 cannot go on J\u2660"), found["card"]


# ---------------------------------------------------------------- how to play, accessibility


def test_how_to_play_from_home_and_lobby(browser: Browser, shared_server: ServerProcess) -> None:
    base = shared_server.http_url
    page = new_page(browser)
    page.goto(base + "/")
    page.click("#view-home .howto-link a")
    box = page.locator("dialog#howto")
    expect(box).to_be_visible()
    expect(box.locator("h1")).to_have_text("How to play")
    expect(box.locator("svg.hw-pic")).to_have_count(3)
    expect(box).to_contain_text("after the king comes the ace")
    box.locator(".hw-close").click()
    expect(box).to_be_hidden()
    assert not page.url.endswith("#rules")
    create_room(page, base, "Ana")
    page.click("#view-lobby .howto-link a")
    expect(box).to_be_visible()
    expect(page.locator("#view-lobby")).to_be_attached()
    page.keyboard.press("Escape")
    expect(box).to_be_hidden()
    expect(page.locator("#view-lobby")).to_be_visible()
    # in Croatian, opened by its address
    hr = croatian_page(browser)
    hr.goto(base + "/#rules")
    expect(hr.locator("dialog#howto h1")).to_have_text("Kako se igra")
    expect(hr.locator("dialog#howto")).to_contain_text("nakon kralja dolazi as")


def serious(page: Page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now."""
    result = Axe().run(page)
    return [
        f"{v['impact']} {v['id']}: {[n['target'] for n in v['nodes']][:5]}"
        for v in result.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def test_axe_scan_home_lobby_board_results(browser: Browser, shared_server: ServerProcess) -> None:
    base = shared_server.http_url
    ana, bob = new_page(browser), new_page(browser)
    ana.goto(base + "/")
    ana.wait_for_selector("#view-home:not([hidden])")
    found = {"home": serious(ana)}
    room = create_room(ana, base, "Ana")
    join_by_link(bob, base, room, "Bob")
    ana.locator("#room-settings select[name=best_of]").select_option("3")
    expect(bob.locator("#lobby-series")).to_be_visible()
    found["lobby (host)"] = serious(ana)
    found["lobby (guest)"] = serious(bob)
    start_race(ana, [bob])
    found["board"] = serious(ana)
    give_up(ana)
    expect(ana.locator("#race-watch")).to_be_visible()
    found["board, done (chart)"] = serious(ana)
    give_up(bob)
    ana.wait_for_selector("#view-results:not([hidden])")
    expect(ana.locator("#results-chart svg")).to_be_visible()
    found["results"] = serious(ana)
    ana.goto(base + "/#rules")
    expect(ana.locator("dialog#howto")).to_be_visible()
    found["how to play"] = serious(ana)
    assert {page: issues for page, issues in found.items() if issues} == {}


def test_a_52_card_win_gets_its_place_and_confetti(
    browser: Browser, server_factory: ServerFactory
) -> None:
    """The winner moment for a real win: Ana's seat plays the solver's winning line
    from a second connection holding her seat (as a second tab of hers would), and
    her page shows her place, "You won!" and the confetti while Bob races on."""
    # the line goes out at full speed: a message rate no person reaches
    full_speed = server_factory(env={"CANFIELD_COUNTDOWN_S": "0.3", "CANFIELD_RATE_PER_S": "1000"})
    base = full_speed.http_url
    ana, bob = new_page(browser), new_page(browser)
    room = create_room(ana, base, "Ana")
    join_by_link(bob, base, room, "Bob")
    set_deal(ana, WINNABLE_DEAL)
    start_race(ana, [bob])
    seat = json.loads(ana.evaluate(f"sessionStorage.getItem('cfr.seat.{room}')"))
    line = solve(WINNABLE_DEAL, 30).moves
    assert line, "the solver wins this deal"
    with connect(full_speed.ws_url, open_timeout=10) as tab:
        tab.send(json.dumps({"type": "resume", "room": room, "token": seat["token"]}))
        joined = next_of(tab, "joined")
        for seq, move in enumerate(line, joined["last_seq"] + 1):
            tab.send(json.dumps({"type": "move", "seq": seq, "move": move}))
            ack = next_of(tab, "ack")
            assert ack["seq"] == seq, ack
    assert Game.replay(WINNABLE_DEAL, line).on_foundations == 52
    finish = ana.locator(".finish-card")
    expect(finish.locator(".place-text")).to_have_text("1st of 2")
    expect(finish).to_contain_text("You won!")
    # the win owns Ana's screen for a moment, with confetti, then gets out of the way
    moment = ana.locator("#moment")
    expect(moment.locator(".moment-title")).to_have_text("You won!")
    expect(moment.locator(".moment-detail")).to_have_text(re.compile(r"^1st of 2 \u00b7 \d+:\d\d$"))
    expect(moment.locator(".confetti i")).to_have_count(36)
    expect(moment).to_be_hidden()
    expect(leaderboard_row(bob, "Ana").locator("td.c-cards")).to_have_text("52")
    expect(bob.locator("#board")).to_be_visible()  # Bob still races
    # and Bob is told, over his board, with her place and time
    expect(bob.locator("#race-news .news")).to_have_text(
        re.compile(r"^Ana finished 1st in \d+:\d\d$")
    )


def test_a_line_still_racing_runs_to_now_not_to_the_axis_end(module_page: Page) -> None:
    """Two seconds into a race the axis spans 10 s: a racer still playing has a line
    to 0:02, where the time is, and one who gave up at 0:00.5 stops there."""
    got = module_page.evaluate(
        """async () => {
            const { RaceChart } = await import('/js/chart.js');
            const root = document.createElement('div');
            root.style.width = '600px';
            document.body.append(root);
            const chart = new RaceChart(root, 'time');
            chart.render([
                { id: 'a', name: 'Ana', points: [[0, 1]], end: 500 },
                { id: 'b', name: 'Bob', points: [[0, 1]] },
            ], { xEnd: 2000 });
            const axis = root.querySelector('.chart-grid line.axis');
            const x = (el, name) => Number(el.getAttribute(name));
            const ends = [...root.querySelectorAll('circle.end')].map((c) => x(c, 'cx'));
            return { left: x(axis, 'x1'), right: x(axis, 'x2'), ends };
        }"""
    )
    left, right = got["left"], got["right"]
    at = {ms: left + ms / 10_000 * (right - left) for ms in (500, 2000)}
    assert sorted(got["ends"]) == pytest.approx([at[500], at[2000]], abs=1), got
