"""The page's files: compressed on the wire, cached and checked again by ETag;
`serve` says where to open the page; a room's QR code is its share link."""

from __future__ import annotations

import gzip
import re
import urllib.request

import segno
from canfield_bench.processes import ServerProcess


def get(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return (
                response.status,
                {k.lower(): v for k, v in response.headers.items()},
                response.read(),
            )
    except urllib.error.HTTPError as exc:  # 304 comes as an "error" here
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, b""


def test_static_files_come_gzipped_with_an_etag_and_revalidate(
    shared_server: ServerProcess,
) -> None:
    base = shared_server.http_url
    for path in ("/", "/app.css", "/js/main.js"):
        status, headers, body = get(base + path, **{"Accept-Encoding": "gzip"})
        assert status == 200, path
        assert headers.get("content-encoding") == "gzip", path
        assert headers.get("cache-control") == "no-cache", path
        etag = headers.get("etag")
        assert etag, path
        assert len(gzip.decompress(body)) > len(body)  # it really is compressed
        status, _, body = get(base + path, **{"If-None-Match": etag})
        assert (status, body) == (304, b""), path  # unchanged: nothing sent again


def test_serve_prints_the_address_to_open(server: ServerProcess) -> None:
    assert f"open http://127.0.0.1:{server.port}" in server.log()


def modules(svg: bytes) -> set[tuple[int, int]]:
    """The dark modules an SVG QR code draws: its one path of ``M``, ``m`` and
    ``h`` steps, each ``h`` a run of modules on the row the pen is on."""
    path = re.search(rb' d="([^"]+)"', svg.split(b'stroke="#000"', 1)[1])
    assert path, svg[:200]
    dark: set[tuple[int, int]] = set()
    x = y = 0.0
    for op, numbers in re.findall(rb"([Mmh])([-\d. ]+)", path.group(1)):
        values = [float(n) for n in numbers.split()]
        if op == b"M":
            x, y = values
        elif op == b"m":
            x, y = x + values[0], y + values[1]
        else:
            dark.update((int(x) + i, int(y)) for i in range(int(values[0])))
            x += values[0]
    return dark


def test_a_rooms_qr_code_is_its_share_link_on_this_server(server: ServerProcess) -> None:
    base = server.http_url
    status, headers, svg = get(base + "/r/k7qx2m/qr.svg")
    assert status == 200
    assert headers["content-type"] == "image/svg+xml"
    assert "max-age" in headers["cache-control"]
    # the picture is the link a phone opens: this server's /r/<CODE>, the code as shown
    expected = segno.make(f"{base}/r/K7QX2M", error="m", micro=False)
    want = {
        (c + 2, r + 2) for r, row in enumerate(expected.matrix) for c, on in enumerate(row) if on
    }
    assert modules(svg) == want
    # made for any well-formed code (it tells nobody which rooms exist), none for anything else
    for path in ("/r/K7QX2/qr.svg", "/r/K7QX2I/qr.svg", "/r/%3Cscript%3E/qr.svg"):
        assert get(base + path)[0] == 404, path
