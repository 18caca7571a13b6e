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


def test_rules_doc_examples_run() -> None:
    result = doctest.testfile(str(DOCS / "rules.md"), module_relative=False)
    assert result.attempted >= 6
    assert result.failed == 0


def test_the_engine_cites_only_files_in_this_repository() -> None:
    engine = Path(canfield.__file__).parent
    for path in sorted(engine.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "canfield-rules.md" not in text and "../shared/" not in text, path


def test_package_docstring_example_runs() -> None:
    result = doctest.testmod(canfield)
    assert result.attempted >= 3
    assert result.failed == 0
