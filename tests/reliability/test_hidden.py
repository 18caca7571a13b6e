"""Hidden information: a whole race, every frame every client received, checked.

Three players race a random deal (draws, reserve plays, taps, undos that
turn cards face down again, then give up), watched by a spectator. Only
after ``finished`` reveals the deal does the test rebuild each player's
board move by move from the revealed code and check every frame that
player received against the cards face down at that moment (the stock and
the reserve under its top). The spectator sees no board at all, so it gets
no card before the results. And no frame before ``finished`` carries the
deal code.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from typing import Any

from canfield import Game, Move
from canfield.cards import DECK, card_text
from canfield_client.board import game_from_view

from tests.conftest import ServerFactory
from tests.reliability.conftest import FAST_ENV, Recorder

ACTIONS = 45
CARD = re.compile(r"(?<![0-9A-Za-z])[A2-9TJQK][CDHS](?![0-9A-Za-z])")


def face_down(game: Game) -> set[str]:
    return {card_text(c) for c in game.stock} | {card_text(c) for c in game.reserve[:-1]}


def cards_in(frame: str) -> set[str]:
    """Every card a frame names, in any string (values and keys), tokens aside."""
    found: set[str] = set()

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(k)
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and key != "token":  # tokens are random letters
            found.update(CARD.findall(value))

    walk(json.loads(frame))
    return found


async def race(player: Recorder, rng: random.Random) -> None:
    """Random legal play from the board the server sends, taps and undos included."""
    board = (await player.wait_for(lambda m: m["type"] == "started"))["board"]
    for seq in range(1, ACTIONS + 1):
        game = game_from_view(board)
        roll = rng.random()
        if roll < 0.15 and board["can_undo"]:
            msg: dict[str, Any] = {"type": "undo"}
        elif roll < 0.3:
            visible = [board["reserve"]["top"], *board["waste"]["fan"][-1:]]
            visible += [col[-1] for col in board["tableau"] if col]
            msg = {"type": "tap", "card": rng.choice([c for c in visible if c])}
        else:
            moves = list(game.legal_moves())
            draws = [m for m in moves if m.text() == "S"]
            pick = draws[0] if draws and rng.random() < 0.5 else rng.choice(moves)
            msg = {"type": "move", "move": pick.text()}
        reply = await player.request("ack", seq=seq, **msg)
        if reply["type"] == "error":  # a tap with nowhere to go: use the seq on a draw
            assert reply["code"] == "no-target", reply
            reply = await player.request("ack", type="move", seq=seq, move="S")
        assert reply["type"] == "ack", reply
        board = reply["board"]
    assert (await player.request("ack", type="give_up", seq=ACTIONS + 1))["type"] == "ack"


def check_player(frames: list[str], deal: str, player_id: str) -> int:
    """Replay one player's acks over the revealed deal; returns frames checked."""
    game = Game.deal(deal)
    hidden = {card_text(c) for c in DECK}  # before the deal, every card
    checked = 0
    for frame in frames:
        msg = json.loads(frame)
        if msg["type"] == "finished":
            return checked
        if msg["type"] == "started":
            hidden = face_down(game)
        if msg["type"] == "ack" and not msg["duplicate"]:
            if msg["move"] == "U":
                game.pop()
            elif msg["move"] != "G":
                game.push(Move.parse(msg["move"]))
            hidden = face_down(game)
        leaked = cards_in(frame) & hidden
        assert not leaked, (player_id, msg["type"], sorted(leaked), frame[:300])
        checked += 1
    raise AssertionError("no finished message")


async def test_no_face_down_card_and_no_deal_code_reach_any_client(
    server_factory: ServerFactory,
) -> None:
    srv = server_factory(env=FAST_ENV)
    ann, bob, cy, eve = [await Recorder.open(srv.ws_url) for _ in range(4)]
    room = (await ann.enter("create", name="Ann"))["room"]
    await bob.enter("join", room=room, name="Bob")
    await cy.enter("join", room=room, name="Cy")
    await eve.enter("join", room=room, name="Eve", role="spectator")
    await ann.send(type="start", force=True)
    seed = random.randrange(2**32)
    await asyncio.gather(*(race(p, random.Random(seed + i)) for i, p in enumerate((ann, bob, cy))))
    finals = [await c.wait_for(lambda m: m["type"] == "finished") for c in (ann, bob, cy, eve)]
    for client in (ann, bob, cy, eve):
        await client.close()

    deal = finals[0]["deal"]
    body = deal.rsplit("-", 1)[-1]
    total = 0
    for client in (ann, bob, cy, eve):
        reveal = next(i for i, m in enumerate(client.messages) if m["type"] == "finished")
        before = client.frames[:reveal]
        assert not any(deal.lower() in f.lower() or body in f for f in before), "deal code leaked"
        if client is eve:
            assert not any(cards_in(f) for f in before), "the spectator saw a card"
            assert not any(m.get("board") for m in eve.messages)
            total += len(before)
        else:
            total += check_player(client.frames, deal, client.joined["player_id"])
    # the replays agree with what was acknowledged, so the replay above was the real race
    for client in (ann, bob, cy):
        acked = [m["move"] for m in client.messages if m["type"] == "ack"]
        assert finals[0]["replays"][client.joined["player_id"]] == acked
    draws = sum(m.count("S") for m in finals[0]["replays"].values())
    print(f"\nhidden cards: {total} frames checked (seed {seed}), {draws} draws, none leaked")
