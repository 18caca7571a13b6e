"""Every page of the web client wears the head all pages share (``page.html``),
filled in by the server (``transport/page_head.py``), with its own lines in it."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
from canfield_server.transport.page_head import SLOT, TEMPLATE, fill, page_html

WEB = Path(str(resources.files("canfield_client") / "web"))
PAGES = sorted(path.name for path in WEB.glob("*.html") if path.name != TEMPLATE)


def test_the_template_has_one_slot() -> None:
    assert (WEB / TEMPLATE).read_text(encoding="utf-8").count(SLOT) == 1


@pytest.mark.parametrize("name", PAGES)
def test_a_page_is_served_whole(name: str) -> None:
    own = (WEB / name).read_text(encoding="utf-8").partition("<body")[0]
    page = page_html(str(WEB / name))
    assert page.startswith('<!doctype html>\n<html lang="en">\n<head>\n')
    head, _, body = page.partition("</head>\n")
    assert body.startswith("<body") and body.rstrip().endswith("</html>")
    assert head.count("<title>") == 1 and SLOT not in head
    assert '<script type="module" src="/js/' in own  # a page's own lines: its script
    for line in own.splitlines():
        assert line in head


def test_a_file_without_a_body_is_left_as_it_is() -> None:
    assert fill("<head>" + SLOT + "</head>", "plain text") == "plain text"
