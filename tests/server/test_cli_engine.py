"""The engine's CLI commands, run as the real console script in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from canfield import DealCode, Game

SCRIPT = Path(sys.executable).with_name("canfield-race")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "canfield_cli"]

AAAAACL = (
    "3S QS JD QD 4H 5C QH AD 2D 2H 7H 9H TC 2C 9C 7S AH 6H KC AS AC JH KS KH "
    "TH 3D TS JC 9S 2S 8H 8C 5S 8S 4D 3C 8D 9D 5D TD 5H 4C 4S KD 3H 7D 6D 7C JS QC 6S 6C"
).split()


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMAND, *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def greedy_line(code: str, length: int) -> list[str]:
    """Moves that score: foundation plays first, else the stock, with an undo."""
    game = Game.deal(code)
    texts: list[str] = []
    while len(texts) < length:
        move = next(m for m in game.legal_moves() if m.dst == "F" or m.src == "S")
        game.push(move)
        texts.append(move.text())
    return texts + ["U"]


def documented_split(code: str, cards: list[str]) -> dict[str, object]:
    """docs/deal-codes.md's JSON for ``code``, whose deck in deal order is ``cards``."""
    return {
        "code": code,
        "draw": int(code[5]),
        "reserve": cards[0:13],
        "base": cards[13],
        "tableau": [[card] for card in cards[14:18]],
        "stock": cards[18:52],
    }


def test_deal_json_is_the_documented_split() -> None:
    result = cli("deal", "CF1-D3-AAAAACL", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data == documented_split("CF1-D3-AAAAACL", AAAAACL)
    other = json.loads(cli("deal", " cf1-d1-aaaaacl ", "--json").stdout)
    assert other.pop("draw") == 1 and other.pop("code") == "CF1-D1-AAAAACL"
    assert other == {k: v for k, v in data.items() if k not in ("draw", "code")}


def test_deal_prints_a_readable_board() -> None:
    result = cli("deal", "CF1-D3-AAAAACL")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "CF1-D3-AAAAACL" in out
    assert " ".join(AAAAACL[0:13]) in out
    assert "Base card: 2C" in out
    assert "1: 9C   2: 7S   3: AH   4: 6H" in out
    assert " ".join(AAAAACL[18:52]) in out


@pytest.mark.parametrize(
    ("code", "says"),
    [
        ("CF9-D3-AAAAACL", "version"),
        ("CF1-D2-AAAAACL", "draw mode"),
        ("CF1-D3-AAAA", "7 letters"),
        ("CF1-D3-AAAAAC1", "A-Z"),
        ("CF2-D3-AAAAACL", "26 characters"),
        ("CF2-D3-" + "U" * 26, "without U"),
    ],
)
def test_invalid_codes_fail_with_a_clear_error(code: str, says: str) -> None:
    for command in ("deal", "play"):
        result = cli(command, code)
        assert result.returncode != 0
        assert says in result.stderr
        assert result.stdout == ""
        assert "Traceback" not in result.stderr


#: docs/deal-codes.md's CF2 test vector
V2_CODE = "CF2-D3-7ZK3QM9XJ2BWPHT4VGN6YRCF8D"
V2_CARDS = (
    "TD 9C 8S AH QH 6C 6D 7C 7D 2C QS 8D 6H KD 5H 3H 7H QD 5S TC 7S AD 2S 4D 9H 6S JC 8H "
    "QC 5D TH 9S 5C 2D KC KS AS 4S JH 3D AC 9D 4H JS 3C 3S 8C JD KH TS 2H 4C"
).split()


def test_deal_and_play_take_v2_codes() -> None:
    result = cli("deal", "cf2-d1-7zk3q-m9xj2-bwpht-4vgn6-yrcf8d", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == documented_split(
        "CF2-D1-7ZK3QM9XJ2BWPHT4VGN6YRCF8D", V2_CARDS
    )
    assert V2_CODE in cli("deal", V2_CODE).stdout
    moves = greedy_line(V2_CODE, 30)
    played = cli("play", "--json", V2_CODE, *moves)
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout) == {
        "code": V2_CODE,
        "moves": len(moves),
        "board": Game.replay(V2_CODE, moves).view(),
    }


def test_play_replays_moves_and_prints_board_and_score() -> None:
    code = "CF1-D1-HELLOCF"
    moves = greedy_line(code, 40)
    game = Game.replay(code, moves)
    assert game.score > 0
    result = cli("play", code, *moves)
    assert result.returncode == 0, result.stderr
    assert f"score {game.score}" in result.stdout
    assert str(game) in result.stdout
    as_json = json.loads(cli("play", "--json", code, *moves).stdout)
    assert as_json == {"code": code, "moves": len(moves), "board": game.view()}


def test_play_reads_moves_from_stdin() -> None:
    code = "CF1-D3-AAAAACL"
    result = cli("play", "--json", code, stdin="S, 4-2\nU\n 4-2 S\n")
    assert result.returncode == 0, result.stderr
    expected = Game.replay(code, ["S", "4-2", "U", "4-2", "S"]).view()
    assert json.loads(result.stdout)["board"] == expected


@pytest.mark.parametrize(
    ("moves", "number", "says"),
    [
        (["S", "4-2", "1-3"], 3, "[column-build]"),
        (["S", "X-9"], 2, "not a column"),
        (["U"], 1, "nothing to undo"),
        (["S", "W-R"], 2, "[reserve-no-build]"),
    ],
)
def test_play_stops_at_the_first_refused_move(moves: list[str], number: int, says: str) -> None:
    result = cli("play", "CF1-D3-AAAAACL", *moves)
    assert result.returncode == 1
    assert f"move {number} ({moves[number - 1]!r})" in result.stderr
    assert says in result.stderr
    assert result.stdout == ""


def test_bench_engine_reports_rates_as_json() -> None:
    result = cli("bench-engine", "--seconds", "0.5", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    for key in ("apply_undo_per_s", "legal_gen_per_s", "deals_per_s"):
        assert figures[key] > 0, key
    assert figures["apply_undo"] > 0 and figures["legal_gens"] > 0 and figures["deals"] > 0
    text = cli("bench-engine", "--seconds", "0.3")
    assert text.returncode == 0
    assert "apply+undo per second" in text.stdout
    assert cli("bench-engine", "--seconds", "0").returncode != 0


def test_deal_layout_matches_the_dealt_game() -> None:
    layout = DealCode.parse("CF1-D3-AAAAACL").layout()
    view = Game.deal("CF1-D3-AAAAACL").view()
    assert view["tableau"] == layout["tableau"]
    assert view["reserve"]["top"] == layout["reserve"][-1]
    assert view["foundations"][0] == [layout["base"]]
