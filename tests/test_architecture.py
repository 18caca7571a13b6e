"""The layers hold, the code type-checks and lints: checked on every test run.

``lint-imports`` reads the contracts in ``pyproject.toml`` (engine <-
protocol <- server and client, which never import each other; the
server's own layers; room logic without Redis or sockets). ``mypy``
reads its settings there too. Either one failing names the import or
the line that broke the rule. Tests share helpers through ``conftest.py``
and ``helpers.py`` files, never by importing another test file.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )


def test_the_import_contracts_hold() -> None:
    done = run(str(BIN / "lint-imports"), "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "broken" not in done.stdout.lower().replace("0 broken", "")


def test_every_package_type_checks() -> None:
    done = run(sys.executable, "-m", "mypy")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout


def test_the_whole_project_lints_and_is_formatted() -> None:
    """``ruff check`` and ``ruff format --check`` over every file, tests included:
    a long line or an unsorted import fails here, not only in an editor."""
    for command in (("check", "--no-cache"), ("format", "--check", "--no-cache")):
        done = run(str(BIN / "ruff"), *command, ".")
        assert done.returncode == 0, done.stdout + done.stderr


def test_server_and_client_never_import_each_other_even_lazily() -> None:
    """import-linter sees module-level and function-level imports; this also
    catches a package name in a string handed to importlib."""
    for package, other in (
        ("server/canfield_server", "canfield_client"),
        ("client/canfield_client", "canfield_server"),
        ("client/canfield_client", "canfield_bench"),
        ("client/canfield_bench", "canfield_server"),
    ):
        offenders = [
            str(path.relative_to(ROOT))
            for path in (ROOT / package).rglob("*.py")
            if other in path.read_text(encoding="utf-8")
        ]
        assert offenders == [], f"{package} names {other}: {offenders}"


def imported_modules(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, module) of every import in ``tree``, a relative one by its own name."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, node.module or ""))
            found += [(node.lineno, alias.name) for alias in node.names if node.level]
    return found


def test_no_test_file_imports_another() -> None:
    """A helper two test files share lives in ``tests/<dir>/helpers.py`` (or a
    ``conftest.py`` fixture), so no test file depends on another one's insides."""
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        for line, module in imported_modules(ast.parse(path.read_text(encoding="utf-8")))
        if any(part.startswith("test_") for part in module.split("."))
    ]
    assert offenders == [], "\n".join(offenders)
