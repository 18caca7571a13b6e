"""Names, worded by the page in its own language (Croatian here) from the
facts the server sends: a look-alike of a name in the room is refused, and a
typed-in deal is announced as known. A guest who goes away shows in the
lobby with the seconds left to come back. (The room limits' words:
``test_lobby_in_browser.py``.)"""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from tests.conftest import ServerFactory
from tests.web.pages import create_room, new_page, record_frames, set_deal

LOOK_ALIKE = "\u041d\u043est"  # Cyrillic En and o: "Ноst" passes for "Host"


def test_look_alike_name_known_deal_and_an_away_guest_in_croatian(
    browser: Browser, server_factory: ServerFactory
) -> None:
    server = server_factory(env={"CANFIELD_AWAY_GRACE_S": "2"})
    base = server.http_url
    host = new_page(browser)
    guest = new_page(browser, locale="hr-HR")
    frames = record_frames(guest)
    room = create_room(host, base, "Host")
    expect(host.locator("#known-deal")).to_be_hidden()  # a random deal: nothing to say
    set_deal(host, "CF1-D3-AAADKOH")
    expect(host.locator("#known-deal")).to_have_text("Known deal: the host chose it")

    # a name that looks like the host's is refused, in the page's language
    guest.goto(f"{base}/r/{room}")
    guest.fill("#name", LOOK_ALIKE)
    guest.click("#join")
    expect(guest.locator("#home-error")).to_have_text(
        f"Ime {LOOK_ALIKE} je zauzeto u ovoj sobi (ili nalikuje zauzetom). Odaberi drugo."
    )
    # a name with a Hangul filler (it draws as nothing) is refused, in words
    guest.fill("#name", "Host\u3164")
    guest.click("#join")
    expect(guest.locator("#home-error")).to_have_text(
        "Ime ne smije sadržavati nevidljive znakove: koristi slova i brojke."
    )
    guest.fill("#name", "Gost")
    guest.click("#join")
    guest.wait_for_selector("#view-lobby:not([hidden])")
    expect(guest.locator("#known-deal")).to_have_text("Poznato dijeljenje: izbor domaćina")

    assert [f["code"] for f in frames if f["type"] == "error"] == ["bad-name", "bad-name"]

    # the guest's tab closes: away in the lobby, counting down, then the seat goes
    guest.context.close()
    gost = host.locator("#players li", has=host.locator(".who", has_text="Gost"))
    expect(gost.locator(".away-left")).to_have_text(re.compile(r"^away [0-2]s$"))
    expect(host.locator("#players .who")).to_have_text(["Host"])
