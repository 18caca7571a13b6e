"""The waiting screen of a public race, in the browser on a real server: after
"Race now" alone, "Looking for racers" with the time waited ticking, how many
search in that draw mode (the server's count: racers in the other draw mode
are not in it, a racer in the same one is), the rating band in words as it
widens, a bot race offered from the start (one click: a race against a bot),
and Cancel back home. Nothing in a public race speaks of a host: not while
waiting, racing, in the results nor after Race again. Screenshots at four
sizes in both languages (``/tmp/shots-waiting``).
"""

from __future__ import annotations

import re
from pathlib import Path

from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, expect

from tests.conftest import ServerFactory
from tests.web.helpers import race_now, rated_far
from tests.web.pages import (
    give_up,
    low_contrast,
    new_page,
    pick_language,
    record_frames,
    wait_board,
)

SIZES = [(1920, 1080), (1366, 768), (390, 844), (360, 740)]
SHOTS = Path("/tmp/shots-waiting")
#: bands of 100 that widen by 100 every 2 s
WIDENING = {"CANFIELD_QUICK_BAND_WIDEN_S": "2"}
#: bands of 50 that widen by 10 every 2 s: a racer 600 above newcomers meets none
#: of them within the test
APART = {
    "CANFIELD_QUICK_BAND_POINTS": "50",
    "CANFIELD_QUICK_BAND_WIDEN_POINTS": "10",
    "CANFIELD_QUICK_BAND_WIDEN_S": "2",
}
#: a band past APART's first 50 points
WIDER_THAN_50 = re.compile(r"within ([6-9]\d|[1-9]\d{2,}) points")
#: the word for the host, in each language
HOST = {"en": "host", "hr": "domaćin"}


#: records every screen the page shows from now on (``window.viewsSeen``)
VIEWS_SEEN = """() => {
    window.viewsSeen = [];
    new MutationObserver(() => window.viewsSeen.push(document.body.dataset.view))
        .observe(document.body, { attributes: true, attributeFilter: ["data-view"] });
}"""


def seconds(text: str) -> int:
    minutes, secs = text.split(":")
    return int(minutes) * 60 + int(secs)


def no_host_words(page: Page) -> None:
    """No visible word of the page names a host, in either language."""
    for lang, word in HOST.items():
        pick_language(page, lang)
        shown = page.evaluate("document.body.innerText").lower()
        # a whole word: the ghost offered on the waiting screen is no host
        assert not re.search(rf"\b{word}\b", shown), f"{word!r} shown in {lang}: {shown[:400]}"
    pick_language(page, "en")


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for lang in HOST:
        pick_language(page, lang)
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.screenshot(path=str(SHOTS / f"{name}-{lang}-{width}.png"))
    pick_language(page, "en")
    page.set_viewport_size({"width": 1366, "height": 768})


def test_waiting_alone_ticks_says_the_band_offers_a_bot_and_cancels_home(
    browser: Browser, server_factory: ServerFactory
) -> None:
    base = server_factory(env=WIDENING).http_url
    ana = new_page(browser)
    frames = record_frames(ana)
    race_now(ana, base, "Ana")
    view = ana.locator("#view-search")
    expect(view).to_be_visible()
    expect(ana.locator("#view-lobby")).to_be_hidden()
    expect(ana.locator("#search-title")).to_have_text("Looking for racers")
    expect(ana.locator("#search-mode")).to_have_text("Draw 3 cards")
    expect(ana.locator("#search-count")).to_have_text(
        "Only you are looking for a race in this draw mode right now."
    )
    expect(ana.locator("#bot-offer")).to_be_visible()
    expect(ana.locator("#race-bot")).to_be_enabled()
    expect(ana).to_have_title(re.compile(r"^Looking for racers - [A-Z0-9]{6} - Canfield Race$"))

    # the time waited ticks on
    clock = ana.locator("#search-clock")
    expect(clock).to_have_text(re.compile(r"^\d+:\d\d$"))
    first = seconds(clock.inner_text())
    expect(clock).not_to_have_text(clock.inner_text())
    assert seconds(clock.inner_text()) > first

    # the band, in words, as it widens
    band = ana.locator("#search-band")
    expect(band).to_contain_text(re.compile(r"within (1|2|3)00 points of your rating"))
    expect(band).to_contain_text("within 300 points of your rating; the range widens")
    # the bot race was offered before the band had first widened: from the start
    kinds = [(f["type"], f.get("band")) for f in frames]
    offered = kinds.index(("bot_offer", None))
    assert offered < kinds.index(("searching", 200)), kinds

    no_host_words(ana)
    assert low_contrast(ana) == []
    pick_language(ana, "hr")
    expect(ana.locator("#search-title")).to_have_text("Traže se natjecatelji")
    expect(band).to_contain_text("bodova od tvojeg rejtinga")
    expect(ana.locator("#cancel-search")).to_have_text("Odustani")
    pick_language(ana, "en")
    shoot(ana, "alone")

    # a reload: the same wait goes on, its clock kept, the bot still offered
    waited = seconds(clock.inner_text())
    ana.reload()
    expect(view).to_be_visible()
    expect(ana.locator("#bot-offer")).to_be_visible()
    expect(ana.locator(".search-clock")).to_be_visible()  # once the server has said when
    assert seconds(clock.inner_text()) >= waited

    # Cancel: out of the queue, back home
    ana.click("#cancel-search")
    expect(ana.locator("#view-home")).to_be_visible()
    assert ana.url == base + "/"
    left = [f for f in frames if f["type"] == "left"]
    assert len(left) == 1


def test_the_count_is_of_racers_searching_in_your_draw_mode(
    browser: Browser, server_factory: ServerFactory
) -> None:
    server = server_factory(env=APART)
    base = server.http_url
    far, bob, ana = new_page(browser), new_page(browser), new_page(browser)
    rated_far(far, base, server.redis_url)
    alone = "Only you are looking for a race in this draw mode right now."
    two = "2 racers are looking for a race in this draw mode right now, you included."

    race_now(far, base, "Far")
    expect(far.locator("#search-count")).to_have_text(alone)
    race_now(bob, base, "Bob", draw=1)  # another draw mode: not counted with Far
    expect(bob.locator("#search-mode")).to_have_text("Draw 1 card")
    expect(bob.locator("#search-count")).to_have_text(alone)
    race_now(ana, base, "Ana")  # Draw 3, but 600 below Far: both search on
    expect(ana.locator("#search-count")).to_have_text(two)
    expect(far.locator("#search-count")).to_have_text(two)  # at Far's next look
    # told again, wider: past the 50 points Bob started with (by how much
    # depends on how long the steps above took: 10 more every 2 s)
    expect(bob.locator("#search-band")).to_contain_text(WIDER_THAN_50)
    expect(bob.locator("#search-count")).to_have_text(alone)
    assert far.url != ana.url

    pick_language(far, "hr")
    expect(far.locator("#search-count")).to_have_text(
        "2 natjecatelja trenutačno traže utrku u ovom načinu izvlačenja, uključujući tebe."
    )
    shoot(far, "two")

    ana.click("#cancel-search")  # Ana leaves the queue: Far searches alone again
    expect(far.locator("#search-count")).to_have_text(alone)


def test_the_bot_offer_starts_a_race_against_a_bot(browser: Browser, server: ServerProcess) -> None:
    ana = new_page(browser)
    race_now(ana, server.http_url, "Ana")
    ana.click("#race-bot")
    wait_board(ana)
    expect(ana.locator("#race-lb tbody tr")).to_have_count(2)
    expect(ana.locator("#race-lb")).to_contain_text("Ana")


def test_no_host_in_a_public_race_nor_in_the_next_one(
    browser: Browser, server_factory: ServerFactory
) -> None:
    base = server_factory(env={"CANFIELD_COUNTDOWN_S": "1"}).http_url
    ana, bob = new_page(browser), new_page(browser)
    race_now(ana, base, "Ana")
    no_host_words(ana)
    race_now(bob, base, "Bob")
    for page in (ana, bob):
        wait_board(page)
    no_host_words(ana)
    for page in (ana, bob):
        give_up(page)
    expect(ana.locator("#view-results")).to_be_visible()
    expect(ana.locator("#rematch")).to_be_hidden()
    no_host_words(ana)
    shoot(ana, "results")

    # Race again: the waiting screen of the next public race, still no host, and
    # the home page never shown on the way
    ana.evaluate(VIEWS_SEEN)
    ana.click("#race-again")
    expect(ana.locator("#view-search")).to_be_visible()
    assert ana.evaluate("window.viewsSeen") == ["search"]
    expect(ana.locator("#search-title")).to_have_text("Looking for racers")
    no_host_words(ana)
    bob.click("#race-again")
    for page in (ana, bob):
        wait_board(page)
    assert ana.url == bob.url
    no_host_words(bob)
