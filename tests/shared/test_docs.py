"""The examples in the engine's docs run as written (doctest)."""

from __future__ import annotations

import doctest
from pathlib import Path

import canfield

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_moves_doc_examples_run() -> None:
    result = doctest.testfile(str(DOCS / "moves.md"), module_relative=False)
    assert result.attempted >= 6
    assert result.failed == 0


def test_package_docstring_example_runs() -> None:
    result = doctest.testmod(canfield)
    assert result.attempted >= 3
    assert result.failed == 0
