"""Race now, in the browser: two pages press "Race now" (Draw 3), land in one
public race, see its countdown and their boards; the home page lists the
race as live (a link to watch it), at four sizes and in both languages.
When the race ends, the results show each racer's new rating and the
race's change, as the ``finished`` rows carry them.
"""

from __future__ import annotations

from pathlib import Path

from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, expect

from tests.conftest import ServerFactory
from tests.web.helpers import press_race_now, race_now, rated_far, ready_to_race
from tests.web.pages import give_up, new_page, pick_language, race_button, record_frames, wait_board

SIZES = [(1920, 1080), (1366, 768), (390, 844), (360, 740)]
SHOTS = Path("/tmp/shots-quick")


def test_race_now_puts_two_pages_in_one_public_race_listed_live(
    browser: Browser, server: ServerProcess
) -> None:
    base = server.http_url
    ana, bob = new_page(browser), new_page(browser)
    frames = record_frames(ana)
    race_now(ana, base, "Ana")
    expect(ana.locator("#view-search")).to_be_visible()  # waiting, not a room's lobby
    expect(ana.locator("#view-lobby")).to_be_hidden()  # nobody hosts a public race
    race_now(bob, base, "Bob")
    assert bob.url == ana.url  # the same race
    for page in (ana, bob):
        wait_board(page)
        expect(page.locator("#race-lb")).to_contain_text("Ana")
        expect(page.locator("#race-lb")).to_contain_text("Bob")
    room = ana.url.rsplit("/", 1)[1]

    # the home page lists it, a link to watch it
    home = new_page(browser)
    SHOTS.mkdir(parents=True, exist_ok=True)
    home.goto(base + "/")
    race = home.locator(f'#live-list a[href="/r/{room}?watch=1"]')
    expect(race).to_contain_text("2 racers")
    expect(race).to_contain_text("Ana, Bob")
    for lang, words in (("hr", "2 natjecatelja"), ("en", "2 racers")):
        pick_language(home, lang)
        expect(race).to_contain_text(words)
        expect(home.locator("#quick-3")).to_be_visible()
        for width, height in SIZES:
            home.set_viewport_size({"width": width, "height": height})
            home.screenshot(path=str(SHOTS / f"home-{lang}-{width}.png"))
    home.fill("#name", "Cy")
    race.click()  # one click: watching the race
    expect(home.locator("#view-race")).to_be_visible()
    expect(home.locator("body.spectator")).to_have_count(1)

    # the race ends: each racer's new rating and its change, from the finished rows
    for page in (ana, bob):
        give_up(page)
    ratings = ana.locator("#race-ratings")
    expect(ratings).to_be_visible()
    (finished,) = [f for f in frames if f["type"] == "finished"]
    rated = {row["name"]: row for row in finished["standings"]}
    assert set(rated) == {"Ana", "Bob"}
    for row in rated.values():
        assert row["rating"] > 0 and row["rating_deviation"] > 0
        assert isinstance(row["rating_change"], int)
    # the racer ranked first moved up more than the one ranked second
    first, second = sorted(rated.values(), key=lambda row: row["rank"])
    assert first["rating_change"] >= second["rating_change"]
    for lang, title in (("en", "Ratings after this race"), ("hr", "Rejtinzi nakon ove utrke")):
        pick_language(ana, lang)
        expect(ratings).to_contain_text(title)
        for name, row in rated.items():
            line = ratings.locator(f'li:has-text("{name}")')
            # newcomers: each rating is provisional, marked "?"
            assert row["rating_provisional"] is True
            expect(line).to_contain_text(f"? ± {row['rating_deviation']}")
            change = row["rating_change"]
            sign = "+" if change > 0 else "\u2212" if change < 0 else "\u00b1"
            expect(line).to_contain_text(f"({sign}{abs(change)})")
        for width, height in SIZES:
            ana.set_viewport_size({"width": width, "height": height})
            ratings.scroll_into_view_if_needed()
            ana.screenshot(path=str(SHOTS / f"results-{lang}-{width}.png"))


#: bands of 50 points that widen by 1000 every 3 s: two lone racers 600 apart meet
#: at the first look again. The second asks well before the first's band widens,
#: its page open and its name typed before the first presses (a page loaded after
#: the first's press took longer than 2 s on a loaded machine: it went straight
#: into the first's widened race)
BANDS = {
    "CANFIELD_QUICK_BAND_POINTS": "50",
    "CANFIELD_QUICK_BAND_WIDEN_POINTS": "1000",
    "CANFIELD_QUICK_BAND_WIDEN_S": "3",
    "CANFIELD_COUNTDOWN_S": "2",
}


def test_a_lone_racer_moved_into_another_race_sees_it_and_never_goes_home(
    browser: Browser, server_factory: ServerFactory
) -> None:
    server = server_factory(env=BANDS)
    base = server.http_url
    far, ana = new_page(browser), new_page(browser)
    rated_far(far, base, server.redis_url)
    # Far is matched at 1600, a newcomer at 1000
    frames = {page: record_frames(page) for page in (far, ana)}

    ready_to_race(far, base, "Far")
    ready_to_race(ana, base, "Ana")
    press_race_now(far)
    press_race_now(ana)
    first = {far: far.url, ana: ana.url}
    assert far.url != ana.url  # too far apart for the first bands: a race each
    for page in (far, ana):
        wait_board(page)
        expect(page.locator("#race-lb")).to_contain_text("Far")
        expect(page.locator("#race-lb")).to_contain_text("Ana")
    assert far.url == ana.url  # one of them moved: both pages show the race they share
    (moved,) = [page for page in (far, ana) if page.url != first[page]]
    for page, seen in frames.items():
        kinds = [f["type"] for f in seen]
        assert kinds.count("joined") == (2 if page is moved else 1), kinds
        assert "left" not in kinds  # never sent home on the way
        expect(page.locator("#view-home")).to_be_hidden()
    SHOTS.mkdir(parents=True, exist_ok=True)
    moved.set_viewport_size({"width": 390, "height": 844})
    moved.screenshot(path=str(SHOTS / "moved-390.png"))


def test_two_racers_who_race_again_are_rated_and_keep_both_races(
    browser: Browser, server: ServerProcess
) -> None:
    """Two racers of a quick race press Race again and race in the next public
    race: its results rate both, and /me lists both races. Both give up with the
    same cards home each time: nobody's rating moves up."""
    base = server.http_url
    ana, bob = new_page(browser), new_page(browser)
    frames = record_frames(ana)
    race_now(ana, base, "Ana")
    race_now(bob, base, "Bob")
    first = ana.url
    for page in (ana, bob):
        wait_board(page)
        race_button(page, "#give-up").click()
        page.click("#give-up")  # "Sure?"
    expect(ana.locator("#race-ratings")).to_be_visible()

    for page in (ana, bob):
        page.click("#race-again")
    for page in (ana, bob):
        page.wait_for_url(lambda url: url != first)
        wait_board(page)
    assert ana.url == bob.url  # the next public race, together
    for page in (ana, bob):
        race_button(page, "#give-up").click()
        page.click("#give-up")
    for page in (ana, bob):
        ratings = page.locator("#race-ratings")
        expect(ratings.locator("li")).to_have_count(2)
        expect(ratings.locator("li .rating-change")).to_have_text(["1,000? ± 312 (±0)"] * 2)
        expect(ratings.locator(".rating-mark")).to_contain_text('"?" is provisional')
    finished = [f for f in frames if f["type"] == "finished"]
    assert len(finished) == 2
    for race in finished:
        assert [row["rating_change"] for row in race["standings"]] == [0, 0]
        assert {row["rating"] for row in race["standings"]} == {1000}
    for page in (ana, bob):
        page.goto(base + "/me")
        expect(page.locator("#me-history tbody tr")).to_have_count(2)
