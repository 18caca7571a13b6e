"""Challenge links in a real browser on a real server: "Challenge a friend" on
a finished race's results makes a link whose page says what to beat, in English
and Croatian, never names the deal, and fits every screen; a link that is not
one gets the 404 page that says so. Screenshots: ``tests/web/screenshots_challenge.py``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, expect

from tests.web.pages import (
    create_room,
    give_up,
    low_contrast,
    new_page,
    pick_language,
    quick_server,
    set_deal,
    wait_board,
)

DEAL = "CF1-D3-AAADKOH"
SIZES = [(1920, 1080), (1366, 768), (390, 844), (360, 740)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with quick_server(tmp_path_factory.mktemp("challenge")) as made:
        yield made


def make_challenge(page: Page, base: str, name: str) -> str:
    """A one-racer race on DEAL given up at once, then "Challenge a friend": the link."""
    create_room(page, base, name)
    set_deal(page, DEAL)
    page.click("#start")
    wait_board(page)
    give_up(page)
    page.wait_for_selector("#view-results:not([hidden])")
    page.click("#make-challenge")
    link = page.locator("#challenge-link")
    expect(page.locator("#challenge-out")).to_be_visible()
    href = link.get_attribute("href") or ""
    assert href.startswith(f"{base}/c/") and len(href.rsplit("/", 1)[1]) == 16, href
    expect(page.locator("#make-challenge")).to_be_hidden()  # made once for this race
    return href


def test_a_challenge_made_on_the_results_opens_a_page_that_says_what_to_beat(
    browser: Browser, server: ServerProcess
) -> None:
    maker = new_page(browser)
    link = make_challenge(maker, server.http_url, "Ana")
    page = new_page(browser, viewport={"width": 1366, "height": 768})
    page.goto(link)
    expect(page.locator("#ch-title")).to_have_text("Beat Ana's 1 of 52 cards home on this deal")
    expect(page.locator("#ch-what")).to_contain_text("Draw 3")
    expect(page.locator("#ch-none")).to_be_visible()
    assert DEAL not in page.content()
    assert low_contrast(page) == []
    pick_language(page, "hr")
    expect(page.locator("#ch-title")).to_contain_text("Ana – 1 od 52 karte na temeljima")
    # the page's kicker says it is a challenge, once: the title does not say it again
    for lang, word in (("hr", "izazov"), ("en", "challenge")):
        pick_language(page, lang)
        expect(page.locator("#ch-race")).to_be_visible()
        assert page.locator(".ch-head").inner_text().lower().count(word) == 1, lang
    pick_language(page, "hr")
    expect(page.locator("#ch-none")).to_have_text("Još se nitko nije utrkivao")
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        width_now = page.evaluate("document.scrollingElement.scrollWidth")
        assert width_now <= width, (width, height)


def test_a_link_that_is_no_challenge_says_so(browser: Browser, server: ServerProcess) -> None:
    page = new_page(browser)
    response = page.goto(f"{server.http_url}/c/AAAAAAAAAAAAAAAA")
    assert response is not None and response.status == 404
    expect(page.locator("#missing-text")).to_contain_text(
        "There is no challenge at /c/AAAAAAAAAAAAAAAA"
    )
    expect(page.locator("#missing-text")).to_contain_text("30 days")


def take(browser: Browser, link: str, name: str) -> Page:
    """Open the link, type a name, race the ghost, give up; back on its standing."""
    page = new_page(browser)
    page.goto(link)
    page.fill("#ch-name", name)
    expect(page.locator("#ch-race")).to_have_text("Race Ana's ghost")
    page.click("#ch-race")
    wait_board(page)
    assert DEAL not in page.content()  # the race's page never names the deal
    give_up(page)
    page.wait_for_selector("#view-results:not([hidden])")
    expect(page.locator("#deal-code")).to_have_text(DEAL)  # once the race is over
    # how the taker did against the challenge's racer, as after any ghost race
    compare = page.locator("#ghost-compare li")
    expect(compare).to_have_text("You and Ana's ghost had the same cards home: 1.")
    expect(page.locator("#final-lb tbody tr.ghost-row .ghost-tag")).to_have_text("ghost")
    pick_language(page, "hr")
    expect(compare).to_have_text("Jednako karata na temeljima kao duh Ana: 1.")
    pick_language(page, "en")
    page.click("#challenge-standing")
    page.wait_for_url(link)
    return page


def test_a_challenge_raced_by_two_people_shows_both_on_its_standing(
    browser: Browser, server: ServerProcess
) -> None:
    link = make_challenge(new_page(browser), server.http_url, "Ana")
    take(browser, link, "Bo")
    page = take(browser, link, "Cy")
    rows = page.locator("#ch-rows li .who")
    expect(rows).to_have_count(2)
    assert sorted(rows.all_text_contents()) == ["Bo", "Cy"]
    expect(page.locator("#ch-none")).to_be_hidden()
    page.goto(f"{server.http_url}/me")  # Cy's history links the challenge
    expect(page.locator("#me-history a.challenge-link").first).to_have_attribute(
        "href", link.removeprefix(server.http_url)
    )
