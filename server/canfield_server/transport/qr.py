"""``GET /r/<code>/qr.svg``: a room's share link as a QR code, for a TV's corner.

A screen across a room shows the code and this picture, so anyone in the
room joins with a phone's camera instead of typing a link. The picture is
made here (``segno``, pure Python) rather than by a script from elsewhere:
the page loads nothing from another site. It says nothing of the room
(made for any well-formed code, whether or not a room has it), so it is no
way to find out which rooms exist.
"""

from __future__ import annotations

import io
from functools import lru_cache

import segno
from canfield_protocol import ProtocolError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from canfield_server.room.identifiers import normalize_room_code

__all__ = ["room_qr", "qr_svg"]

#: the picture of a link never changes: a browser (or a proxy) keeps it a day
QR_CACHE = "public, max-age=86400"


@lru_cache(maxsize=256)
def qr_svg(text: str) -> bytes:
    """``text`` as a QR code in SVG: sized by its viewBox (the page sets its
    size), dark on white with the quiet zone readers need around it."""
    out = io.BytesIO()
    code = segno.make(text, error="m", micro=False)
    code.save(
        out, kind="svg", scale=1, border=2, xmldecl=False, omitsize=True, dark="#000", light="#fff"
    )
    return out.getvalue()


async def room_qr(request: Request) -> Response:
    """The QR code of ``<this server>/r/<CODE>``; 404 for anything not a room code."""
    try:
        code = normalize_room_code(request.path_params["code"])
    except ProtocolError:
        raise HTTPException(404) from None
    link = f"{str(request.base_url).rstrip('/')}/r/{code}"
    return Response(
        qr_svg(link),
        media_type="image/svg+xml",
        headers={"Cache-Control": QR_CACHE, "Vary": "Host"},
    )
