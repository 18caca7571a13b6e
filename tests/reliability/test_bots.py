"""Bots are bounded: per room, per server, in pace; a flood of add_bot is refused
with a clear error and never a traceback."""

from __future__ import annotations

from typing import Any

from tests.conftest import ServerFactory
from tests.reliability.conftest import FAST_ENV, OPEN_ENV, lobby
from tests.server.conftest import Connect

BOUNDED = {**OPEN_ENV, "CANFIELD_MAX_BOTS_PER_ROOM": "3", "CANFIELD_BOT_PACE_S": "0.5"}


def bots(msg: dict[str, Any]) -> int:
    return sum(m["bot"] for m in msg["members"])


async def test_a_flood_of_add_bot_gets_room_full_and_no_traceback(
    server_factory: ServerFactory, connect: Connect
) -> None:
    server = server_factory(env=BOUNDED)
    room, (ann,) = await lobby(connect, server.ws_url, ["Ann"])
    for _ in range(3):
        await ann.send(type="add_bot")
    await ann.expect("room", lambda m: bots(m) == 3, timeout=30)
    codes = set()
    for _ in range(300):
        reply = await ann.request("error", type="add_bot")
        codes.add((reply["type"], reply.get("code")))
    assert codes == {("error", "room-full")}
    assert max(bots(m) for m in ann.log if m["type"] == "room") == 3  # none slipped through
    refused = await ann.request("error", type="add_bot")
    assert refused["params"]["limit"] == 3 and "3 bots" in refused["message"]
    too_fast = await ann.request("error", type="add_bot", pace_s=0.01)
    assert too_fast["code"] in ("bad-message", "room-full")
    log = server.log()
    assert "Traceback" not in log and "Exception" not in log


async def test_bots_are_paced_like_people_and_bot_names_never_run_out(
    server_factory: ServerFactory,
    connect: Connect,
) -> None:
    server = server_factory(env={**FAST_ENV, "CANFIELD_BOT_PACE_S": "0.5"})
    room, (ann,) = await lobby(connect, server.ws_url, ["Ann"])
    reply = await ann.request("error", type="add_bot", pace_s=0.05)
    assert reply["code"] == "bad-message" and "0.5" in reply["message"]
    # names: a room may hold a person called "Bot 1"; the bot takes the next name
    person = await connect(server.ws_url)
    await person.join(room, "Bot 1")
    await ann.send(type="add_bot", pace_s=0.5)
    seated = await ann.expect("room", lambda m: bots(m) == 1, timeout=30)
    assert [m["name"] for m in seated["members"] if m["bot"]] == ["Bot 2"]
