"""What several deployment test files share: docker-compose.yml as
``docker-compose config`` resolves it.

Test files import from here (or from ``conftest.py``), never from another test
file (``tests/test_architecture.py`` checks that).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import need

REPO = Path(__file__).resolve().parents[2]
COMPOSE = shutil.which("docker-compose")


def compose_config(*options: str) -> dict[str, Any]:
    """docker-compose.yml as ``docker-compose [options] config`` resolves it."""
    need(COMPOSE is not None, "docker-compose not installed (apt-get install docker-compose)")
    result = subprocess.run(
        [str(COMPOSE), "-f", str(REPO / "docker-compose.yml"), *options, "config"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    return yaml.safe_load(result.stdout)
