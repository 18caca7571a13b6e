"""The lobby says what its caps cap, asks before it removes anyone, and keeps
every setting in reach on a phone; the room limits of a shared network are
worded for the reader, with the time on the reader's own clock and its zone.

One server per test (each needs its own limits), few pages: the host's page
is resized through the four sizes and switched between English and Croatian.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from playwright.sync_api import Browser, expect

from tests.conftest import ServerFactory
from tests.web.pages import (
    confirm_box,
    create_room,
    join_by_link,
    new_page,
    pick_language,
    record_frames,
)

SIZES = [(1920, 1080), (1366, 768), (390, 844), (360, 740)]
#: a zone with no summer time, so the expected name never changes
ZONE = "Asia/Tokyo"

#: every setting the host can change: scrolled to (as focus or a tap scrolls),
#: is it the element under its own centre (nothing covers it)? And at the bottom
#: of the page, is the last setting whole, in the window and clear of the Start bar?
REACH = """() => {
    const covered = [];
    for (const el of document.querySelectorAll('#room-settings input, #room-settings select')) {
        window.scrollTo(0, 0);
        el.scrollIntoView({ block: 'nearest' });
        const box = el.getBoundingClientRect();
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        if (!el.contains(hit) && !(hit && hit.contains(el) && hit.tagName === 'LABEL')) {
            covered.push(`${el.name}=${el.value} under ${hit && (hit.id || hit.tagName)}`);
        }
    }
    window.scrollTo(0, document.scrollingElement.scrollHeight);
    const labels = document.querySelectorAll('#room-settings label');
    const last = labels[labels.length - 1].getBoundingClientRect();
    const start = document.querySelector('#start').getBoundingClientRect();
    const fixed = getComputedStyle(document.querySelector('#start')).position === 'fixed';
    return {
        covered,
        lastInWindow: last.top >= 0 && last.bottom <= innerHeight,
        clearOfBar: !fixed || last.bottom <= start.top,
        fixed,
        text: labels[labels.length - 1].textContent,
    };
}"""


def test_caps_say_what_they_cap_remove_asks_once_and_no_setting_is_covered(
    browser: Browser, server_factory: ServerFactory
) -> None:
    server = server_factory(env={"CANFIELD_MAX_BOTS_PER_ROOM": "1"})
    base = server.http_url
    host = new_page(browser)
    guest = new_page(browser)
    room = create_room(host, base, "Host")
    join_by_link(guest, base, room, "Guest")
    players = host.locator("#players .who")

    # the bot cap names bots, not people (the room takes 16 players)
    host.click("#add-bot")
    expect(players).to_have_text(["Host", "Guest", "Bot 1"])
    host.click("#add-bot")
    error = host.locator("#lobby-error")
    expect(error).to_have_text("No room for another bot: a room takes at most 1 bot.")

    for lang in ("en", "hr"):
        pick_language(host, lang)
        for width, height in SIZES:
            host.set_viewport_size({"width": width, "height": height})
            got = host.evaluate(REACH)
            where = f"{lang} {width}x{height}: {got}"
            assert got["covered"] == [], where
            assert got["lastInWindow"] and got["clearOfBar"], where
            assert got["fixed"] == (width < 760), where  # the bar is a phone's
    host.click("#add-bot")
    expect(error).to_have_text("Nema mjesta za još jednog bota: u sobi ih može biti najviše 1.")

    # Remove asks once; Escape or Cancel keeps the guest, yes removes them
    guest_row = host.locator("#players li", has=host.locator(".who", has_text="Guest"))
    box = confirm_box(host)
    host.set_viewport_size({"width": 390, "height": 844})
    guest_row.locator("button.kick").click()
    expect(box).to_be_visible()
    expect(host.locator("#confirm-text")).to_have_text("Ukloniti Guest iz sobe?")
    host.keyboard.press("Escape")
    expect(box).to_be_hidden()
    guest_row.locator("button.kick").click()
    host.click("#confirm-no")
    expect(box).to_be_hidden()
    expect(players).to_have_text(["Host", "Guest", "Bot 1"])
    expect(guest.locator("#view-lobby")).to_be_visible()  # nothing was sent
    guest_row.locator("button.kick").click()
    host.click("#confirm-yes")
    expect(players).to_have_text(["Host", "Bot 1"])
    expect(guest.locator("#view-home")).to_be_visible()


#: the burst refusal's words before the time, and the time's lead-in (a date may come first)
BURST = {
    "en": (
        "Your network made 2 rooms in the last minute, the most it may. You can make the next"
        " one from ",
        "(.+ at )?",
    ),
    "hr": (
        "S tvoje mreže u zadnjoj su minuti napravljene 2 sobe, koliko je najviše dopušteno."
        " Sljedeću možeš napraviti od ",
        "(.+ u )?",
    ),
}


def refusal(frames: list[dict[str, Any]], cap: str) -> dict[str, Any]:
    found = [f for f in frames if f.get("type") == "error" and f["params"].get("cap") == cap]
    assert found, f"no refusal for {cap}"
    return found[-1]


def clock_text(retry_at: int, lang: str) -> str:
    """The refusal's time as the page should print it in Tokyo: "8:05 AM GMT+9"."""
    at = datetime.fromtimestamp(retry_at / 1000, UTC).astimezone(ZoneInfo(ZONE))
    if lang == "en":
        return f"{at.hour % 12 or 12}:{at.minute:02d} {'AM' if at.hour < 12 else 'PM'} GMT+9"
    return f"{at.hour:02d}:{at.minute:02d} GMT+9"


def test_room_limits_of_a_shared_network_are_worded_with_the_readers_time_zone(
    browser: Browser, server_factory: ServerFactory
) -> None:
    server = server_factory(
        env={"CANFIELD_MAX_OPEN_ROOMS_PER_IP": "1", "CANFIELD_MAX_NEW_ROOMS_PER_IP_PER_MIN": "2"}
    )
    base = server.http_url
    maker = new_page(browser)
    reader = new_page(browser, timezone_id=ZONE)
    frames = record_frames(reader)
    error = reader.locator("#home-error")

    def create() -> None:
        reader.fill("#name", "Iva")
        reader.click("#create")

    # one room open from this address: the next waits for one to close, not for a time
    create_room(maker, base, "Ana")
    reader.goto(base + "/")
    create()
    expect(error).to_have_text(
        "Your network already has 1 room open, the most it may. Finish a race or leave"
        " a room you no longer use, then make a new one."
    )
    pick_language(reader, "hr")
    create()
    expect(error).to_have_text(
        "S tvoje mreže već je otvorena 1 soba, koliko je najviše dopušteno. Završi utrku"
        " ili napusti sobu koju više ne koristiš, pa napravi novu."
    )
    assert refusal(frames, "open_rooms")["params"]["limit"] == 1

    # rooms closed at once still count in the minute's burst: the third waits for it
    maker.click("#leave-lobby")
    expect(maker.locator("#view-home")).to_be_visible()
    create_room(maker, base, "Ana")
    maker.click("#leave-lobby")
    expect(maker.locator("#view-home")).to_be_visible()
    for lang in ("hr", "en"):
        pick_language(reader, lang)
        create()
        head, then = BURST[lang]
        expect(error).to_contain_text(head)
        # the oldest room's creation and a minute, on the reader's clock in Tokyo
        at = re.escape(clock_text(refusal(frames, "new_rooms")["params"]["retry_at"], lang))
        expect(error).to_have_text(re.compile(rf"^{re.escape(head)}{then}{at}\.$"))
    # a time that is not today carries its date, in the reader's language
    later = reader.evaluate(
        """async () => (await import('/js/errors.js')).localTime(Date.UTC(2031, 0, 15, 3, 4))"""
    )
    assert later == "January 15 at 12:04 PM GMT+9"
