"""The daily race, My races and replay pages in a browser, on real servers.

One story over two days (the server's test clock, ``CANFIELD_DAILY_DATE``,
and a second server on the same Redis and the same port, so the browser's
origin and its stored identity carry over): Ana plays today's daily deal on
/daily (real taps and draws, an undo, give up) and sees her row in the
standing; a second tab that asks to play is told she played today, and so is
a second visit; /me shows the race, downloads it as JSON and, next day, links
its replay, which a fresh browser (no identity) opens and steps through; /daily
then shows yesterday's deal code and winner; delete empties the history.
"""

from __future__ import annotations

import json

import redis
from canfield import Game, Move
from playwright.sync_api import Browser, Dialog, Page, WebSocketRoute, expect

from tests.conftest import ServerFactory, decoded
from tests.web.helpers import DAY, daily_env
from tests.web.pages import EXPECT_MS, create_room, new_page, pick_language, tap_or_draw, wait_board

NEXT = "2031-03-15"


def stock_count(page: Page) -> str:
    return page.locator("#daily-board .stock .count").inner_text()


def play_a_little(page: Page, game: Game) -> list[str]:
    """Tap two cards that go somewhere (drawing when none does), draw, undo: each
    action waits for the server's answer on the board."""
    sent: list[str] = []
    for _ in range(3):
        sent.append(str(tap_or_draw(page, game, "#daily-board")))
        expect(page.locator("#daily-board .stock .count")).to_have_text(str(len(game.stock)))
        expect(page.locator("#daily-cards")).to_have_text(str(game.on_foundations))
    page.click("#daily-board .stock")
    game.push(Move.parse("S"))
    sent.append("S")
    expect(page.locator("#daily-board .stock .count")).to_have_text(str(len(game.stock)))
    page.click("#daily-undo")
    game.pop()
    sent.append("U")
    expect(page.locator("#daily-board .stock .count")).to_have_text(str(len(game.stock)))
    return sent


def test_daily_race_history_and_replay(browser: Browser, server_factory: ServerFactory) -> None:
    today = server_factory(env=daily_env(DAY))
    base = today.http_url
    page = new_page(browser)
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))

    def note(dialog: Dialog) -> None:
        problems.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", note)

    # /daily: nobody has played yet; Ana plays draw 3
    page.goto(base + "/daily")
    expect(page.locator("#daily-date")).to_have_text(f"Today: {DAY} (UTC)")
    expect(page.locator("#standing-count")).to_have_text(
        "Nobody has played this deal yet. Be the first!"
    )
    expect(page.locator("#streak")).to_have_text("Play today to start a streak.")
    # a second tab of the same browser waits on the page, its clock stopped (no polling)
    other = page.context.new_page()
    other.clock.install()
    other.goto(base + "/daily")
    expect(other.locator("#daily-play")).to_be_enabled()
    other.clock.pause_at(other.evaluate("Date.now()") + 1000)

    page.fill("#daily-name", "Ana")
    page.click("#daily-play")
    expect(page.locator("#daily-board .board")).to_be_visible()
    expect(page.locator("#daily-start")).to_be_hidden()
    expect(page.locator("#streak")).to_have_text("Days in a row: 1")
    code = decoded(redis.Redis.from_url(today.redis_url).get("cf:{dly:" + DAY + ":3}:code"))
    game = Game.deal(code)
    assert code not in page.content()  # the deal code stays hidden while the day is on
    sent = play_a_little(page, game)
    moves = sum(1 for m in sent if m != "U")  # every accepted action but undo and give up
    page.click("#daily-give-up")
    page.click("#daily-give-up")
    sent.append("G")

    # her result and her row in today's standing
    expect(page.locator("#daily-result")).to_be_visible()
    # alone so far: no medal, just what happened
    expect(page.locator("#result-body .place-text")).to_have_text("First to play today")
    mine = page.locator("#standing tr.me")
    expect(mine.locator("td.c-player")).to_have_text("Ana")
    expect(mine.locator("td.c-rank")).to_have_text("1")
    expect(mine.locator("td.c-status")).to_have_text("gave up")
    expect(mine.locator("td.c-moves")).to_have_text(str(moves))
    expect(mine.locator("td.c-cards .num")).to_have_text(str(game.on_foundations))
    expect(page.locator("#standing-count")).to_have_text("Played today: 1")
    expect(page.locator("#daily-played")).to_contain_text("You played today's deal (draw 3)")

    # the waiting tab asks to play: refused as played today, said in words
    other.fill("#daily-name", "Ana")
    other.click("#daily-play")
    expect(other.locator("#daily-played")).to_have_text(
        "You played today's deal (draw 3). Come back tomorrow for a new one."
    )
    expect(other.locator("#daily-form")).to_be_hidden()
    expect(other.locator("#daily-error")).to_have_text("")
    other.close()

    # a second visit: played today, with the result; draw 1 is still open
    page.goto(base + "/daily")
    expect(page.locator("#daily-played")).to_be_visible()
    expect(page.locator("#daily-form")).to_be_hidden()
    # alone so far: no medal, just what happened
    expect(page.locator("#result-body .place-text")).to_have_text("First to play today")
    page.click("#draw-tabs .tab[data-draw='1']")
    expect(page.locator("#daily-form")).to_be_visible()
    expect(page.locator("#daily-name")).to_have_value("Ana")
    page.click("#draw-tabs .tab[data-draw='3']")

    # /me: the race in the history and the stats; the download holds it
    page.goto(base + "/me")
    row = page.locator("#me-history tbody tr")
    expect(row).to_have_count(1)
    expect(row.locator("td.c-race")).to_have_text(f"Daily {DAY}")
    expect(row.locator("td.c-status")).to_have_text("gave up")
    expect(row.locator("td.c-cards")).to_have_text(str(game.on_foundations))
    expect(row).to_contain_text("after the day")  # today's replay opens tomorrow
    stats = page.locator("#me-stats tr[data-draw='3']")
    expect(stats.locator(".c-races")).to_have_text("1")
    expect(stats.locator(".c-rate")).to_have_text("0%")
    expect(page.locator("#me-chart svg rect.bar")).to_have_count(1)
    with page.expect_download() as info:
        page.click("#me-download")
    download = info.value
    assert download.suggested_filename == "canfield-history.json"
    body = json.loads(open(download.path(), encoding="utf-8").read())
    assert [r["kind"] for r in body["races"]] == ["daily"]
    assert body["races"][0]["date"] == DAY and body["races"][0]["moves"] == moves

    # the next day, on the same Redis and address: yesterday's deal and winner, the replay link
    today.stop()
    server_factory(env=daily_env(NEXT), port=today.port)
    page.goto(base + "/daily")
    expect(page.locator("#daily-date")).to_have_text(f"Today: {NEXT} (UTC)")
    expect(page.locator("#yesterday-deal")).to_have_text(code)
    expect(page.locator("#yesterday-winners li").first).to_contain_text("Ana")
    expect(page.locator("#daily-form")).to_be_visible()  # a new day, a new deal
    page.goto(base + "/me")
    link = page.locator("#me-history a.replay-link")
    expect(link).to_have_count(1)
    href = link.get_attribute("href")
    assert href and href.startswith("/replays/d-")

    # anyone with the link: a fresh browser with no identity steps through her moves
    stranger = new_page(browser)
    stranger.goto(base + href)
    expect(stranger.locator("#rp-deal")).to_have_text(code)
    expect(stranger.locator("#rp-what")).to_have_text(
        f"Players: Ana \u00b7 Daily race of {DAY}, draw 3, 1 player"
    )
    steps = stranger.locator("#rp-moves button")
    expect(steps).to_have_count(len(sent))
    assert [b.get_attribute("data-move") for b in steps.all()] == sent
    expect(steps.first).to_have_text("Draw" if sent[0] == "S" else steps.first.inner_text())
    expect(steps.last).to_have_text("Give up")
    expect(stranger.locator("#rp-players td.c-player")).to_have_text("Ana")
    stranger.click("#rp-last")
    expect(stranger.locator("#rp-step")).to_have_text(f"Move {len(sent)} of {len(sent)}")
    expect(stranger.locator("#replay-board .foundation .card[data-card]")).to_have_count(
        game.on_foundations
    )
    assert stranger.evaluate("localStorage.getItem('cfr.identity')") is None
    stranger.context.close()

    # delete, after the page's own confirmation: the history is empty
    page.click("#me-delete")
    expect(page.locator("dialog#confirm")).to_be_visible()
    expect(page.locator("#confirm-text")).to_have_text(
        "Delete every race in your history? This cannot be undone."
    )
    page.click("#confirm-yes")
    expect(page.locator("#me-history tbody tr")).to_have_count(0)
    expect(page.locator("#me-empty")).to_be_visible()
    expect(page.locator("#me-delete")).to_be_disabled()
    assert problems == []
    page.context.close()


def test_the_race_page_identifies_and_its_races_reach_my_races(
    browser: Browser, server_factory: ServerFactory
) -> None:
    """The home page keeps the same identity: a room race lands in /me with a replay link."""
    server = server_factory(env={"CANFIELD_COUNTDOWN_S": "0.3"})
    page = new_page(browser)
    page.goto(server.http_url + "/me")
    expect(page.locator("#me-id")).to_contain_text("Player id: ")
    stored = page.evaluate("JSON.parse(localStorage.getItem('cfr.identity'))")
    create_room(page, server.http_url, "Ana")
    assert page.evaluate("JSON.parse(localStorage.getItem('cfr.identity'))") == stored
    page.click("#start")
    wait_board(page)
    page.click("#give-up")
    page.click("#give-up")
    page.wait_for_selector("#view-results:not([hidden])")
    page.goto(server.http_url + "/me")
    row = page.locator("#me-history tbody tr")
    expect(row).to_have_count(1)
    expect(row.locator("td.c-race")).to_contain_text("Room ")
    href = row.locator("a.replay-link").get_attribute("href")
    assert href and href.startswith("/replays/r-")
    page.goto(server.http_url + href)
    expect(page.locator("#rp-moves button").last).to_have_text("Give up")
    page.context.close()


def test_a_start_whose_answer_the_link_lost_goes_again(
    browser: Browser, server_factory: ServerFactory
) -> None:
    """The link drops just as the server starts Ana's daily race (its answer is
    lost): the page asks again when it is back and gets the board the server
    started, one race, never a button left waiting."""
    server = server_factory(env=daily_env(DAY))
    page = new_page(browser)
    lost: list[str] = []

    def route(ws: WebSocketRoute) -> None:
        upstream = ws.connect_to_server()
        ws.on_message(lambda m: upstream.send(m))

        def from_server(m: str | bytes) -> None:
            if not lost and isinstance(m, str) and json.loads(m).get("type") == "daily_started":
                lost.append(m)
                ws.close()  # the answer never arrives; the link is down
                return
            ws.send(m)

        upstream.on_message(from_server)

    page.route_web_socket("**/ws", route)
    page.goto(server.http_url + "/daily")
    page.fill("#daily-name", "Ana")
    page.click("#daily-play")
    expect(page.locator("#daily-board .card").first).to_be_visible(timeout=60_000)
    assert len(lost) == 1
    expect(page.locator("#standing-count")).to_contain_text("1")
    page.context.close()


def test_a_start_that_waits_for_the_new_days_deal_says_so(
    browser: Browser, server_factory: ServerFactory
) -> None:
    """A new day's deal is proven winnable before anyone plays it: when the answer
    to Play is slow to come, the page says why, in the reader's language, and
    the note goes with the board."""
    server = server_factory(env=daily_env(DAY))
    page = new_page(browser)
    held: list[tuple[WebSocketRoute, str]] = []

    def route(ws: WebSocketRoute) -> None:
        upstream = ws.connect_to_server()
        ws.on_message(lambda m: upstream.send(m))

        def from_server(m: str | bytes) -> None:
            if isinstance(m, str) and json.loads(m).get("type") == "daily_started":
                held.append((ws, m))  # the deal is still being proven
                return
            ws.send(m)

        upstream.on_message(from_server)

    page.route_web_socket("**/ws", route)
    page.goto(server.http_url + "/daily")
    wait = page.locator("#daily-wait")
    expect(wait).to_be_hidden()
    page.fill("#daily-name", "Ana")
    page.click("#daily-play")
    expect(wait).to_be_visible()
    expect(wait).to_contain_text("checks it can be won")
    expect(page.locator("#daily-play")).to_be_disabled()
    pick_language(page, "hr")
    expect(wait).to_contain_text("provjerava može li se riješiti")
    page.screenshot(path="/tmp/shots-daily-wait-hr.png")
    # the held answer: on a loaded machine the proof can still be running here
    # (Playwright hands the page's frames over while a call of the page waits)
    for _ in range(EXPECT_MS // 100):
        if held:
            break
        page.wait_for_timeout(100)
    ((ws, answer),) = held
    ws.send(answer)
    expect(page.locator("#daily-board .card").first).to_be_visible()
    expect(wait).to_be_hidden()
    page.context.close()
