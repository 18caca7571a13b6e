"""The page's files: compressed on the wire, cached and checked again by ETag;
and `serve` says where to open the page."""

from __future__ import annotations

import gzip
import urllib.request

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


def test_static_files_come_gzipped_with_an_etag_and_revalidate(server: ServerProcess) -> None:
    base = server.http_url
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
