"""Every parser of typed-in text reads exactly its documented ASCII alphabet.

Move texts (docs/moves.md), card texts and deal codes (docs/deal-codes.md)
are ASCII: no Unicode case mapping (``'ſ'.upper() == 'S'``), no Unicode
digits (``'²'.isdigit()``, ``'٣'``, full-width ``'２'``) and no Unicode
spaces pass for part of one. Whatever the text, a parser answers with its
own error (never another exception), and the message quotes at most a
short prefix of the text. The ``canfield-race`` commands deal, play and
solve, run in-process on arbitrary arguments and standard input, exit
with 0, 1 or 2 and a bounded message, never a traceback; output into a
closed pipe ends them quietly (status 141).
"""

from __future__ import annotations

import contextlib
import io
import string
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from canfield import (
    DealCode,
    InvalidCardError,
    InvalidDealCodeError,
    InvalidMoveError,
    Move,
    card_text,
    parse_card,
)
from canfield.moves import parse_move
from canfield.textinput import SPACES, excerpt
from canfield_cli.main import BROKEN_PIPE, main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.shared.helpers import (
    CARD_TEXTS,
    DEAL_TEXTS,
    ENGINE_MESSAGE_MAX,
    MOVE_TEXTS,
    TRICKY,
    spliced,
)

ROOT = Path(__file__).resolve().parents[2]
#: the longest error a command prints (usage line included)
CLI_MESSAGE_MAX = 800


#: any text: unicode of every kind, the tricky characters, and long runs
any_text = st.one_of(
    st.text(),
    st.text(st.sampled_from([*TRICKY, *string.printable])),
    st.builds(
        lambda ch, n: ch * n,
        st.sampled_from(["x", "A", "1", " ", "ſ", "²"]),
        st.integers(10, 300_000),
    ),
)


def documented(text: str, alphabet: str, longest: int) -> bool:
    """Whether ``text`` is ASCII, short, and (spaces around it aside) drawn from ``alphabet``."""
    inner = text.strip(SPACES)
    return text.isascii() and len(text) <= longest and all(ch in alphabet for ch in inner.upper())


# ------------------------------------------------------------------ the engine


@pytest.mark.parametrize(
    "text", ["1:²-2", "1:¹²-2", "4:³-1", "ſ", "2:٣-4", "1:２-3", "3:१०-1", "\u3000S", "S\xa0"]
)
def test_the_moves_the_attack_found_are_refused(text: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    assert excerpt(text) in str(info.value)


def test_a_deal_code_with_a_long_s_is_refused_not_read_as_another_deal() -> None:
    with pytest.raises(InvalidDealCodeError, match="only the letters A-Z"):
        DealCode.parse("CF1-D3-AAAAAſL")


@pytest.mark.parametrize(
    ("parse", "error"),
    [
        (parse_move, InvalidMoveError),
        (parse_card, InvalidCardError),
        (DealCode.parse, InvalidDealCodeError),
    ],
)
@pytest.mark.parametrize("size", [100, 100_000, 20_000_000])
def test_a_huge_text_is_quoted_by_a_short_prefix_and_its_length(
    parse: Callable[[str], object], error: type[Exception], size: int
) -> None:
    with pytest.raises(error) as info:
        parse("A" * size)
    message = str(info.value)
    assert len(message) <= ENGINE_MESSAGE_MAX
    assert f"'{'A' * 20}" in message and f"'... ({size} characters)" in message


@settings(max_examples=300, deadline=None)
@given(any_text)
def test_parse_move_reads_only_its_ascii_alphabet(text: str) -> None:
    try:
        move = Move.parse(text)
    except InvalidMoveError as exc:
        assert len(str(exc)) <= ENGINE_MESSAGE_MAX
        return
    assert documented(text, "SRWF0123456789:-", 64), text
    assert Move.parse(move.text()) == move


@settings(max_examples=300, deadline=None)
@given(any_text)
def test_parse_card_reads_only_its_ascii_alphabet(text: str) -> None:
    try:
        card = parse_card(text)
    except InvalidCardError as exc:
        assert len(str(exc)) <= ENGINE_MESSAGE_MAX
        return
    assert documented(text, "A23456789TJQK10CDHS", 64), text
    assert parse_card(card_text(card)) == card


@settings(max_examples=300, deadline=None)
@given(any_text)
def test_deal_code_parse_reads_only_its_ascii_alphabet(text: str) -> None:
    try:
        code = DealCode.parse(text)
    except InvalidDealCodeError as exc:
        assert len(str(exc)) <= ENGINE_MESSAGE_MAX
        return
    assert documented(text, string.ascii_uppercase + string.digits + "- ", 128), text
    assert DealCode.parse(str(code)) == code


@settings(max_examples=400, deadline=None)
@given(spliced(MOVE_TEXTS))
def test_a_move_with_a_non_ascii_character_is_refused(text: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    assert len(str(info.value)) <= ENGINE_MESSAGE_MAX


@settings(max_examples=400, deadline=None)
@given(spliced(CARD_TEXTS))
def test_a_card_with_a_non_ascii_character_is_refused(text: str) -> None:
    with pytest.raises(InvalidCardError) as info:
        parse_card(text)
    assert len(str(info.value)) <= ENGINE_MESSAGE_MAX


@settings(max_examples=400, deadline=None)
@given(spliced(DEAL_TEXTS))
def test_a_deal_code_with_a_non_ascii_character_is_refused(text: str) -> None:
    with pytest.raises(InvalidDealCodeError) as info:
        DealCode.parse(text)
    assert len(str(info.value)) <= ENGINE_MESSAGE_MAX


def test_the_valid_texts_the_splices_start_from_parse() -> None:
    """The refusals above are about the spliced character, not the text around it."""
    assert all(Move.parse(text) for text in MOVE_TEXTS)
    assert all(parse_card(text) >= 0 for text in CARD_TEXTS)
    assert all(DealCode.parse(text) for text in DEAL_TEXTS)


# ------------------------------------------------------------------ the commands


def run_cli(argv: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    """``canfield-race ARGV`` in-process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin if stdin is not None else "")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as exc:  # argparse's usage errors
                status = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stdin = saved
    return status, out.getvalue(), err.getvalue()


def check_refusal(status: int, err: str) -> None:
    assert status in (0, 1, 2), (status, err[:300])
    assert "Traceback" not in err
    assert len(err) <= CLI_MESSAGE_MAX, err[:300]


cli_text = st.one_of(
    st.text(max_size=40),
    spliced(DEAL_TEXTS + MOVE_TEXTS),
    st.builds(lambda n: "A" * n, st.integers(20, 100_000)),
)
cli_settings = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@cli_settings
@given(cli_text, st.booleans())
def test_deal_on_any_argument(text: str, as_json: bool) -> None:
    status, out, err = run_cli(["deal", *(["--json"] if as_json else []), "--", text])
    check_refusal(status, err)
    if status == 0:
        assert documented(text, string.ascii_uppercase + string.digits + "- ", 128)


@cli_settings
@given(st.lists(cli_text, max_size=4))
def test_play_on_any_arguments(moves: list[str]) -> None:
    status, _, err = run_cli(["play", "CF1-D3-AAAAACL", "--", *moves])
    check_refusal(status, err)
    if status == 0:
        assert all(text.isascii() for text in moves)


@cli_settings
@given(st.one_of(cli_text, st.lists(cli_text, max_size=5).map("\n".join)))
def test_play_on_any_standard_input(stdin: str) -> None:
    status, _, err = run_cli(["play", "CF1-D3-AAAAACL"], stdin)
    check_refusal(status, err)
    if status == 0:
        assert stdin.isascii()


@cli_settings
@given(cli_text)
def test_solve_on_any_argument(text: str) -> None:
    status, _, err = run_cli(["solve", "--timeout", "0.2", "--json", "--", text])
    check_refusal(status, err)


@pytest.mark.parametrize("size", [100_000, 20_000_000])
def test_play_refuses_an_over_long_line_of_standard_input_without_echoing_it(size: int) -> None:
    status, _, err = run_cli(["play", "CF1-D3-AAAAACL"], "S " + "x" * size)
    assert status == 2
    assert "line 1 of standard input is over 65536 characters" in err
    assert len(err) < 300


def test_play_reads_a_long_replay_on_one_line() -> None:
    """The line cap leaves room for a stored replay written on one line."""
    status, out, err = run_cli(["play", "--json", "CF1-D3-AAAAACL"], ", ".join(["S"] * 3000))
    assert (status, err) == (0, "")
    assert '"moves": 3000' in out


def test_play_refuses_an_undo_behind_a_unicode_space() -> None:
    status, _, err = run_cli(["play", "CF1-D3-AAAAACL"], "S\n\xa0U\n")
    assert status == 1
    assert "move 2 ('\\xa0U') refused" in err


def test_a_usage_error_quotes_the_bad_argument_in_part() -> None:
    status, _, err = run_cli(["solve", "--timeout", "x" * 100_000])
    assert status == 2
    assert "... (" in err and len(err) <= CLI_MESSAGE_MAX


def test_output_into_a_closed_pipe_in_process_is_status_141() -> None:
    class Closed(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    with contextlib.redirect_stdout(Closed()):
        assert main(["deal", "CF1-D3-AAAAACL"]) == BROKEN_PIPE


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "CF1-D3-AAAAACL", "--json"],
        ["deal", "CF1-D3-AAAAACL", "--json"],
        ["play", "CF1-D3-AAAAACL", "S", "S"],
    ],
)
def test_a_command_whose_pipe_closes_ends_quietly(argv: list[str]) -> None:
    """``canfield-race solve CODE --json | head -c 100``: no BrokenPipeError traceback.
    The reading end is closed before the command writes a byte."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "canfield_cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    status = proc.wait(timeout=60)
    assert status in (0, BROKEN_PIPE), err
    assert "Traceback" not in err and "BrokenPipeError" not in err
