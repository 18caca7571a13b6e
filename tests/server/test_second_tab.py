"""A racer with more than one connection (a second tab, a reloaded page whose
old connection is not gone yet): after each action of one of them, the others
get the board, on this process or another, so each shows the score and cards
home the racer has (``board``, docs/protocol.md)."""

from __future__ import annotations

from typing import Any

from tests.server.conftest import MakeRooms
from tests.server.helpers import lobby, play, start


def after(seq: int) -> Any:
    return lambda m: m["last_seq"] == seq


async def test_each_action_reaches_the_racers_other_connections_on_any_process(
    rooms: MakeRooms,
) -> None:
    world = await rooms(processes=2, countdown_s=0.3)
    code, (ann, bob) = await lobby(world.open, 0, ["Ann", "Bob"])
    here, far = await world.open(0), await world.open(1)  # Bob's other tabs
    for tab in (here, far):
        assert (await tab.resume(code, bob.joined["token"]))["type"] == "joined"
    await start([ann, bob, here, far])

    acks = await play(bob, ["S", "S"])
    for tab in (here, far):
        board = await tab.expect("board", after(2))
        assert board["board"] == acks[-1]["board"]
    # from the other process: the first tabs get the board its ack had
    ack = (await play(far, ["S"], first_seq=3))[0]
    for tab in (bob, here):
        assert (await tab.expect("board", after(3)))["board"] == ack["board"]
    # the one that acted has its ack, never a board of its own action; nobody
    # else gets a racer's board
    assert not [m for m in bob.log if m["type"] == "board" and m["last_seq"] != 3]
    assert not [m for m in far.log if m["type"] == "board" and m["last_seq"] == 3]
    assert not [m for m in ann.log if m["type"] == "board"]
    # the board's score is the one the header shows: it moved with the draws
    assert board["board"]["score"] == acks[-1]["board"]["score"]
