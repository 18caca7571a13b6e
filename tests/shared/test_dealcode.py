"""Deal codes: the pinned test vectors of docs/deal-codes.md, parsing, errors."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from canfield import DealCode, Game, InvalidDealCodeError, card_text
from canfield.dealcode import SEED_SPACE, SEED_SPACE_V2

#: code -> all 52 cards in canonical deal order (docs/deal-codes.md).
VECTORS = {
    "CF1-D3-AAAAACL": "3S QS JD QD 4H 5C QH AD 2D 2H 7H 9H TC 2C 9C 7S AH 6H KC AS AC JH KS KH "
    "TH 3D TS JC 9S 2S 8H 8C 5S 8S 4D 3C 8D 9D 5D TD 5H 4C 4S KD 3H 7D 6D 7C JS QC 6S 6C",
    "CF1-D3-AAAAAAA": "8S JH 9C 2S 2D QD 6S TC 3D AC JC 7C 9H 8C QS KH 5H 2C 3H 5C AH 6C 4S TD "
    "5D 8H 8D AD QH TS QC JD 3S 4D 2H 9D 3C KD AS 7S 9S 7D JS 6H KS 4C 7H 5S 6D 4H KC TH",
    "CF1-D3-AAAAAAB": "7D 9C 4D 8H 8D 5S JD 6D 9S JC 5D KD 3C 2D JH 5H 7H 4H 2C AD 6S KC KH TH "
    "TS JS TD 8S QC 4S 6C 7C AS 5C AH KS 6H QS QH QD 9D 3D 3S AC 4C 2H 8C TC 3H 2S 9H 7S",
    "CF1-D1-HELLOCF": "9D AS 7H 2H 8H 4D 8D 6H JS JH KC 3D 6S KD 3S QD TH 3C 5S 6C 3H AC AD TC "
    "QC JD 2S 8S TD 7D 2D KH 2C 6D KS 5H 9S 4S 4H 8C AH 9C 7C 7S 9H 4C TS 5D 5C JC QS QH",
    "CF1-D1-ZZZZZZZ": "6S 5S JH 4D 4S 2S AC 7D 9C TC AH KS 3C 6H 8H TH JS 6D 2H QC 2D 8S 8D 8C "
    "9D 6C JC 9S KH 4C 5H 9H 3S KD 2C KC QH 7S 5C 4H JD 3D AS QS AD 7C TS TD 7H 5D QD 3H",
    "CF2-D3-00000000000000000000000000": "JH 6S AC 3D 9H 8C 8H 5S QH TD 5H JC 4S 7D 6C TS "
    "9S 4C 6H TC 2C 7C JD 8S AS 5C QC 2D JS 6D KS 3H 4H 8D KH 3C 9C 2H TH 5D KD QD KC 9D 3S "
    "AD 4D QS 2S 7S 7H AH",
    "CF2-D3-00000000000000000000000001": "5S JC JH 4H 4D 6D KH 4S 3S QD 2H 5D 4C KC 8S 6C "
    "2D JS 5C AS 9H 8H TS 2S QH JD KD TD QS 3C 6H 9S 9D 7H QC 7D TC 7C 7S 2C 5H 8C AD TH 9C "
    "AC 3D 8D AH KS 6S 3H",
    "CF2-D3-7ZK3QM9XJ2BWPHT4VGN6YRCF8D": "TD 9C 8S AH QH 6C 6D 7C 7D 2C QS 8D 6H KD 5H 3H "
    "7H QD 5S TC 7S AD 2S 4D 9H 6S JC 8H QC 5D TH 9S 5C 2D KC KS AS 4S JH 3D AC 9D 4H JS 3C "
    "3S 8C JD KH TS 2H 4C",
    "CF2-D1-ZZZZZZZZZZZZZZZZZZZZZZZZZZ": "6C 7D 9H 4C 9C 3D 5C 6H AS QD 2D TD JH AD 3H TS "
    "7S 9D JC 3S 2C 3C 7C 6S QH 8D 5H 8S 5D 8C 2S 9S JD TH 4H 8H 7H AH 4S KC KS 5S AC 6D 4D "
    "JS QS KD KH TC QC 2H",
}


DOC = Path(__file__).resolve().parents[2] / "docs" / "deal-codes.md"


def test_the_doc_lists_the_pinned_vectors() -> None:
    section = DOC.read_text(encoding="utf-8").split("## Test vectors")[1].split("## Versions")[0]
    found = {
        code: " ".join(cards.split())
        for code, cards in re.findall(
            r"(CF[12]-D[13]-[0-9A-Z]+)\s+((?:[2-9TJQKA][CDHS]\s+)+)", section
        )
    }
    assert found == {code: " ".join(cards.split()) for code, cards in VECTORS.items()}


def doc_deal(code: str) -> list[str]:
    """docs/deal-codes.md written out again, independently of the engine.

    A CF2 code goes to ``doc_deal_v2``; for CF1:

    Seed via Python's own base-26 reading (A-Z mapped to 0-9a-p), SplitMix64
    as a closure, the deck built from strings, the bias check done as the
    doc states it.
    """
    if code.strip().upper().startswith("CF2-"):
        return doc_deal_v2(code)
    letters = code.strip().upper().split("-")[2]
    seed = int(
        letters.translate(
            str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789abcdefghijklmnop")
        ),
        26,
    )
    two64 = 2**64
    state = seed

    def next_output() -> int:
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) % two64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % two64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % two64
        return z ^ (z >> 31)

    deck = [rank + suit for suit in "CDHS" for rank in "A23456789TJQK"]
    for i in range(51, 0, -1):
        bound = i + 1
        value = next_output()
        while value >= two64 - two64 % bound:
            value = next_output()
        j = value % bound
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def doc_deal_v2(code: str) -> list[str]:
    """The CF2 steps of docs/deal-codes.md, written separately from the engine.

    Seed via Python's own base-32 reading (Crockford's alphabet mapped to
    0-9a-v), the stream as one byte string of whole hashlib digests cut
    into 8-byte words, the deck built from strings.
    """
    chars = code.strip().upper().split("-", 2)[2].replace("-", "")
    seed = int(
        chars.translate(
            str.maketrans("0123456789ABCDEFGHJKMNPQRSTVWXYZ", "0123456789abcdefghijklmnopqrstuv")
        ),
        32,
    )
    stream = b"".join(
        hashlib.sha256(
            b"canfield-race CF2 deal" + bytes([0]) + seed.to_bytes(17, "big") + n.to_bytes(4, "big")
        ).digest()
        for n in range(20)  # 640 bytes: 80 words, far more than 51 draws need
    )
    words = iter(int.from_bytes(stream[k : k + 8], "big") for k in range(0, len(stream), 8))
    two64 = 2**64
    deck = [rank + suit for suit in "CDHS" for rank in "A23456789TJQK"]
    for i in range(51, 0, -1):
        bound = i + 1
        value = next(words)
        while value >= two64 - two64 % bound:
            value = next(words)
        j = value % bound
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def texts(code: DealCode) -> list[str]:
    return [card_text(c) for c in code.deck()]


@pytest.mark.parametrize("code", sorted(VECTORS))
def test_vectors_are_pinned(code: str) -> None:
    assert texts(DealCode.parse(code)) == VECTORS[code].split()


@pytest.mark.parametrize("code", sorted(VECTORS))
def test_the_documented_algorithm_gives_the_vectors(code: str) -> None:
    assert doc_deal(code) == VECTORS[code].split()


@pytest.mark.parametrize("seed", [2, 25, 26, 12345, 4_000_000_000, SEED_SPACE - 2])
def test_the_documented_algorithm_matches_the_engine(seed: int) -> None:
    code = DealCode.from_seed(seed)
    assert doc_deal(str(code)) == texts(code)


@pytest.mark.parametrize("seed", [2, 31, 32, 2**64, 2**128 + 12345, SEED_SPACE_V2 - 2])
def test_the_documented_v2_algorithm_matches_the_engine(seed: int) -> None:
    code = DealCode.from_seed(seed, 3, 2)
    assert doc_deal(str(code)) == texts(code)


def test_documented_first_v2_block() -> None:
    from canfield.dealcode import v2_block

    assert v2_block(0, 0).hex() == (
        "d6077ae6adc9060e85aa1fd810eb2939b17b266b6b9799d14fa71ce53b4a4481"
    )


def test_documented_first_splitmix64_output() -> None:
    from canfield.dealcode import _splitmix64

    assert _splitmix64(0)[1] == 0xE220A8397B1DCDAF


def test_seed_is_the_letters_in_base_26() -> None:
    assert DealCode.parse("CF1-D3-AAAAAAA").seed == 0
    assert DealCode.parse("CF1-D3-AAAAAAB").seed == 1
    assert DealCode.parse("CF1-D3-AAAAACL").seed == 63
    assert DealCode.parse("CF1-D3-ZZZZZZZ").seed == 26**7 - 1 == SEED_SPACE - 1
    for seed in (0, 1, 63, 26**6, SEED_SPACE - 1):
        assert DealCode.from_seed(seed, 1).seed == seed
    with pytest.raises(InvalidDealCodeError):
        DealCode.from_seed(SEED_SPACE)


def test_v2_seed_is_the_characters_in_base_32() -> None:
    assert DealCode.parse("CF2-D3-" + "0" * 26).seed == 0
    assert DealCode.parse("CF2-D3-" + "0" * 25 + "Z").seed == 31
    assert DealCode.parse("CF2-D3-" + "0" * 24 + "10").seed == 32
    assert DealCode.parse("CF2-D3-" + "Z" * 26).seed == 2**130 - 1 == SEED_SPACE_V2 - 1
    for seed in (0, 1, 31, 32, 2**64, 2**129 + 5, SEED_SPACE_V2 - 1):
        code = DealCode.from_seed(seed, 1, 2)
        assert (code.seed, code.version, len(code.letters)) == (seed, 2, 26)
        assert DealCode.parse(str(code)) == code
    with pytest.raises(InvalidDealCodeError):
        DealCode.from_seed(SEED_SPACE_V2, 3, 2)
    with pytest.raises(InvalidDealCodeError, match="version"):
        DealCode.from_seed(0, 3, 3)


def test_v2_reading_ignores_case_grouping_and_look_alikes() -> None:
    code = DealCode.parse("CF2-D3-7ZK3QM9XJ2BWPHT4VGN6YRCF8D")
    assert DealCode.parse("  cf2-d3-7zk3q-m9xj2-bwpht-4vgn6-yrcf8d ") == code
    assert DealCode.parse("CF2-D3-7ZK3Q M9XJ2 BWPHT 4VGN6 YRCF8D") == code
    assert str(DealCode.parse("cf2-d1-" + "o" * 13 + "iL" * 6 + "l")) == (
        "CF2-D1-" + "0" * 13 + "1" * 13
    )
    assert str(code.with_draw(1)) == "CF2-D1-7ZK3QM9XJ2BWPHT4VGN6YRCF8D"
    assert code.with_draw(1).deck() == code.deck()
    assert code.with_draw(1).with_draw(3) == code


def test_random_deals_are_v2_and_drawn_from_at_least_2_to_the_128() -> None:
    assert DealCode.RANDOM_VERSION == 2
    assert DealCode.SEED_SPACES == {1: 26**7, 2: 2**130}
    assert DealCode.SEED_SPACES[DealCode.RANDOM_VERSION] >= 2**128
    codes = [DealCode.random(1 + 2 * (n % 2)) for n in range(64)]
    assert all(code.version == 2 and code.seed_space == 2**130 for code in codes)
    assert all(str(code).startswith(f"CF2-D{code.draw}-") for code in codes)
    assert len({code.seed for code in codes}) == 64
    # 64 draws all below 2**125 would have probability 2**-320
    assert max(code.seed for code in codes).bit_length() > 125
    assert DealCode.parse("CF1-D3-AAAAACL").seed_space == 26**7


def test_v1_codes_keep_their_form_and_version() -> None:
    code = DealCode.parse("cf1-d1-hellocf")
    assert (code.letters, code.draw, code.version) == ("HELLOCF", 1, 1)
    assert DealCode("HELLOCF", 1) == code
    assert str(code.with_draw(3)) == "CF1-D3-HELLOCF"


def test_draw_modes_lay_out_the_same_cards() -> None:
    for letters in ("CF1-{}-AAAAACL", "CF1-{}-ZZZZZZZ", "CF1-{}-QWERTYU", "CF2-{}-" + "7" * 26):
        one = Game.deal(letters.format("D1")).to_dict()
        three = Game.deal(letters.format("D3")).to_dict()
        assert (one.pop("draw"), three.pop("draw")) == (1, 3)
        assert one == three


def test_game_deals_in_canonical_order() -> None:
    cards = VECTORS["CF1-D1-HELLOCF"].split()
    game = Game.deal("CF1-D1-HELLOCF")
    assert [card_text(c) for c in game.reserve] == cards[0:13]
    assert game.view()["reserve"] == {"top": cards[12], "count": 13}
    assert game.view()["foundations"] == [[cards[13]], [], [], []]
    assert game.view()["start_rank"] == cards[13][0]
    assert game.view()["tableau"] == [[c] for c in cards[14:18]]
    assert game.view()["waste"] == {"fan": [], "under": [], "count": 0}
    assert (game.score, game.on_foundations, game.can_undo) == (0, 1, False)
    turned = []
    for _ in range(34):
        game.push_text("S")
        turned.append(game.view()["waste"]["fan"][-1])
    assert turned == cards[18:52]


def test_parse_is_case_insensitive_and_trims_spaces() -> None:
    code = DealCode.parse("  cf1-d1-abcdefg \n")
    assert (code.letters, code.draw) == ("ABCDEFG", 1)
    assert str(code) == "CF1-D1-ABCDEFG"
    assert DealCode.parse(str(code)) == code
    assert DealCode.parse("CF1-d3-AbCdEfG") == code.with_draw(3)


def test_random_codes_are_valid_and_keep_the_draw_mode() -> None:
    for draw in (1, 3):
        code = DealCode.random(draw)
        assert code.draw == draw
        assert DealCode.parse(str(code)) == code
        assert sorted(code.deck()) == list(range(52))


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("CF3-D3-AAAAACL", "version"),
        ("CF2-D3-AAAAACL", "26 characters"),
        ("CF2-D3-" + "0" * 27, "26 characters"),
        ("CF2-D3-", "26 characters"),
        ("CF2-D2-" + "0" * 26, "draw mode"),
        ("CF2-" + "0" * 26, "draw mode"),
        ("CF2-D3-" + "0" * 25 + "U", "without U"),
        ("CF2-D3-" + "0" * 25 + "_", "without U"),
        ("XX-D3-AAAAACL", "version"),
        ("CF1-D2-AAAAACL", "draw mode"),
        ("CF1-3-AAAAACL", "draw mode"),
        ("CF1-D3-AAAAAC", "7 letters"),
        ("CF1-D3-AAAAACLL", "7 letters"),
        ("CF1-D3-", "7 letters"),
        ("CF1-D3-AAAA1CL", "only the letters A-Z"),
        ("CF1-D3-AAÄAACL", "only the letters A-Z"),
        ("CF1-D3-AA AACL", "only the letters A-Z"),
        ("CF1D3AAAAACL", "three parts"),
        ("CF1-D3-AAAAACL-X", "three parts"),
        ("", "empty"),
        ("   ", "empty"),
    ],
)
def test_malformed_codes_say_what_is_wrong(text: str, names: str) -> None:
    with pytest.raises(InvalidDealCodeError) as info:
        DealCode.parse(text)
    assert names in str(info.value)


def test_a_code_must_be_text() -> None:
    with pytest.raises(InvalidDealCodeError, match="text"):
        DealCode.parse(63)  # type: ignore[arg-type]


def test_direct_construction_checks_its_parts() -> None:
    with pytest.raises(InvalidDealCodeError, match="draw mode"):
        DealCode("AAAAACL", 2)
    with pytest.raises(InvalidDealCodeError, match="7 of A-Z"):
        DealCode("aaaaacl", 3)
    with pytest.raises(InvalidDealCodeError, match="26 of"):
        DealCode("0" * 25 + "I", 3, 2)
    with pytest.raises(InvalidDealCodeError, match="26 of"):
        DealCode("AAAAACL", 3, 2)
    with pytest.raises(InvalidDealCodeError, match="version"):
        DealCode("AAAAACL", 3, 3)
