"""A browser refused a new identity says why and when, in English and Croatian.

On a real server whose budget of new identities is one per network, then one
a minute, a browser from a network that had its one (behind the trusted
proxy on this host, which names it in ``X-Forwarded-For``:
``forwarded_from``) is refused: /daily still shows the standing, keeps Play
off and says why and from when it tries again; /me says the same in
Croatian; a quick race on the home page says it instead of "reload the
page"; the operator console lists the network with its identities issued and
refused. And once the time it named is over, the daily page gets its
identity by itself, the words go and Play is on: seen on a second process of
the same server, whose budget comes back every 15 s (a network of its own
there), so the test waits 15 s for it and not the first one's minute.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.conftest import ServerFactory
from tests.web.conftest import ForwardedFrom
from tests.web.pages import new_page

TOKEN = "console-token-identities"
ENV = {
    "CANFIELD_IDENTITY_BURST": "1",
    "CANFIELD_IDENTITY_PER_HOUR": "60",
    "CANFIELD_DAILY_DATE": "2031-04-02",
    "CANFIELD_DAILY_SECRET": "identity-budget",
    "CANFIELD_ADMIN_TOKEN": TOKEN,
}
#: the address every page but the console's comes from (the trusted proxy forwards it)
FROM = "198.51.100.7"
#: the second process's budget: one new identity back every 15 s, time enough for
#: a page to load and be refused on a busy machine, and a short wait for the refill
SOON = {**ENV, "CANFIELD_IDENTITY_PER_HOUR": "240"}
#: the network the refill is seen from, on the second process (a budget of its own)
LATER = "203.0.113.20"
#: 15 s' refill, on a busy machine
REFILL_MS = 150_000


def visit(browser: Browser, url: str, **options: Any) -> Page:
    page = new_page(browser, **options)
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(url)
    page.problems = problems  # type: ignore[attr-defined]
    return page


def test_a_refused_identity_is_explained_and_comes_later(
    browser: Browser, server_factory: ServerFactory, forwarded_from: ForwardedFrom
) -> None:
    server = server_factory(env=ENV)
    soon = server_factory(env=SOON)  # the same Redis: one server, two processes
    way_in = forwarded_from(server, FROM)
    first = visit(browser, way_in + "/me")  # the network's one new identity
    expect(first.locator("#me-id")).not_to_be_empty()
    first.context.close()

    daily = visit(browser, way_in + "/daily")
    error = daily.locator("#daily-error")
    expect(error).to_contain_text("cannot get its player identity yet")
    expect(error).to_contain_text("tries again by itself from")
    expect(daily.locator("#daily-play")).to_be_disabled()
    expect(daily.locator("#standing-count")).not_to_be_empty()  # the standing still shows

    me_hr = visit(browser, way_in + "/me", locale="hr-HR")
    expect(me_hr.locator("#me-error")).to_contain_text("ne može dobiti svoj identitet igrača")
    expect(me_hr.locator("#me-error")).to_contain_text("pokušati ponovno od")
    me_hr.context.close()

    home = visit(browser, way_in + "/")
    home.fill("#name", "Ana")
    home.click("#quick-3")
    expect(home.locator("body")).to_contain_text("cannot get its player identity yet")
    home.context.close()

    # the console (from this host, not forwarded): the network, the most issued first
    console = new_page(browser, locale="hr-HR")
    console.goto(server.http_url + "/admin")
    console.fill("#adm-token", TOKEN)
    console.click("#adm-login button[type=submit]")
    expect(console.locator("#adm-ids-sum")).to_contain_text("1 novih identiteta")
    row = console.locator("#adm-ids tbody tr").first
    expect(row.locator("td").nth(0)).to_have_text("198.51.100.0/24")
    expect(row.locator("td").nth(2)).to_have_text("1")  # issued in the day
    expect(row.locator("td").nth(4)).not_to_have_text("0")  # refused in the day
    expect(row.locator("td").nth(5)).to_have_text("0 / 1")
    console.context.close()
    assert not daily.problems  # type: ignore[attr-defined]
    daily.context.close()

    # the time named over, a daily page refused asks again by itself and may play
    later_in = forwarded_from(soon, LATER)
    first = visit(browser, later_in + "/me")  # that network's one new identity
    expect(first.locator("#me-id")).not_to_be_empty()
    first.context.close()
    daily = visit(browser, later_in + "/daily")
    error = daily.locator("#daily-error")
    expect(error).to_contain_text("tries again by itself from")
    expect(daily.locator("#daily-play")).to_be_disabled()
    expect(error).to_be_empty(timeout=REFILL_MS)
    expect(daily.locator("#daily-play")).to_be_enabled()
    assert not daily.problems  # type: ignore[attr-defined]
