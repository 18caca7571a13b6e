"""Protocol fuzzing: >= 100,000 hostile frames in one bounded run against a real server.

Promise: the server never crashes, a bystander room is untouched, and every
frame gets exactly one answer (an ``error`` for every bad one, with a
documented code) or, past the transport limits, a close with a code.
Frames go out in batches, each closed by a ``ping`` marker, so replies
are matched to frames in order. ``CANFIELD_FUZZ_MESSAGES`` and
``CANFIELD_FUZZ_SEED`` change the size and the seed of a run.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import random
from dataclasses import dataclass, field

import pytest
import websockets
from canfield_protocol import (
    Create,
    ErrorCode,
    Join,
    ProtocolError,
    Ready,
    decode_client,
)
from canfield_server.room.identifiers import normalize_room_code

from tests.conftest import ServerFactory
from tests.reliability.conftest import (
    OPEN_ENV,
    Client,
    healthz,
    lobby,
    open_raw,
    play,
    seat_snapshot,
    start,
)
from tests.reliability.fuzz_frames import frame
from tests.server.conftest import Connect

TOTAL = int(os.environ.get("CANFIELD_FUZZ_MESSAGES", "100000"))
SEED = int(os.environ.get("CANFIELD_FUZZ_SEED", "0")) or random.SystemRandom().randrange(1, 2**31)
MAX_FRAME = 4096
BATCH = 300
#: news a member gets whatever it sent; not an answer to one frame
BROADCAST = {"room", "leaderboard", "countdown", "started", "finished"}
DOCUMENTED = {v for k, v in vars(ErrorCode).items() if k.isupper()} - {
    ErrorCode.INTERNAL,
    ErrorCode.UNAVAILABLE,  # Redis is up all along: "unavailable" would be a bug
}


@dataclass
class Tally:
    frames: int = 0
    closes: int = 0
    codes: collections.Counter[str] = field(default_factory=collections.Counter)
    answers: collections.Counter[str] = field(default_factory=collections.Counter)
    markers: int = 0


def expectation(data: str | bytes, where: str, live: set[str]) -> str | None:
    """``"error"`` when the frame must be refused, ``"any"`` when it may be valid,
    None to skip it (a valid frame that would move this connection elsewhere
    or that answers only by broadcast)."""
    if isinstance(data, bytes) or len(data.encode("utf-8", "surrogatepass")) > MAX_FRAME:
        return "error"
    try:
        msg = decode_client(data)
    except ProtocolError:
        return "error"
    if where == "outside" and isinstance(msg, Create):
        return None  # it would succeed and put this connection in a room
    if isinstance(msg, Join):
        try:
            if normalize_room_code(msg.room) in live:
                return None  # a real room: joining it is allowed
        except ProtocolError:
            pass
    if where == "guest" and isinstance(msg, Ready):
        return None  # allowed; answered by the room broadcast only
    return "any"


async def fuzz(
    ws: websockets.ClientConnection, where: str, count: int, seed: int, live: set[str], tally: Tally
) -> None:
    """Send ``count`` hostile frames on one connection; check every answer."""
    rng = random.Random(seed)
    done = 0
    while done < count:
        batch: list[tuple[str | bytes, str]] = []
        while len(batch) < min(BATCH, count - done):
            data = frame(rng, MAX_FRAME)
            expect = expectation(data, where, live)
            if expect is not None:
                batch.append((data, expect))
        for data, _ in batch:
            await ws.send(data)
        tally.markers += 1
        marker = -tally.markers - 0.25
        await ws.send(json.dumps({"type": "ping", "t": marker}))
        answers = []
        async with asyncio.timeout(60):
            while True:
                msg = json.loads(await ws.recv())
                if msg["type"] in BROADCAST:
                    continue
                if msg["type"] == "pong" and msg["t"] == marker:
                    break
                answers.append(msg)
        assert len(answers) == len(batch), (where, len(answers), len(batch))
        for (data, expect), answer in zip(batch, answers, strict=True):
            tally.answers[answer["type"]] += 1
            if answer["type"] == "error":
                tally.codes[answer["code"]] += 1
                assert answer["code"] in DOCUMENTED, (where, data[:200], answer)
                assert answer["message"]
            else:
                assert expect == "any", (where, data[:200], answer)
        done += len(batch)
        tally.frames += len(batch)


async def closed_with(url: str, data: str | bytes, *, text: bool = False) -> int:
    """Send one frame past the transport's limits; the close code the server sent."""
    ws = await open_raw(url, max_size=2**20)
    try:
        if text:
            await ws.send(data, text=True)
        else:
            await ws.send(data)
        async with asyncio.timeout(10):
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:
                    await ws.recv()
    finally:
        await ws.close()
    assert closed.value.rcvd is not None, "the server dropped the socket without a close frame"
    return closed.value.rcvd.code


async def test_a_hundred_thousand_hostile_frames_break_nothing(
    server_factory: ServerFactory, connect: Connect
) -> None:
    srv = server_factory(env=OPEN_ENV)
    url = srv.ws_url
    print(f"\nfuzz seed {SEED} (CANFIELD_FUZZ_SEED={SEED} repeats this run)")

    # a bystander room, mid-race, watched by a spectator
    by_room, (ann, bob) = await lobby(connect, url, ["Ann", "Bob"])
    await start([ann, bob])
    await play(ann, ["S", "S", "S"])
    await play(bob, ["S"])
    await ann.expect(
        "leaderboard", lambda m: any(r["moves"] == 1 and r["name"] == "Bob" for r in m["rows"])
    )
    eve = await connect(url)
    await eve.join(by_room, "Eve", "spectator")
    await eve.expect("leaderboard")
    before = [await seat_snapshot(url, by_room, c.joined["token"]) for c in (ann, bob)]

    # fuzz rooms: a lobby with a silent host, a race with a silent host player
    lobby_room, _ = await lobby(connect, url, ["Host"])
    guest = await connect(url)
    await guest.join(lobby_room, "Guest")
    race_room, (race_host, racer) = await lobby(connect, url, ["Hosta", "Racer"])
    watcher = await connect(url)
    await watcher.join(race_room, "Watcher", "spectator")
    await start([race_host, racer])
    live = {by_room, lobby_room, race_room}

    outside = [await connect(url) for _ in range(3)]
    seats: list[tuple[Client, str]] = [
        *((c, "outside") for c in outside),
        (guest, "guest"),
        (watcher, "spectator"),
        (racer, "racer"),
    ]
    tally = Tally()
    share = TOTAL // len(seats) + 1
    loop = asyncio.get_running_loop()
    began = loop.time()
    await asyncio.gather(
        *(fuzz(c.ws, where, share, SEED + i, live, tally) for i, (c, where) in enumerate(seats))
    )

    # past the transport's limits: a close with a code, not a crash
    big = json.dumps({"type": "ping", "t": 1, "pad": "x" * 100_000})
    for _ in range(20):
        assert await closed_with(url, big) == 1009  # message too big
        assert await closed_with(url, b'{"type": "ping", "t": "\xff\xfe"}', text=True) == 1007
        tally.closes += 2
    elapsed = loop.time() - began

    total = tally.frames + tally.closes
    print(
        f"fuzz: {total} frames ({tally.frames} answered, {tally.closes} closes) on "
        f"{len(seats)} + {tally.closes} connections in {elapsed:.1f} s; "
        f"answers {dict(tally.answers)}; error codes {dict(tally.codes)}"
    )
    assert total >= TOTAL
    assert tally.codes["internal"] == 0

    # the server lives, logged no handler failure, and the bystander room is as it was
    assert srv.process is not None and srv.process.poll() is None
    assert healthz(srv.http_url) == 200
    log = srv.log_path.read_text(errors="replace")
    assert "handler failed" not in log and "background task failed" not in log
    # uvicorn logs each invalid UTF-8 frame with a traceback of its own decode; nothing else
    assert log.count("Traceback") == log.count("Invalid UTF-8 sequence received")
    pong = await eve.request("pong", type="ping", t=7)
    assert pong["type"] == "pong"
    assert [m["type"] for m in eve.log[-1:]] == ["pong"]  # nothing reached the bystanders
    # the race so far reaches a watcher once, as it joins
    assert [m["type"] for m in eve.log].count("progress") <= 1
    heard = [m for m in eve.log if m["type"] not in ("pong", "progress")]
    boards = [m for m in heard if m["type"] == "leaderboard"]
    assert [m["type"] for m in heard].count("joined") == 1 and len(boards) == len(heard) - 1
    assert boards and all(m["rows"] == boards[0]["rows"] for m in boards)  # re-sent, not changed
    after = [await seat_snapshot(url, by_room, c.joined["token"]) for c in (ann, bob)]
    assert after == before
    assert (await ann.request("ack", type="move", seq=4, move="S"))["type"] == "ack"
