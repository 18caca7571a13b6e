"""Results that claim only what happened, in a real browser.

Three racers on one deal: Ana and Bob put the same three cards home, Ana
first; the host ends the race while all three still play. Nobody won, the
page says so, names the tie-break that put Ana ahead of Bob and shows
everyone still racing as stopped. Then two racers who give up at once with
only the base card home share first place, in Croatian, and a spectator
is told of each finish as it happens.
"""

from __future__ import annotations

import re

from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, expect

from tests.web.helpers import DEAL, play_home, start_race
from tests.web.pages import (
    PHONE,
    confirm_box,
    give_up,
    join_by_link,
    new_page,
    race_button,
    room_of,
    set_deal,
    wait_board,
)


def standings(page: Page) -> list[tuple[str, str, str]]:
    """(rank, player, status) per row of the final standings."""
    return [
        (row[0], row[1], row[2])
        for row in page.eval_on_selector_all(
            "#final-lb tbody tr",
            """trs => trs.map(tr => ['c-rank', 'c-player', 'c-status']
                 .map(c => tr.querySelector('td.' + c).textContent))""",
        )
    ]


def test_a_stopped_race_with_a_tie_broken_by_who_got_there_first(
    browser: Browser, shared_server: ServerProcess
) -> None:
    ana, bob, cy = room_of(browser, shared_server.http_url, ("Ana", {}), ("Bob", {}), ("Cy", {}))
    set_deal(ana, DEAL)
    start_race(ana, [bob, cy])
    play_home(ana)
    play_home(bob)  # the same three cards home, later

    ana.click("#end-race")
    confirm_box(ana).locator("#confirm-yes").click()
    for page in (ana, bob, cy):
        page.wait_for_selector("#view-results:not([hidden])")
        expect(page.locator("#winner-call .winner")).to_have_text("Nobody won")
        expect(page.locator("#winner-call .how")).to_have_text("Most cards home: Ana, 3 of 52")
        expect(page.locator("#winner-call .tie-break")).to_have_text(
            re.compile(
                r"^Ana and Bob both had 3 cards home; the tie-break is who got there first: "
                r"Ana at 0:\d\d, Bob at 0:\d\d\.$"
            )
        )
    assert standings(ana) == [
        ("1", "Ana", "stopped"),
        ("2", "Bob", "stopped"),
        ("3", "Cy", "stopped"),
    ]
    expect(cy.locator("#winner-call .your-place")).to_have_text("You finished 3rd of 3")
    expect(ana.locator("#winner-call .trophy")).to_have_count(0)  # no trophy for nobody
    # the host's buttons after the race stand in one line, none lower than the others
    expect(ana.locator("#rematch")).to_be_visible()
    tops = ana.eval_on_selector_all(
        ".again-row button",
        "bs => bs.filter(b => !b.hidden).map(b => b.getBoundingClientRect().top)",
    )
    assert len(tops) >= 2 and max(tops) - min(tops) < 0.5, tops


def test_a_true_tie_shares_first_place_and_every_finish_is_told_in_croatian(
    browser: Browser, shared_server: ServerProcess
) -> None:
    base = shared_server.http_url
    ana, bob = room_of(browser, base, ("Ana", {"locale": "hr-HR"}), ("Bob", {"locale": "hr-HR"}))
    watcher = new_page(browser, locale="hr-HR")
    room = ana.url.rsplit("/", 1)[1]
    join_by_link(watcher, base, room, "Vi", watch=True)
    set_deal(ana, DEAL)
    start_race(ana, [bob])

    give_up(ana)
    # while Bob plays on, Ana's place so far is shared: said so, as the lanes show it
    expect(ana.locator(".finish-card .place-text")).to_have_text("1. od 2 (dijeljeno)")
    expect(watcher.locator("#race-news .news")).to_have_text(["Ana odustaje, 1 karta na temeljima"])
    expect(bob.locator("#race-news .news")).to_have_text(["Ana odustaje, 1 karta na temeljima"])
    give_up(bob)
    for page in (ana, bob, watcher):
        page.wait_for_selector("#view-results:not([hidden])")
        expect(page.locator("#winner-call .winner")).to_have_text("Nitko nije pobijedio")
        expect(page.locator("#winner-call .how")).to_have_text(  # a tie has no order
            re.compile(r"^Neriješeno za prvo mjesto: (Ana i Bob|Bob i Ana), svatko 1 od 52$")
        )
    assert [rank for rank, _, _ in standings(watcher)] == ["1", "1"]
    expect(bob.locator("#winner-call .your-place")).to_have_text(
        "Tvoje mjesto: 1. od 2 (dijeljeno)"
    )


def test_race_again_is_one_tap_per_racer_and_no_ready_step(
    browser: Browser, shared_server: ServerProcess
) -> None:
    hr = {"locale": "hr-HR"}
    ana, bob, cy = room_of(browser, shared_server.http_url, ("Ana", {}), ("Bob", {}), ("Cy", hr))
    set_deal(ana, DEAL)
    start_race(ana, [bob, cy])
    for page in (ana, bob, cy):
        give_up(page)
    for page in (ana, bob, cy):
        page.wait_for_selector("#view-results:not([hidden])")
        expect(page.locator("#race-again")).to_be_enabled()

    bob.click("#race-again")
    expect(bob.locator("#race-again")).to_be_disabled()
    expect(bob.locator("#race-again")).to_have_text("You're in")
    expect(ana.locator("#again-wait")).to_have_text("Waiting for you and Cy to race again")
    expect(cy.locator("#again-wait")).to_have_text("Čeka se na tebe i: Ana")
    cy.click("#race-again")
    expect(ana.locator("#again-wait")).to_have_text(
        "Everyone else is in: waiting for you to race again"
    )
    ana.click("#race-again")  # the last racer: the next race starts by itself
    for page in (ana, bob, cy):
        wait_board(page)
        expect(page.locator("#race-lb .lane")).to_have_count(3)
    expect(ana.locator("#ready")).to_be_hidden()


def test_the_lanes_follow_every_racer_and_a_pass_reorders_them(
    browser: Browser, shared_server: ServerProcess
) -> None:
    """Bob puts three cards home: on Ana's phone and on a Croatian page his lane
    shows them at once and moves above Ana's (no card of his board shown)."""
    ana, bob, cy = room_of(
        browser, shared_server.http_url, ("Ana", PHONE), ("Bob", {}), ("Cy", {"locale": "hr-HR"})
    )
    set_deal(ana, DEAL)
    start_race(ana, [bob, cy])
    lanes = ana.locator("#race-lb .lane")
    expect(lanes).to_have_count(3)
    expect(lanes.locator(".count")).to_have_text(["1", "1", "1"])
    game = play_home(bob)
    # his columns were refilled from his reserve: what the lane's lighter bar and mark show
    assert (sum(len(col) for col in game.tableau), len(game.reserve)) == (4, 11)
    expect(lanes.first.locator(".name")).to_have_text("Bob")
    expect(lanes.first.locator(".place")).to_have_text("1")
    expect(lanes.first.locator(".count")).to_have_text("3")
    expect(lanes.first.locator(".mark")).to_have_text("11 in reserve")
    # his round trip follows once the server measured it
    rtt = r"(, Round trip to the server: \d+ ms)?$"
    expect(lanes.first).to_have_attribute(
        "aria-label",
        re.compile(r"^1\. Bob, 3 cards home, 4 cards in the columns, 11 in reserve" + rtt),
    )
    rtt_hr = r"(, Odziv poslužitelja: \d+ ms)?$"
    expect(cy.locator("#race-lb .lane").first).to_have_attribute(
        "aria-label",
        re.compile(r"^1\. Bob, 3 karte na temeljima, 4 karte u stupcima, pričuva: 11" + rtt_hr),
    )
    box = lanes.first.bounding_box()
    assert box and box["y"] + box["height"] <= 844  # the strip is on the phone's screen
    assert ana.locator("#race-lb .lane .card").count() == 0  # progress only, never cards

    # the host ends it (on her phone, behind More): Croatian says the racers were stopped
    race_button(ana, "#end-race").click()
    confirm_box(ana).locator("#confirm-yes").click()
    cy.wait_for_selector("#view-results:not([hidden])")
    expect(cy.locator("#final-lb td.c-status")).to_have_text(["prekinuto"] * 3)
