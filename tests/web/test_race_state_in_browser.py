"""The page's reducer (``web/js/race-state.js`` ``applyServerMessage``) over the
recorded message sequences the Python client's RaceView runs too
(``tests/fixtures/race_messages.json``; the Python side is
``tests/client/test_race_messages.py``), in real Chromium."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures/race_messages.json"
SEQUENCES: list[dict[str, Any]] = json.loads(FIXTURE.read_text(encoding="utf-8"))["sequences"]

#: Folds each sequence's messages in and reads what the fixture names after each.
IN_BROWSER = """async (sequences) => {
    const { EMPTY, applyServerMessage } = await import('/js/race-state.js');
    const known = (s) => ({
        room: s.room,
        player_id: s.me?.id ?? null,
        phase: s.roomState?.phase ?? null,
        stock: s.board?.stock.count ?? null,
        leaders: s.leaderboard ? s.leaderboard.rows.map((row) => row.id) : null,
        finished: s.finished?.deal ?? null,
        role: s.me?.role ?? null,
        waiting: s.me ? Boolean(s.me.waiting) : null,
        started_at: s.startedAt,
        ends_at: s.endsAt,
        searching: s.search?.searching ?? null,
        bot: Boolean(s.search?.offers.includes("bot")),
        ghost: s.search?.offers.includes("ghost") ? s.search.ghost.racer : null,
    });
    return sequences.map((sequence) => {
        let state = EMPTY;
        return sequence.steps.map((step) => {
            const before = JSON.stringify(state);
            const next = applyServerMessage(state, step.message);
            const untouched = JSON.stringify(state) === before;  // the old state never changes
            state = next;
            return { ...known(state), untouched };
        });
    });
}"""


@pytest.fixture
def page(module_page: Page) -> Page:
    return module_page


def test_the_page_knows_what_the_fixture_says(page: Page) -> None:
    seen = page.evaluate(IN_BROWSER, SEQUENCES)
    for sequence, states in zip(SEQUENCES, seen, strict=True):
        for i, (step, now) in enumerate(zip(sequence["steps"], states, strict=True)):
            expected = step.get("both", {}) | step.get("page", {})
            assert {key: now[key] for key in expected} == expected, (sequence["name"], i)
            assert now["untouched"], (sequence["name"], i)
