"""Fixtures for the browser tests: one headless Chromium per test module, the page's files.

Chromium is Debian's (/usr/bin/chromium, driven by Playwright); without
it the tests skip with the reason locally and fail when ``CI=true``.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from importlib import resources

import pytest
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.conftest import ServerFactory, need
from tests.web.pages import CHROMIUM, EXPECT_MS, launch

expect.set_options(timeout=EXPECT_MS)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Per module, not per session: Playwright's sync API keeps an event loop
    running while it is started, and an asyncio test run after it in the same
    process (a test worker takes modules in any order) could not start its own."""
    need(CHROMIUM.exists(), f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as playwright:
        instance = launch(playwright)
        yield instance
        instance.close()


@pytest.fixture
def fast_server(server_factory: ServerFactory) -> ServerProcess:
    """A real server whose races start after a 0.3 s countdown (the race story's,
    the results' and the sounds' tests; a file may define its own)."""
    return server_factory(env={"CANFIELD_COUNTDOWN_S": "0.3"})


@pytest.fixture(scope="session")
def static_url() -> Iterator[str]:
    """The web client's files over plain HTTP on loopback (ES modules need http://)."""
    root = str(resources.files("canfield_client") / "web")
    handler = functools.partial(QuietHandler, directory=root)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture
def module_page(browser: Browser, static_url: str) -> Iterator[Page]:
    """A page of the web client's origin, for a test that imports its modules."""
    page = browser.new_page()
    page.goto(static_url + "/app.css")  # any page of the same origin, to import modules
    yield page
    page.close()
