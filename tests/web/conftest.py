"""Fixtures for the browser tests: one headless Chromium per test module, the page's files.

Chromium is Debian's (its headless shell, or the whole browser: see
canfield_bench.browser), driven by Playwright; without it the tests skip
with the reason locally and fail when ``CI=true``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http.server
import threading
from collections.abc import Callable, Iterator
from importlib import resources

import pytest
from canfield_bench.processes import ServerProcess
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.conftest import need
from tests.web.pages import CHROMIUM, EXPECT_MS, launch

expect.set_options(timeout=EXPECT_MS)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Per module, not per session: Playwright's sync API keeps an event loop
    running while it is started, and an asyncio test run after it in the same
    process (a test worker takes modules in any order) could not start its own."""
    need(CHROMIUM.exists(), f"no Chromium at {CHROMIUM} (apt-get install chromium-headless-shell)")
    with sync_playwright() as playwright:
        instance = launch(playwright)
        yield instance
        instance.close()


@pytest.fixture(autouse=True)
def pages_closed_after_each_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test's pages close when it ends, not with its module's browser: an open
    page goes on drawing its clocks and animations and holding its websocket, and
    a file's later tests ran beside every earlier test's pages."""
    yield
    if "browser" in request.fixturenames:
        browser: Browser = request.getfixturevalue("browser")
        for context in browser.contexts:
            context.close()


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


#: a way in to a server from a network of one's choosing: (server, address) -> base URL
ForwardedFrom = Callable[[ServerProcess, str], str]


async def _forward(
    down_r: asyncio.StreamReader,
    down_w: asyncio.StreamWriter,
    target: int,
    address: str,
    open_ends: set[asyncio.StreamWriter],
) -> None:
    """One connection: its request's head names ``address`` in X-Forwarded-For (any
    such line the client sent goes) and, unless it upgrades to a websocket, closes
    after its answer (one request a connection: no body to follow); then bytes as
    they come, both ways."""
    try:
        head = await down_r.readuntil(b"\r\n\r\n")
        up_r, up_w = await asyncio.open_connection("127.0.0.1", target)
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        down_w.close()
        return
    open_ends.update((down_w, up_w))  # closed at the end of the test
    first, *lines = head.decode("latin-1").split("\r\n")[:-2]
    upgrade = any(line.lower().startswith("upgrade:") for line in lines)
    drop = ("x-forwarded-for:",) + (() if upgrade else ("connection:", "keep-alive:"))
    kept = [line for line in lines if not line.lower().startswith(drop)]
    kept += [f"X-Forwarded-For: {address}"] + ([] if upgrade else ["Connection: close"])
    up_w.write("\r\n".join([first, *kept, "", ""]).encode("latin-1"))

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while chunk := await reader.read(65536):
                writer.write(chunk)
                await writer.drain()
        with contextlib.suppress(OSError):
            writer.close()

    await asyncio.gather(pipe(down_r, up_w), pipe(up_r, down_w), return_exceptions=True)


@pytest.fixture
def forwarded_from() -> Iterator[ForwardedFrom]:
    """Pages that reach a server from another network, as through the proxy it
    trusts (this host): each address gets a loopback port of its own that names
    it in ``X-Forwarded-For`` on every request, the websocket's handshake too.
    A context's extra headers cannot say it: Chromium leaves them off a
    websocket's handshake."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    servers: list[asyncio.Server] = []
    open_ends: set[asyncio.StreamWriter] = set()

    def way_in(server: ServerProcess, address: str) -> str:
        async def start() -> asyncio.Server:
            handle = functools.partial(
                _forward, target=server.port, address=address, open_ends=open_ends
            )
            return await asyncio.start_server(handle, "127.0.0.1", 0)

        proxy = asyncio.run_coroutine_threadsafe(start(), loop).result(30)
        servers.append(proxy)
        return f"http://127.0.0.1:{proxy.sockets[0].getsockname()[1]}"

    yield way_in

    async def stop() -> None:
        for proxy in servers:
            proxy.close()
        for end in open_ends:  # connections still open: cut, so each relay ends
            end.close()
        relaying = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        if relaying:
            await asyncio.wait(relaying, timeout=10)

    asyncio.run_coroutine_threadsafe(stop(), loop).result(30)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(30)
    loop.close()
