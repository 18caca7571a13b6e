"""Leaving and removing, in real browsers on a real server: the host removes a
guest from the lobby, a gone racer from the leaderboard, then leaves."""

from __future__ import annotations

import re

import pytest
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, expect

from tests.conftest import ServerFactory
from tests.web.pages import create_room, join_by_link, leaderboard_row, new_page, wait_board

#: a name whose text means something in HTML: it must show as plain text
BO = "Bo &amp (2)"


@pytest.fixture
def fast_server(server_factory: ServerFactory) -> ServerProcess:
    return server_factory(env={"CANFIELD_COUNTDOWN_S": "0.5"})


def test_the_host_removes_members_and_a_player_leaves(
    browser: Browser, fast_server: ServerProcess
) -> None:
    base = fast_server.http_url
    host, guest, racer = new_page(browser), new_page(browser), new_page(browser)
    room = create_room(host, base, "Ana")
    join_by_link(guest, base, room, BO)
    join_by_link(racer, base, room, "Cy")
    expect(host.locator("#players .who")).to_have_text(["Ana", BO, "Cy"])
    expect(guest.locator("#players button.kick")).to_have_count(0)  # the host's buttons only

    # the lobby: the host removes Bo (once they say so), whose page goes home saying why
    bo = host.locator("#players li", has=host.locator(".who", has_text="Bo"))
    bo.get_by_role("button", name=f"Remove {BO} from the room").click()
    expect(host.locator("#confirm-text")).to_have_text(f"Remove {BO} from the room?")
    host.click("#confirm-yes")
    expect(guest.locator("#view-home")).to_be_visible()
    expect(guest.locator("#home-error")).to_have_text("The host removed you from the room.")
    expect(host.locator("#players .who")).to_have_text(["Ana", "Cy"])

    # the race: Cy's tab closes; the host removes the gone racer from the leaderboard
    racer.click("#ready")  # everyone is ready: Start asks nothing
    expect(host.locator("#players .ready-mark.on")).to_have_count(1)
    host.click("#start")
    wait_board(host)
    wait_board(racer)
    racer.context.close()
    row = leaderboard_row(host, "Cy")
    # away, with the seconds left to come back (the server's grace time, 60 s here)
    expect(row.locator("td.c-status")).to_have_text(re.compile(r"^away [1-6]?\ds$"))
    row.get_by_role("button", name="Remove Cy from the room").click()
    expect(row.locator("td.c-status")).to_have_text("gave up")
    expect(row.locator("button.kick")).to_be_hidden()

    # leaving mid-race asks first, then gives up and ends the race for good
    host.click("#leave-race")
    expect(host.locator("#leave-race")).to_have_text("Sure? Leave (you give up)")
    host.click("#leave-race")
    expect(host.locator("#view-home")).to_be_visible()
    host.goto(f"{base}/r/{room}")  # the seat is gone: the link offers to join, as anyone
    expect(host.locator("#join-title")).to_have_text(f"Join room {room}")
