"""The page's JavaScript ports agree with the Python engine, run in real Chromium.

The browser rebuilds replays from a deal code (dealcode.js, replay.js) and
highlights legal drop targets (rules.js). Random games played by the
engine, with undos, must come out identical in the browser, and the
browser must call exactly the engine's legal moves legal. Both deal-code
versions are covered: CF1 (SplitMix64) and CF2 (SHA-256 in counter mode,
with the page's own synchronous SHA-256).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest
from canfield import DealCode, Game, Move
from canfield.cards import SUITS, card_text
from canfield.dealcode import SEED_SPACE_V2, v2_block
from playwright.sync_api import Page

SEEDS = [0, 1, 26**7 - 1, *random.Random(7).sample(range(26**7), 9)]
_RNG_V2 = random.Random(8)
SEEDS_V2 = [0, 1, 2**64 - 1, 2**64, SEED_SPACE_V2 - 1]
SEEDS_V2 += [_RNG_V2.randrange(SEED_SPACE_V2) for _ in range(12)]
GAMES = 6
ACTIONS = 90  # under the engine's 100-action undo memory, so can_undo agrees

#: Replays the actions and lists the legal drops as the page would see them.
IN_BROWSER = """async ([code, texts, positions]) => {
    const { ReplayGame } = await import('/js/replay.js');
    const rules = await import('/js/rules.js');
    const game = new ReplayGame(code);
    const views = texts.map((text) => {
        game.apply(text);
        const view = game.view();
        delete view.useful_move;
        return view;
    });
    const top = (pile) => pile[pile.length - 1];
    const legal = positions.map(([board, baseSuit]) => {
        const sources = [];
        const add = (pile, index, count, card) => sources.push({ pile, index, count, card });
        if (board.reserve.top) add('R', 0, 1, board.reserve.top);
        if (board.waste.fan.length) add('W', 0, 1, top(board.waste.fan));
        board.foundations.forEach((pile, i) => pile.length && add('F', i, 1, top(pile)));
        board.tableau.forEach((col, i) => {
            for (let n = 1; n <= rules.runLength(col); n += 1) add('T', i, n, col[col.length - n]);
        });
        const texts = (source) => rules.legalTargets(board, source, baseSuit)
            .map((target) => rules.moveText(source, target));
        return sources.flatMap(texts).sort();
    });
    return { views, legal };
}"""


@pytest.fixture
def page(module_page: Page) -> Page:
    return module_page


def test_deal_codes_deal_the_same_cards_in_the_browser(page: Page) -> None:
    letters = [DealCode.from_seed(seed).letters for seed in SEEDS]
    decks = page.evaluate(
        """async (all) => {
            const { dealDeck } = await import('/js/dealcode.js');
            return all.map(dealDeck);
        }""",
        letters,
    )
    assert decks == [[card_text(c) for c in DealCode(text).deck()] for text in letters]


def test_cf2_codes_deal_the_same_cards_in_the_browser(page: Page) -> None:
    codes = [str(DealCode.from_seed(seed, 3, 2)) for seed in SEEDS_V2] + [
        str(DealCode.random(1)) for _ in range(6)
    ]
    decks = page.evaluate(
        """async (all) => {
            const { dealDeck, parseDealCode } = await import('/js/dealcode.js');
            return all.map((code) => {
                const parsed = parseDealCode(code);
                return [parsed.version, dealDeck(parsed.letters)];
            });
        }""",
        codes,
    )
    for code, (version, deck) in zip(codes, decks, strict=True):
        expected = [card_text(c) for c in DealCode.parse(code).deck()]
        assert version == 2, code
        assert deck == expected, code


def test_cf2_stream_and_sha256_match_hashlib(page: Page) -> None:
    """The page's SHA-256 on every padding edge, and the CF2 blocks themselves."""
    rng = random.Random(3)
    lengths = (0, 1, 44, 55, 56, 63, 64, 65, 119, 120, 200)
    messages = [bytes(rng.randrange(256) for _ in range(n)) for n in lengths]
    blocks = [(0, 0), (0, 12), (SEED_SPACE_V2 - 1, 3), (rng.randrange(SEED_SPACE_V2), 2**32 - 1)]
    got = page.evaluate(
        """async ([messages, blocks]) => {
            const { sha256, v2Block } = await import('/js/dealcode.js');
            const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
            return {
                digests: messages.map((m) => hex(sha256(new Uint8Array(m)))),
                blocks: blocks.map(([seed, n]) => hex(v2Block(BigInt(seed), n))),
            };
        }""",
        [[list(m) for m in messages], [[str(seed), n] for seed, n in blocks]],
    )
    assert got["digests"] == [hashlib.sha256(m).hexdigest() for m in messages]
    assert got["blocks"] == [v2_block(seed, n).hex() for seed, n in blocks]
    assert got["blocks"][0] == "d6077ae6adc9060e85aa1fd810eb2939b17b266b6b9799d14fa71ce53b4a4481"


def test_deal_codes_parse_as_the_engine_reads_them(page: Page) -> None:
    texts = [
        " cf1-d1-abcdefg ",
        "CF2-D3-7ZK3Q-M9XJ2-BWPHT-4VGN6-YRCF8D",
        "cf2-d1-7zk3qm9xj2bwpht4vgn6yrcf8d",
        "CF2-D3-OOOOOOOOOOOOOOOOOOOOOOOOIL",
        "CF2-D3-7ZK3QM9XJ2BWPHT4VGN6YRCF8",  # 25 characters
        "CF2-D3-7ZK3QM9XJ2BWPHT4VGN6YRCF8U",  # U is refused
        "CF2-D2-7ZK3QM9XJ2BWPHT4VGN6YRCF8D",
        "CF3-D3-7ZK3QM9XJ2BWPHT4VGN6YRCF8D",
        "CF1-D3-AAAAA\u017fL",
        "CF2-D3-7ZK3QM9XJ2BWPHT4VGN6YRCF8\uff11",
    ]
    got = page.evaluate(
        """async (texts) => {
            const { parseDealCode, formatDealCode } = await import('/js/dealcode.js');
            return texts.map((text) => {
                const parsed = parseDealCode(text);
                return parsed && formatDealCode(parsed);
            });
        }""",
        texts,
    )
    expected: list[str | None] = []
    for text in texts:
        try:
            expected.append(str(DealCode.parse(text)))
        except ValueError:
            expected.append(None)
    assert got == expected
    assert expected[:4] == [
        "CF1-D1-ABCDEFG",
        "CF2-D3-7ZK3QM9XJ2BWPHT4VGN6YRCF8D",
        "CF2-D1-7ZK3QM9XJ2BWPHT4VGN6YRCF8D",
        "CF2-D3-00000000000000000000000011",
    ]


def candidate_moves(game: Game) -> list[str]:
    """Every move text a drag could ask for in this position."""
    sources = ["R", "W", *(f"F{i}" for i in range(1, 5))]
    for i, column in enumerate(game.tableau, start=1):
        sources += [str(i) if n == 1 else f"{i}:{n}" for n in range(1, len(column) + 1)]
    return [f"{s}-{t}" for s in sources for t in ("F", "1", "2", "3", "4")]


def legal_texts(game: Game) -> list[str]:
    found = []
    for text in candidate_moves(game):
        try:
            if game.is_legal(Move.parse(text)):
                found.append(text)
        except ValueError:
            continue
    return sorted(found)


def random_game(
    code: str, rng: random.Random
) -> tuple[list[str], list[dict[str, Any]], list[list]]:
    """Play ACTIONS random actions (some undos); the views and legal moves along the way."""
    game = Game.deal(code)
    base_suit = SUITS[game.base_suit]
    texts, views, positions = [], [], []
    for _ in range(ACTIONS):
        moves = [m for m in game.legal_moves() if m.text() != "S"]
        if game.can_undo and rng.random() < 0.12:
            game.pop()
            texts.append("U")
        elif moves and rng.random() < 0.75:
            move = rng.choice(moves)
            game.push(move)
            texts.append(move.text())
        else:
            game.push(Move.parse("S"))
            texts.append("S")
        views.append(game.view())
        positions.append([game.view(), base_suit, legal_texts(game)])
    return texts, views, positions


def test_replays_and_legal_targets_match_the_engine(page: Page) -> None:
    rng = random.Random(2026)
    codes = [str(DealCode.from_seed(seed, rng.choice((1, 3)))) for seed in SEEDS[:GAMES]]
    codes += [str(DealCode.from_seed(seed, rng.choice((1, 3)), 2)) for seed in SEEDS_V2[:GAMES]]
    for code in codes:
        texts, views, positions = random_game(code, rng)
        result = page.evaluate(IN_BROWSER, [code, texts, positions])
        assert result["views"] == views, code
        assert result["legal"] == [expected for _, _, expected in positions], code
