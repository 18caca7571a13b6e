"""No reply echoes what a client typed: a real server, every field of every message.

Promise (docs/security.md "Limits"): an error reply quotes at most a short
prefix (``ECHO_LIMIT`` characters) of a field the client typed and never a
name, so a 3,000-character value costs the sender a reply of a few hundred
bytes at most. Each client message, with each of its fields in turn set to
3,000 characters (plus an unknown 3,000-character field and a
3,000-character ``type``), goes to a real server from three places: a
connection in no room, the host of a lobby, a racer mid-race.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgspec
from canfield_protocol import ECHO_LIMIT

from tests.conftest import ServerFactory
from tests.reliability.conftest import OPEN_ENV, lobby, start
from tests.server.conftest import Connect
from tests.shared.helpers import LONG, MESSAGES, minimal

#: an error reply longer than this is an echo (or close to one)
REPLY_MAX = 300
ECHO_RUN = LONG[: ECHO_LIMIT + 1]
ENV = {
    **OPEN_ENV,
    "CANFIELD_ROOM_MISSES_BURST": "1000000",
}
#: news a member gets whatever it sent; not an answer to one frame
BROADCAST = {"room", "leaderboard", "countdown", "started", "finished", "board"}


def long_frames(room: str) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = [{"type": LONG}]
    for message in MESSAGES:
        base = minimal(message)
        if "room" in base:
            base["room"] = room  # a real room: the long field is what gets refused
        frames.append({**base, LONG: 1})
        for field in msgspec.structs.fields(message):
            frames.append({**base, field.encode_name: LONG})
            if field.encode_name == "settings":
                frames.append({**base, "settings": {LONG: 1}})
                frames.append({**base, "settings": {"deal": LONG}})
    return frames


async def replies(ws: Any, frame: dict[str, Any], marker: float) -> list[str]:
    """Every frame the server answered ``frame`` with (up to the ping marker)."""
    await ws.send(json.dumps(frame))
    await ws.send(json.dumps({"type": "ping", "t": marker}))
    answers: list[str] = []
    async with asyncio.timeout(30):
        while True:
            text = await ws.recv()
            reply = json.loads(text)
            if reply["type"] == "pong" and reply["t"] == marker:
                return answers
            if reply["type"] not in BROADCAST:
                answers.append(text)


async def test_no_reply_echoes_a_long_field_of_any_message(
    server_factory: ServerFactory, connect: Connect
) -> None:
    srv = server_factory(env=ENV)
    url = srv.ws_url
    room, (host,) = await lobby(connect, url, ["Host"])
    _, (racer,) = await lobby(connect, url, ["Racer"])
    await start([racer])
    outsider = await connect(url)

    longest = 0
    errors = 0
    marker = 0.0
    for who in (outsider, host, racer):
        for frame in long_frames(room):
            marker -= 1
            for text in await replies(who.ws, frame, marker):
                assert ECHO_RUN not in text, (list(frame), text[:300])
                if json.loads(text)["type"] == "error":
                    errors += 1
                    longest = max(longest, len(text.encode()))
                    assert len(text.encode()) <= REPLY_MAX, (list(frame), text)
    print(f"\n{errors} error replies to 3,000-character fields; the longest {longest} bytes")
    assert errors > 3 * 2 * len(MESSAGES)
    log = srv.log_path.read_text(errors="replace")
    assert "Traceback" not in log
