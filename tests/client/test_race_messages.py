"""The Python client's RaceView over the recorded message sequences the page's
reducer runs too (``tests/fixtures/race_messages.json``; the page's side is
``tests/web/test_race_state_in_browser.py``): the two clients know the same
of a race after the same messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from canfield_client.race_view import RaceView
from canfield_protocol import decode_server

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures/race_messages.json"
SEQUENCES: list[dict[str, Any]] = json.loads(FIXTURE.read_text(encoding="utf-8"))["sequences"]


def known(view: RaceView) -> dict[str, Any]:
    """What the fixture's expectations name, read from the client's view."""
    return {
        "room": view.room,
        "player_id": view.player_id,
        "phase": view.state.phase if view.state is not None else None,
        "stock": view.board.stock.count if view.board is not None else None,
        "leaders": [row.id for row in view.leaderboard.rows] if view.leaderboard else None,
        "finished": view.finished.deal if view.finished is not None else None,
        "token": view.token,
        "kicked": view.kicked is not None,
        "searching": view.search.searching if view.search is not None else None,
        "bot": view.bot_offer is not None,
        "ghost": view.ghost_offer.racer if view.ghost_offer is not None else None,
    }


@pytest.mark.parametrize("sequence", SEQUENCES, ids=[s["name"] for s in SEQUENCES])
def test_the_client_knows_what_the_fixture_says(sequence: dict[str, Any]) -> None:
    view = RaceView()
    for i, step in enumerate(sequence["steps"]):
        view.apply(decode_server(json.dumps(step["message"])))
        expected = step.get("both", {}) | step.get("client", {})
        now = known(view)
        assert {key: now[key] for key in expected} == expected, f"after message {i}"
