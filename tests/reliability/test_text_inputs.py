"""Typed-in text on the server: room codes, names, and a real server's answers.

Promise: the room-code normaliser reads only its ASCII alphabet (no
Unicode case mapping or spaces) and never quotes more than 12 characters;
a name's errors never quote an over-long name. Driven with Hypothesis's
unicode strings, a real server answers every ``move``, ``tap``,
``settings`` (deal code), ``join`` (room code) and ``create``/``join``
(name) with an accepted answer or an ``error`` with a documented code
(never ``internal``), a message of bounded length, and no traceback or
handler failure in its log. Hypothesis draws the texts up front (a bounded
number), then one connection per place sends them all.
"""

from __future__ import annotations

import asyncio
import json
import string
from typing import Any

import pytest
from canfield_protocol import ErrorCode, ProtocolError
from canfield_server.room.identifiers import CODE_ALPHABET, normalize_room_code
from canfield_server.room.rules import NAME_MAX, clean_name
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ServerFactory
from tests.reliability.conftest import OPEN_ENV, Client, healthz, lobby, start
from tests.server.conftest import Connect
from tests.shared.helpers import (
    CARD_TEXTS,
    DEAL_TEXTS,
    ENGINE_MESSAGE_MAX,
    MOVE_TEXTS,
    TRICKY,
    spliced,
)

#: the longest error message the server may send about a typed-in text
SERVER_MESSAGE_MAX = ENGINE_MESSAGE_MAX
DOCUMENTED = {v for k, v in vars(ErrorCode).items() if k.isupper()} - {
    ErrorCode.INTERNAL,
    ErrorCode.UNAVAILABLE,  # Redis is up all along
}
#: news a member gets whatever it sent; not an answer to one frame
BROADCAST = {"room", "leaderboard", "countdown", "started", "finished", "board"}
ENV = {
    **OPEN_ENV,
    "CANFIELD_JOINS_PER_IP_BURST": "1000000",
    "CANFIELD_ROOM_MISSES_BURST": "1000000",
}
#: texts that fit a frame (4096 UTF-8 bytes): unicode, look-alikes, long runs
frame_text = st.one_of(
    st.text(max_size=40),
    st.text(st.sampled_from([*TRICKY, *string.printable]), max_size=40),
    st.builds(
        lambda ch, n: ch * n, st.sampled_from(["x", "A", "1", " ", "ſ", "²"]), st.integers(10, 600)
    ),
)
#: what the attack sent: 'internal' and a traceback, or read as another text
ATTACK_MOVES = ["1:²-2", "1:¹²-2", "4:³-1", "ſ", "2:٣-4", "1:２-3", "3:१०-1", "S" + "x" * 3000]
ATTACK_DEALS = ["CF1-D3-AAAAAſL", "CF1-D3-" + "A" * 3000, "CF2-D3-" + "٣" * 26]
ROOM_TEXTS = ["ABC234", " abc234 ", "zzzzzz", "23456A"]
NAME_TEXTS = ["Ann", "Ｈost", "Zoë", "Bob Smith", "x" * 24]


def drawn(strategy: st.SearchStrategy[Any], count: int) -> list[Any]:
    """``count`` values Hypothesis draws from ``strategy`` (to send in one async run)."""
    values: list[Any] = []

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value: Any) -> None:
        values.append(value)

    collect()
    return values


# ------------------------------------------------------------------ pure functions


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(frame_text, spliced(ROOM_TEXTS), st.builds(lambda n: "A" * n, st.integers(7, 10**6)))
)
def test_normalize_room_code_reads_only_its_ascii_alphabet(text: str) -> None:
    try:
        code = normalize_room_code(text)
    except ProtocolError as exc:
        assert exc.code == ErrorCode.UNKNOWN_ROOM
        assert len(exc.message) <= SERVER_MESSAGE_MAX
        return
    assert text.isascii() and text.strip(" \t\n\r\x0b\x0c").upper() == code
    assert len(code) == 6 and all(ch in CODE_ALPHABET for ch in code)


@settings(max_examples=300, deadline=None)
@given(spliced(ROOM_TEXTS))
def test_a_room_code_with_a_non_ascii_character_is_refused(text: str) -> None:
    with pytest.raises(ProtocolError) as info:
        normalize_room_code(text)
    assert info.value.code == ErrorCode.UNKNOWN_ROOM


def test_the_room_codes_the_splices_start_from_parse() -> None:
    assert {normalize_room_code(text) for text in ROOM_TEXTS} == {"ABC234", "ZZZZZZ", "23456A"}


@settings(max_examples=300, deadline=None)
@given(st.one_of(frame_text, st.builds(lambda n: "Ann " * n, st.integers(7, 10**6))))
def test_a_name_error_never_quotes_a_long_name(name: str) -> None:
    try:
        clean_name(name)
    except ProtocolError as exc:
        assert exc.code == ErrorCode.BAD_NAME
        assert len(exc.message) <= SERVER_MESSAGE_MAX
        if len(name) > NAME_MAX:
            assert name not in exc.message


# ------------------------------------------------------------------ a real server


class Place:
    """One connection sending texts; every answer checked and counted."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.marker = 0.0
        self.codes: dict[str, int] = {}
        self.accepted = 0

    async def send(self, msg: dict[str, Any], accepted: str) -> dict[str, Any] | None:
        """Send ``msg`` then a ping; the one answer (``accepted`` or an ``error``) before
        the pong, or None if the frame was answered only by broadcasts."""
        self.marker -= 1
        await self.client.ws.send(json.dumps(msg))
        await self.client.ws.send(json.dumps({"type": "ping", "t": self.marker}))
        answers = []
        async with asyncio.timeout(30):
            while True:
                reply = json.loads(await self.client.ws.recv())
                if reply["type"] == "pong" and reply["t"] == self.marker:
                    break
                if reply["type"] not in BROADCAST:
                    answers.append(reply)
        assert len(answers) <= 1, (msg, answers)
        answer = answers[0] if answers else None
        if answer is not None and answer["type"] == "error":
            self.codes[answer["code"]] = self.codes.get(answer["code"], 0) + 1
            assert answer["code"] in DOCUMENTED, (msg, answer)
            assert 0 < len(answer["message"]) <= SERVER_MESSAGE_MAX, (msg, answer)
        else:
            assert answer is None or answer["type"] == accepted, (msg, answer)
            self.accepted += 1
        return answer


async def test_a_real_server_answers_unicode_texts_with_documented_errors(
    server_factory: ServerFactory,
    connect: Connect,
) -> None:
    srv = server_factory(env=ENV)
    url = srv.ws_url
    moves = drawn(st.one_of(frame_text, spliced(MOVE_TEXTS), st.sampled_from(MOVE_TEXTS)), 150)
    cards = drawn(st.one_of(frame_text, spliced(CARD_TEXTS), st.sampled_from(CARD_TEXTS)), 100)
    deals = drawn(st.one_of(frame_text, spliced(DEAL_TEXTS), st.sampled_from(DEAL_TEXTS)), 120)
    rooms = drawn(st.one_of(frame_text, spliced(ROOM_TEXTS)), 120)
    names = drawn(st.one_of(frame_text, st.sampled_from(NAME_TEXTS)), 80)

    # a race (move, tap), a lobby whose host types deal codes (settings), and outsiders
    _, (racer,) = await lobby(connect, url, ["Racer"])
    await start([racer])
    lobby_room, (host,) = await lobby(connect, url, ["Host"])
    live = {lobby_room}
    place = Place(racer)
    seq = 1
    for text in ATTACK_MOVES:
        answer = await place.send({"type": "move", "seq": seq, "move": text}, "ack")
        assert answer is not None and answer["code"] == "bad-move", (text, answer)
        assert len(answer["message"]) <= 200
    for text in moves:
        answer = await place.send({"type": "move", "seq": seq, "move": text}, "ack")
        seq += answer is not None and answer["type"] == "ack"
    for text in cards:
        msg: dict[str, Any] = {"type": "tap", "seq": seq, "card": text, "double_click": False}
        answer = await place.send(msg, "ack")
        seq += answer is not None and answer["type"] == "ack"
    in_race = place

    place = Place(host)
    for text in ATTACK_DEALS:
        answer = await place.send({"type": "settings", "deal": text}, "room")
        assert answer is not None and answer["code"] == "bad-deal-code", (text, answer)
        assert len(answer["message"]) <= 200
    for text in deals:
        await place.send({"type": "settings", "deal": text}, "room")
    in_lobby = place

    outsider = Place(await connect(url))
    for text in rooms:
        try:
            if normalize_room_code(text) in live:
                continue  # a real room: joining it is allowed
        except ProtocolError:
            pass
        await outsider.send({"type": "join", "room": text, "name": "Zed"}, "joined")
    for n, text in enumerate(names):
        kind = "create" if n % 2 else "join"
        msg = {"type": kind, "name": text}
        if kind == "join":
            msg |= {"room": lobby_room, "role": "spectator"}
        answer = await outsider.send(msg, "joined")
        if answer is not None and answer["type"] == "joined":
            # a valid name: this connection is in a room now, go on from a new one
            await outsider.client.close()
            outsider.client = await connect(url)

    print(
        f"\nmoves/cards {in_race.accepted} accepted, errors {in_race.codes}; "
        f"deals {in_lobby.accepted} accepted, errors {in_lobby.codes}; "
        f"rooms/names errors {outsider.codes}"
    )
    assert "internal" not in in_race.codes | in_lobby.codes | outsider.codes
    assert in_race.codes.get("bad-move") and in_race.codes.get("bad-card")
    assert in_lobby.codes.get("bad-deal-code") and outsider.codes.get("unknown-room")
    assert outsider.codes.get("bad-name")

    assert srv.process is not None and srv.process.poll() is None
    assert healthz(srv.http_url) == 200
    log = srv.log_path.read_text(errors="replace")
    assert "Traceback" not in log and "handler failed" not in log
    assert "background task failed" not in log
