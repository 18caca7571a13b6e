"""The layers hold, and the code type-checks: both checked on every test run.

``lint-imports`` reads the contracts in ``pyproject.toml`` (engine <-
protocol <- server and client, which never import each other; the
server's own layers; room logic without Redis or sockets). ``mypy``
reads its settings there too. Either one failing names the import or
the line that broke the rule.
"""

from __future__ import annotations

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
