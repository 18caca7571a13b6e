"""The web client's pages with the head they share, filled in by the server.

Every page file (``index.html``, ``daily.html``, ...) holds only its own head
lines (its script, its extra style sheet, a ``robots`` line) and then its
``<body>``; ``page.html`` holds the head all pages share, with a slot for a
page's own lines. Every way a page is served goes through ``page_html``:
the room page and its share links, the other pages by route or by file name,
the 404 page and the replay page with its link preview (``share``).
"""

from __future__ import annotations

import functools
import os

__all__ = ["TEMPLATE", "fill", "page_html"]

#: the head every page shares, in the web client's folder
TEMPLATE = "page.html"
#: where a page's own head lines go in the template
SLOT = "<!-- the page's own head -->"


def fill(template: str, page: str) -> str:
    """The whole page: ``template`` with the page's own head lines (what comes
    before its ``<body``) in its slot, then the page's body."""
    own, body, rest = page.partition("<body")
    if not body:
        return page  # no body: not a page of this kind, served as it is
    return template.replace(SLOT, own.strip()) + body + rest


def read(path: str) -> str:
    with open(path, encoding="utf-8") as file:
        return file.read()


def page_html(path: str) -> str:
    """The page at ``path`` (a file of the web client's folder), its head filled in:
    filled once per version of the two files, not on every request."""
    template = os.path.join(os.path.dirname(path), TEMPLATE)
    template_at = os.stat(template).st_mtime_ns if os.path.exists(template) else None
    return _filled(path, os.stat(path).st_mtime_ns, template, template_at)


@functools.lru_cache(maxsize=64)
def _filled(path: str, _page_at: int, template: str, template_at: int | None) -> str:
    page = read(path)
    return fill(read(template), page) if template_at is not None else page
