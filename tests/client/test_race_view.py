"""The client's reducer, sans I/O: server messages in, what the client knows out."""

from __future__ import annotations

import json
from typing import Any

from canfield import Game
from canfield_client.race_view import RaceView
from canfield_protocol import decode_server

DEAL = "CF1-D3-AAAAACL"


def msg(**fields: Any) -> object:
    """A server message as the client decodes it from the wire."""
    return decode_server(json.dumps(fields))


def room(phase: str = "lobby", race: int = 0) -> dict[str, Any]:
    return {
        "room": "ABCDEF",
        "phase": phase,
        "host_id": "p1",
        "settings": {},
        "members": [],
        "race": race,
        "server_time": 0,
    }


def board(moves: list[str]) -> dict[str, Any]:
    game = Game.deal(DEAL)
    for move in moves:
        game.push_text(move)
    view: dict[str, Any] = game.view()
    return view


def test_a_seat_then_a_race_then_its_end() -> None:
    view = RaceView()
    joined = dict(room="ABCDEF", player_id="p1", token="tok", role="player", is_host=True)
    view.apply(msg(type="joined", **joined, last_seq=0, state=room()))
    assert (view.room, view.player_id, view.token, view.is_host) == ("ABCDEF", "p1", "tok", True)
    view.apply(msg(type="room", **room("racing", 1)))
    assert view.state is not None and view.state.phase == "racing"
    view.seq = 3  # a race before this one used numbers
    view.apply(msg(type="started", started_at=1, ends_at=None, board=board([]), server_time=1))
    assert view.seq == 0 and view.started is not None and view.finished is None
    assert view.board is not None and view.board.stock.count == 34
    view.apply(msg(type="ack", seq=1, move="S", board=board(["S"])))
    assert view.board.stock.count == 31
    rows = [
        dict(rank=1, id="p1", name="Ann", score=5, on_foundations=1, moves=1)
        | dict(status="gave_up", time_ms=900)
    ]
    view.apply(msg(type="leaderboard", rows=rows, server_time=2))
    assert view.leaderboard is not None and view.leaderboard.rows[0].name == "Ann"
    view.apply(msg(type="finished", standings=rows, deal=DEAL, replays={"p1": ["S", "G"]}))
    assert view.finished is not None and view.finished.deal == DEAL
    # the next race starts clean
    view.apply(msg(type="started", started_at=5, ends_at=None, board=board([]), server_time=5))
    assert view.finished is None


def test_a_seat_removed_is_never_resumed() -> None:
    view = RaceView(room="ABCDEF", token="tok")
    view.apply(msg(type="kicked", room="ABCDEF", message="removed"))
    assert view.token is None and view.kicked is not None
    view = RaceView(room="ABCDEF", token="tok")
    view.apply(msg(type="left", room="ABCDEF"))
    assert view.token is None and view.kicked is None


def test_a_reconnect_sets_how_soon_to_come_back() -> None:
    view = RaceView()
    view.apply(msg(type="reconnect", message="restarting", retry_ms=1500))
    assert view.retry_s == 1.5
    view.apply(msg(type="reconnect", message="restarting", retry_ms=0))
    assert view.retry_s == 0.05  # never a busy loop


def test_messages_of_no_concern_change_nothing() -> None:
    view = RaceView(room="ABCDEF", seq=2)
    before = RaceView(room="ABCDEF", seq=2)
    view.apply(msg(type="pong", t=1, server_time=1))
    view.apply(msg(type="welcome", v=1, server_time=1))
    assert view == before
