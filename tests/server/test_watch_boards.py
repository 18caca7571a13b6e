"""Boards for watchers, against real server processes and a real redis-server.

A private room's host may show the racers' boards to its spectators
("Watchers see the boards", ``spectator_boards``): then a spectator gets every
racer's board as that racer sees it, at the start, as they move (coalesced, one
frame for all spectators), and in full on coming in mid-race - from another
server process too. Without the setting, and in a public race whatever anyone
asks, no spectator ever gets a board. No frame a spectator gets holds a card the
racer has not turned up: no stock card, no reserve card under the top. And the
rows everyone gets say how far each racer is beyond the cards home: the cards
left in their reserve and those on their tableau.
"""

from __future__ import annotations

import re
from typing import Any

from canfield import Game, Move
from canfield.cards import card_text
from canfield_bench.processes import ServerProcess

from tests.conftest import ServerFactory
from tests.server.conftest import Client, Connect, LineOfPlay
from tests.server.helpers import DEAL, lobby, start

#: a card as the wire writes it
CARD = re.compile(r"\b[A2-9TJQK][CDHS]\b")


def hidden(game: Game) -> set[str]:
    """The cards this racer's board hides: the stock, and the reserve under its top."""
    return {card_text(c) for c in [*game.stock, *game.reserve[:-1]]}


def boards_of(client: Client) -> list[dict[str, Any]]:
    return [msg for msg in client.log if msg["type"] == "boards"]


def check_fair(frame: dict[str, Any], games: dict[str, list[Game]]) -> None:
    """Each board in ``frame`` is its racer's own view at some point of their line,
    and no card it hides is anywhere in it."""
    for racer in frame["boards"]:
        views = games[racer["id"]]
        matches = [g for g in views if g.view() == racer["board"]]
        assert matches, racer
        shown = set(CARD.findall(repr(racer["board"])))
        assert not shown & hidden(matches[-1]), shown & hidden(matches[-1])


def positions(line: list[str]) -> list[Game]:
    """The board after each action of ``line`` (the start included)."""
    game = Game.deal(DEAL)
    seen = [game.copy()]
    for text in line:
        game.push(Move.parse(text))
        seen.append(game.copy())
    return seen


async def test_spectators_see_the_boards_only_where_the_host_shows_them(
    shared_server: ServerProcess, connect: Connect, line_of_play: LineOfPlay
) -> None:
    line = line_of_play(DEAL, 24)
    url = shared_server.ws_url
    # a room that keeps its boards to its racers (the default), watched from the start
    room, (ann, bob) = await lobby(connect, url, ["Ann", "Bob"])
    assert ann.joined["state"]["settings"]["spectator_boards"] is False
    eve = await connect(url)
    await eve.join(room, "Eve", "spectator")
    await start([ann, bob, eve])
    for seq, move in enumerate(line[:6], start=1):
        assert (await ann.request("ack", type="move", seq=seq, move=move))["type"] == "ack"
    await eve.expect("leaderboard", lambda m: any(r["moves"] == 6 for r in m["rows"]))
    late = await connect(url)
    await late.join(room, "Late", "spectator")
    await late.expect("leaderboard")
    assert boards_of(eve) == [] and boards_of(late) == []

    # the host shows them: the setting is the host's, in the lobby, a yes or a no
    room, (cy, dan) = await lobby(connect, url, ["Cy", "Dan"])
    refused = await dan.request("error", type="settings", spectator_boards=True)
    assert refused["code"] == "not-host"
    refused = await cy.request("error", type="settings", spectator_boards="yes")
    assert refused["code"] == "bad-message"
    await cy.send(type="settings", spectator_boards=True)
    await cy.expect("room", lambda m: m["settings"]["spectator_boards"] is True)
    fay = await connect(url)
    await fay.join(room, "Fay", "spectator")
    await start([cy, dan, fay])
    ids = {c.joined["player_id"]: c for c in (cy, dan)}
    cy_id, dan_id = cy.joined["player_id"], dan.joined["player_id"]
    games = {cy_id: positions(line), dan_id: positions([])}
    at_start = await fay.expect("boards")
    assert {b["id"] for b in at_start["boards"]} == set(ids)
    assert all(b["board"] == Game.deal(DEAL).view() for b in at_start["boards"])

    # Cy moves: Fay sees Cy's board follow, one frame an interval for all his moves
    for seq, move in enumerate(line, start=1):
        await cy.request("ack", type="move", seq=seq, move=move)
    final = Game.deal(DEAL)
    for move in line:
        final.push(Move.parse(move))
    await fay.expect(
        "boards",
        lambda m: any(b["id"] == cy_id and b["board"] == final.view() for b in m["boards"]),
    )
    frames = boards_of(fay)
    assert len(frames) < len(line)  # coalesced: not one frame a move
    # a spectator who comes in mid-race gets every racer's board at once
    gus = await connect(url)
    await gus.join(room, "Gus", "spectator")
    everyone = await gus.expect("boards")
    assert {b["id"]: b["board"] for b in everyone["boards"]} == {
        cy_id: final.view(),
        dan_id: Game.deal(DEAL).view(),
    }
    # fair: every board shown is the racer's own view, no hidden card in it
    for frame in [*frames, everyone]:
        check_fair(frame, games)
    # the racers themselves never get anyone's board
    assert boards_of(cy) == [] and boards_of(dan) == []

    # the rows say how far a racer is beyond the cards home: reserve and tableau
    rows = next(m for m in gus.log if m["type"] == "leaderboard")  # sent with his joining
    row = next(r for r in rows["rows"] if r["id"] == cy_id)
    assert row["reserve"] == len(final.reserve)
    assert row["tableau"] == sum(len(col) for col in final.tableau)
    assert row["on_foundations"] == final.on_foundations


async def test_a_public_race_never_shows_a_board(
    fast_server: ServerProcess, connect: Connect, line_of_play: LineOfPlay
) -> None:
    url = fast_server.ws_url
    ann, bob = await connect(url), await connect(url)
    seats = []
    for client, name in ((ann, "Ann"), (bob, "Bob")):
        await client.request("identity", type="identify")
        seats.append(await client.request("joined", type="quick", name=name))
    room = seats[0]["room"]
    assert seats[1]["room"] == room and seats[0]["state"]["public"]
    # nobody hosts it: nobody can turn the boards on
    refused = await ann.request("error", type="settings", spectator_boards=True)
    assert refused["code"] == "not-allowed"
    eve = await connect(url)
    await eve.join(room, "Eve", "spectator")
    await ann.expect("started")
    for seq in range(1, 9):  # the deal is the server's: turning the stock is always a move
        assert (await ann.request("ack", type="move", seq=seq, move="S"))["type"] == "ack"
    await eve.expect("leaderboard", lambda m: any(r["moves"] == 8 for r in m["rows"]))
    late = await connect(url)
    await late.join(room, "Late", "spectator")
    await late.expect("leaderboard")
    for client in (ann, bob, eve, late):
        assert boards_of(client) == []


async def test_boards_reach_a_spectator_on_another_server_process(
    server_factory: ServerFactory, connect: Connect, line_of_play: LineOfPlay
) -> None:
    env = {"CANFIELD_COUNTDOWN_S": "0.2"}
    one, two = server_factory(env=env), server_factory(env=env)
    line = line_of_play(DEAL, 12)
    room, (ann,) = await lobby(connect, one.ws_url, ["Ann"])
    await ann.send(type="settings", spectator_boards=True)
    await ann.expect("room", lambda m: m["settings"]["spectator_boards"] is True)
    await start([ann])
    for seq, move in enumerate(line[:5], start=1):
        await ann.request("ack", type="move", seq=seq, move=move)
    # the second process never served the room: it reads the board from Ann's log
    eve = await connect(two.ws_url)
    await eve.join(room, "Eve", "spectator")
    ann_id = ann.joined["player_id"]
    first = await eve.expect("boards")
    assert first["boards"] == [{"id": ann_id, "board": positions(line[:5])[-1].view()}]
    # and hears her next moves on the room bus
    for seq, move in enumerate(line[5:], start=6):
        await ann.request("ack", type="move", seq=seq, move=move)
    want = positions(line)[-1].view()
    await eve.expect("boards", lambda m: m["boards"] == [{"id": ann_id, "board": want}])
    for frame in boards_of(eve):
        check_fair(frame, {ann_id: positions(line)})
