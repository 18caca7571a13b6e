"""Which Chromium drives a page, and how it starts: the one place the tests and
the benchmarks ask.

Debian ships two builds of one Chromium: ``chromium-headless-shell``, made
for pages with no screen, and the whole browser. The shell is preferred: the
same engine draws the same page, at about half the CPU (the browser tests'
story file, side by side: 36 s of CPU against 76 s), which on a 2-core
machine is the test run's time. ``CANFIELD_CHROMIUM`` names another.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")
WHOLE_BROWSER = Path("/usr/bin/chromium")
#: no sandbox (containers), no GPU, nothing fetched in the background
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def chromium_path() -> Path:
    """``CANFIELD_CHROMIUM`` if set, else the headless shell if installed, else
    the whole browser (which may be missing: the caller says so)."""
    named = os.environ.get("CANFIELD_CHROMIUM")
    if named:
        return Path(named)
    return HEADLESS_SHELL if HEADLESS_SHELL.exists() else WHOLE_BROWSER


def launch(playwright: Playwright) -> Browser:
    """Headless Chromium from the system, no downloads."""
    return playwright.chromium.launch(
        executable_path=str(chromium_path()), headless=True, args=CHROMIUM_ARGS
    )
