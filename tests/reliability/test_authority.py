"""Authority: who may act on what, tokens, and what an unknown room answers.

Only a player's own connection (or a holder of their token) moves their
board; spectators never act; host-only actions are checked in every
phase; a refused action changes nothing. Tokens carry >= 128 random bits
and reach only their owner. Unknown rooms answer alike whether the code
never existed or the room expired, and a wrong token answers alike for a
live and an unknown room, so answers reveal no more than a guess.
"""

from __future__ import annotations

import base64
from typing import Any

import websockets
from canfield_server.ops.config import Settings
from canfield_server.room.identifiers import CODE_ALPHABET, CODE_LENGTH
from canfield_server.storage import keys
from canfield_server.storage.embedded_redis import EmbeddedRedis
from redis.asyncio import Redis

from tests.conftest import ServerFactory
from tests.reliability.conftest import DEAL, FAST_ENV, Recorder, seat_snapshot

#: (sender, message, code)
Refusals = list[tuple[str, dict[str, Any], str]]

REFUSED_IN_LOBBY: Refusals = [
    ("bob", {"type": "start"}, "not-host"),
    ("bob", {"type": "settings", "draw": 1}, "not-host"),
    ("bob", {"type": "add_bot"}, "not-host"),
    ("bob", {"type": "rematch"}, "not-host"),
    ("bob", {"type": "move", "seq": 1, "move": "S"}, "wrong-phase"),
    ("eve", {"type": "ready", "ready": True}, "not-player"),
    ("eve", {"type": "start"}, "not-host"),
    ("eve", {"type": "move", "seq": 1, "move": "S"}, "not-player"),
]
REFUSED_IN_RACE: Refusals = [
    ("eve", {"type": "move", "seq": 1, "move": "S"}, "not-player"),
    ("eve", {"type": "tap", "seq": 1, "card": "AS"}, "not-player"),
    ("eve", {"type": "undo", "seq": 1}, "not-player"),
    ("eve", {"type": "give_up", "seq": 1}, "not-player"),
    ("bob", {"type": "settings", "time_limit_s": 60}, "not-host"),
    ("bob", {"type": "rematch"}, "not-host"),
    ("bob", {"type": "start"}, "not-host"),
    ("bob", {"type": "create", "name": "Again"}, "already-in-room"),
    ("bob", {"type": "join", "room": "ABC234", "name": "Elsewhere"}, "already-in-room"),
]


async def refuse_all(
    url: str, room: str, ann: Recorder, who: dict[str, Recorder], cases: Refusals
) -> None:
    """Each message is refused with its code and the host's seat sees no change."""
    before = await seat_snapshot(url, room, ann.joined["token"])
    for sender, msg, code in cases:
        reply = await who[sender].request("ack", **msg)
        assert reply["type"] == "error" and reply["code"] == code, (sender, msg, reply)
    assert await seat_snapshot(url, room, ann.joined["token"]) == before


async def test_only_the_right_member_acts_and_tokens_stay_with_their_owner(
    redis_server: EmbeddedRedis,
    server_factory: ServerFactory,
) -> None:
    url = server_factory(env=FAST_ENV).ws_url
    ann, bob, eve = [await Recorder.open(url) for _ in range(3)]
    room = (await ann.enter("create", name="Ann", settings={"deal": DEAL}))["room"]
    await bob.enter("join", room=room, name="Bob")
    await eve.enter("join", room=room, name="Eve", role="spectator")
    who = {"bob": bob, "eve": eve}
    await refuse_all(url, room, ann, who, REFUSED_IN_LOBBY)

    await ann.send(type="start", force=True)
    await bob.wait_for(lambda m: m["type"] == "started")
    await refuse_all(url, room, ann, who, REFUSED_IN_RACE)
    for seq in (1, 2, 3):  # Bob's moves land on Bob's board only
        assert (await bob.request("ack", type="move", seq=seq, move="S"))["type"] == "ack"
    ann_seat = await seat_snapshot(url, room, ann.joined["token"])
    bob_seat = await seat_snapshot(url, room, bob.joined["token"])
    assert (ann_seat["last_seq"], bob_seat["last_seq"]) == (0, 3)
    assert ann_seat["board"]["stock"]["count"] == bob_seat["board"]["stock"]["count"] + 3 * 3

    # a spectator's token resumes a spectator: still no board, still no moves
    eve2 = await Recorder.open(url)
    assert (await eve2.enter("resume", room=room, token=eve.joined["token"]))["role"] == "spectator"
    assert (await eve2.request("ack", type="move", seq=1, move="S"))["code"] == "not-player"
    # tokens open only their own room, and only exactly
    other = await Recorder.open(url)
    other_room = (await other.enter("create", name="Zed"))["room"]
    stranger = await Recorder.open(url)
    token = ann.joined["token"]
    for room_code, tok in (
        (other_room, token),
        (room, token[:-1] + ("A" if token[-1] != "A" else "B")),
        (room, token.upper() if token.upper() != token else token.lower()),
        (room, ""),
    ):
        reply = await stranger.enter("resume", room=room_code, token=tok)
        assert reply["code"] == "bad-token", reply

    for player in (ann, bob):
        await player.request("ack", type="give_up", seq=4 if player is bob else 1)
    await eve.wait_for(lambda m: m["type"] == "finished")
    # "error" only: a paced room announcement may still be on its way
    assert (await bob.request("error", type="rematch"))["code"] == "not-host"
    start = len(ann.messages)
    await ann.send(type="rematch")
    back = await ann.wait_for(lambda m: m["type"] == "error" or m.get("phase") == "lobby", start)
    assert back["type"] == "room", back
    clients = [ann, bob, eve, eve2, other, stranger]
    for client in clients:
        await client.close()

    # tokens: >= 128 random bits, distinct, and never in anyone else's frames
    owners = {c.joined["token"]: c for c in (ann, bob, eve, other)}
    for tok, owner in owners.items():
        assert len(base64.urlsafe_b64decode(tok + "=" * (-len(tok) % 4))) * 8 >= 128
        for client in clients:
            carrying = [
                m["type"] for m, f in zip(client.messages, client.frames, strict=True) if tok in f
            ]
            if client is owner or (owner is eve and client is eve2):
                assert set(carrying) == {"joined"}  # the owner's own seat replies only
            else:
                assert carrying == [], (tok, carrying)

    # unknown rooms: never existed and expired answer alike
    redis = Redis.from_url(redis_server.url)
    await redis.delete(*keys.room_keys(other_room))
    await redis.aclose()
    probe = await Recorder.open(url)
    never = "".join(reversed(other_room)) if other_room[::-1] != other_room else "ZZZZZZ"
    answers = []
    for code in (other_room, never):
        reply = await probe.request("joined", type="join", room=code, name="Probe")
        answers.append((reply["code"], reply["message"].replace(code, "<code>")))
    assert answers[0] == answers[1] and answers[0][0] == "unknown-room"
    wrong = [
        await probe.request("joined", type="resume", room=c, token="x" * 24) for c in (room, never)
    ]
    assert [w["code"] for w in wrong] == ["bad-token", "bad-token"]
    assert wrong[0]["message"] == wrong[1]["message"]
    assert len(CODE_ALPHABET) ** CODE_LENGTH == 887_503_681
    await probe.close()


async def test_guessing_room_codes_is_rate_limited_per_address(
    server_factory: ServerFactory,
) -> None:
    url = server_factory(env=FAST_ENV).ws_url
    host = await Recorder.open(url)
    room = (await host.enter("create", name="Ann"))["room"]
    guesser = await Recorder.open(url)
    misses = [
        await guesser.request("joined", type="join", room=f"{n:06d}".replace("0", "Z"), name="G")
        for n in range(Settings.room_misses_burst)
    ]
    assert {m.get("code") for m in misses} == {"unknown-room"}, misses
    again = await Recorder.open(url)  # a new connection from the same address
    for code in ("ZZZZZZ", room):  # past the burst a real room answers the same: no hint
        reply = await again.request("joined", type="join", room=code, name="G")
        assert reply["code"] == "rate-limited", reply
    elsewhere = Recorder(
        await websockets.connect(url, open_timeout=10, local_addr=("127.0.0.2", 0))
    )
    assert (await elsewhere.enter("join", room=room, name="Bob"))["type"] == "joined"
    for client in (host, guesser, again, elsewhere):
        await client.close()
