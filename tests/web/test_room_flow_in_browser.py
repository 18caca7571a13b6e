"""The protocol's rules that make races end, in real browsers on a real server:
Start waits for ready players unless the host confirms, an away racer counts
down their grace time and is then out ("left"), the host ends the race, the
host role moves live to the next person, a late joiner watches and races from
the rematch, and a spectator whose seat went with the link takes a new one by
itself."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, expect

from tests.conftest import NO_ROOM_BUDGET, servers_of_their_own
from tests.web.pages import (
    confirm_box,
    create_room,
    join_by_link,
    leaderboard_row,
    new_page,
    record_frames,
    room_of,
    wait_board,
)

#: records, from the page's first moment, whenever the home view or an error appears
WATCH_HOME = """
window.homeSeen = [];
document.addEventListener('DOMContentLoaded', () => {
  const seen = () => {
    const home = document.querySelector('#view-home');
    const error = document.querySelector('#home-error').textContent;
    if (!home.hidden || error) window.homeSeen.push(error || 'home');
  };
  const watched = {subtree: true, attributes: true, childList: true, characterData: true};
  new MutationObserver(seen).observe(document.body, watched);
});
"""


@pytest.fixture(scope="module")
def fast_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for the file's tests (each its own rooms and pages): a 3 s grace
    for a player who went away."""
    env = {"CANFIELD_COUNTDOWN_S": "0.3", "CANFIELD_AWAY_GRACE_S": "3", **NO_ROOM_BUDGET}
    with servers_of_their_own(tmp_path_factory.mktemp("room-flow"), env) as (server,):
        yield server


def test_start_anyway_away_countdown_end_race_and_host_handover(
    browser: Browser, fast_server: ServerProcess
) -> None:
    ana, bob, cy = room_of(browser, fast_server.http_url, ("Ana", {}), ("Bob", {}), ("Cy", {}))
    expect(ana.locator("#players .who")).to_have_text(["Ana", "Bob", "Cy"])

    # Start with two players not ready: the host is asked, naming them; Cancel starts nothing
    ana.click("#start")
    box = confirm_box(ana)
    expect(box).to_be_visible()
    expect(box.locator("#confirm-text")).to_have_text("Not ready: Bob, Cy. Start anyway?")
    box.locator("#confirm-no").click()
    expect(box).to_be_hidden()
    expect(ana.locator("#view-lobby")).to_be_visible()
    expect(bob.locator("#countdown")).to_be_hidden()

    # once Bob is ready, only Cy is named; "Start anyway" starts the race for everyone
    bob.click("#ready")
    expect(ana.locator("#players .ready-mark.on")).to_have_count(1)
    ana.click("#start")
    expect(box.locator("#confirm-text")).to_have_text("Not ready: Cy. Start anyway?")
    box.locator("#confirm-yes").click()
    for page in (ana, bob, cy):
        wait_board(page)
    expect(confirm_box(bob)).to_be_hidden()  # only the host was asked

    # only the host has End race
    expect(ana.locator("#end-race")).to_be_visible()
    expect(bob.locator("#end-race")).to_be_hidden()

    # Cy's tab closes: away, counting down the 3 s of grace, then out of the race
    cy.context.close()
    status = leaderboard_row(ana, "Cy").locator("td.c-status")
    expect(status).to_have_text(re.compile(r"^away [0-3]s$"))
    expect(status).to_have_text("left")

    # End race asks first, then results for everyone, Cy ranked as left
    ana.click("#end-race")
    expect(box.locator("#confirm-text")).to_contain_text("End the race now for everyone?")
    box.locator("#confirm-yes").click()
    for page in (ana, bob):
        page.wait_for_selector("#view-results:not([hidden])")
        expect(page.locator("#final-lb tbody tr")).to_have_count(3)
    cy_row = ana.locator("#final-lb tr", has=ana.locator("td.c-player", has_text="Cy"))
    expect(cy_row.locator("td.c-status")).to_have_text("left")
    bob_row = ana.locator("#final-lb tr", has=ana.locator("td.c-player", has_text="Bob"))
    expect(bob_row.locator("td.c-status")).to_have_text("stopped")  # still racing at the end

    # the host leaves: Bob hosts at once, on the page he is on (Rematch appears), then the lobby
    expect(bob.locator("#rematch")).to_be_hidden()
    ana.click("#leave-results")
    expect(ana.locator("#view-home")).to_be_visible()
    expect(bob.locator("#rematch")).to_be_visible()
    bob.click("#rematch")
    bob.wait_for_selector("#view-lobby:not([hidden])")
    expect(bob.locator("#start")).to_be_visible()
    expect(bob.locator("#room-settings input[name=draw]").first).to_be_enabled()
    bob_item = bob.locator("#players li", has=bob.locator(".who", has_text="Bob"))
    expect(bob_item.locator(".badge", has_text="host")).to_be_visible()


def test_a_bot_shows_ready_and_start_does_not_wait_for_it(
    browser: Browser, fast_server: ServerProcess
) -> None:
    base = fast_server.http_url
    ana, bob = new_page(browser), new_page(browser)
    room = create_room(ana, base, "Ana")
    join_by_link(bob, base, room, "Bob")
    ana.click("#add-bot")
    bot = ana.locator("#players li", has=ana.locator(".badge", has_text="bot"))
    expect(bot.locator(".ready-mark")).to_have_text("\u2713 Ready")
    expect(bot.locator(".ready-mark")).to_have_class(re.compile(r"\bon\b"))
    bob_bot = bob.locator("#players li", has=bob.locator(".badge", has_text="bot"))
    expect(bob_bot.locator(".ready-mark")).to_have_text("\u2713 Ready")  # the same for all
    # only Bob is named as not ready; once he is, Start starts at once
    ana.click("#start")
    expect(confirm_box(ana).locator("#confirm-text")).to_have_text("Not ready: Bob. Start anyway?")
    confirm_box(ana).locator("#confirm-no").click()
    bob.click("#ready")
    ana.click("#start")
    for page in (ana, bob):
        wait_board(page)


def test_a_late_joiner_watches_then_races_after_the_rematch(
    browser: Browser, fast_server: ServerProcess
) -> None:
    base = fast_server.http_url
    ana, lu = new_page(browser), new_page(browser)
    room = create_room(ana, base, "Ana")
    ana.click("#start")  # alone: nobody to wait for, no question
    wait_board(ana)
    expect(confirm_box(ana)).to_be_hidden()

    # Lu opens the link mid-race and asks to play: watches, told when they will race
    lu.goto(f"{base}/r/{room}")
    lu.fill("#name", "Lu")
    lu.click("#join")
    lu.wait_for_selector("#view-race:not([hidden])")
    expect(lu.locator("#race-note")).to_have_text(
        "You will race from the next race (rematch); watching now"
    )
    expect(lu.locator("#board")).to_be_hidden()
    expect(lu.locator("#room-tag")).to_contain_text("Watching")
    expect(leaderboard_row(lu, "Ana")).to_be_visible()

    # the race ends; Lu sees the results (still told), then the rematch seats Lu as a player
    ana.click("#give-up")
    ana.click("#give-up")
    lu.wait_for_selector("#view-results:not([hidden])")
    expect(lu.locator("#waiting-note")).to_be_visible()
    ana.click("#rematch")
    lu.wait_for_selector("#view-lobby:not([hidden])")
    expect(lu.locator("#players .who")).to_have_text(["Ana", "Lu"])
    expect(lu.locator("#spectators li")).to_have_count(0)
    expect(lu.locator("#room-tag")).to_have_text(room)
    expect(lu.locator("#ready")).to_be_visible()
    lu.click("#ready")
    expect(ana.locator("#players .ready-mark.on")).to_have_count(1)
    ana.click("#start")
    wait_board(lu)  # Lu races with a board of their own
    expect(lu.locator("#race-note")).to_be_hidden()
    expect(lu.locator("#give-up")).to_be_visible()
    expect(leaderboard_row(ana, "Lu")).to_be_visible()
    expect(confirm_box(ana)).to_be_hidden()


def test_a_spectator_whose_seat_went_rejoins_by_itself(
    browser: Browser, fast_server: ServerProcess
) -> None:
    base = fast_server.http_url
    ana, vi = new_page(browser), new_page(browser)
    frames = record_frames(vi)
    with ana.expect_websocket() as socket:
        room = create_room(ana, base, "Ana")
    join_by_link(vi, base, room, "Vi", watch=True)
    ana.click("#start")
    wait_board(ana)
    vi.wait_for_selector("#view-race:not([hidden])")

    # Vi's page goes away: a spectator's seat is freed at once (the room says so)
    def room_without_vi(payload: str | bytes) -> bool:
        msg = json.loads(payload)
        return msg["type"] == "room" and all(m["name"] != "Vi" for m in msg["members"])

    with socket.value.expect_event("framereceived", predicate=room_without_vi):
        vi.goto("about:blank")

    # back on the link: the stored token is refused, and the page takes a new seat silently
    vi.add_init_script(WATCH_HOME)
    vi.goto(f"{base}/r/{room}")
    vi.wait_for_selector("#view-race:not([hidden])")
    assert vi.evaluate("window.homeSeen") == [], "the home page or an error showed on the way"
    expect(leaderboard_row(vi, "Ana")).to_be_visible()
    expect(vi.locator("#view-home")).to_be_hidden()
    expect(vi.locator("#home-error")).to_have_text("")
    expect(vi.locator("#toast")).to_be_hidden()
    codes = [f.get("code") for f in frames if f["type"] == "error"]
    assert codes == ["bad-token"], codes
    joined = [f for f in frames if f["type"] == "joined"]
    assert [j["role"] for j in joined] == ["spectator", "spectator"]
    assert joined[0]["player_id"] != joined[1]["player_id"]
    # the room sees the same name back among the spectators
    ana.click("#give-up")
    ana.click("#give-up")
    ana.wait_for_selector("#view-results:not([hidden])")
    ana.click("#rematch")
    ana.wait_for_selector("#view-lobby:not([hidden])")
    expect(ana.locator("#spectators .who")).to_have_text(["Vi"])
