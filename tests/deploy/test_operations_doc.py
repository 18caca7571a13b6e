"""docs/operations.md lists every setting with its environment variable and default."""

from __future__ import annotations

import re
from dataclasses import MISSING, fields
from pathlib import Path

from canfield_server.ops.config import Settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def table_rows() -> dict[str, str]:
    rows: dict[str, str] = {}
    for line in DOC.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 3:
            for name in re.findall(r"`((?:CANFIELD_|REDIS_)[A-Z0-9_]+)`", cells[0]):
                rows[name] = cells[1]
    return rows


def test_every_setting_is_documented_with_its_default() -> None:
    rows = table_rows()
    for f in fields(Settings):
        variable = "REDIS_URL" if f.name == "redis_url" else f"CANFIELD_{f.name.upper()}"
        assert variable in rows, f"{variable} missing from docs/operations.md"
        if f.default is MISSING or f.default in (None, ()):
            continue  # computed or empty defaults are described in words
        default = f.default
        shown = rows[variable].replace(",", "")
        if isinstance(default, tuple):  # written as the variable takes it: comma-separated
            assert f"`{','.join(default)}`" in rows[variable], variable
        elif isinstance(default, bool):
            assert str(default).lower() in shown, variable
        else:
            assert f"`{default}`" in shown, f"{variable}: default {default!r} not in {shown!r}"


def test_documented_variables_all_exist() -> None:
    known = {f"CANFIELD_{f.name.upper()}" for f in fields(Settings)} | {"REDIS_URL"}
    # deployment-only knobs of docker-compose.yml
    known |= {"CANFIELD_PUBLIC_PORT", "CANFIELD_PROMETHEUS_PORT", "CANFIELD_GRAFANA_PORT"}
    known |= {"CANFIELD_GRAFANA_PASSWORD"}
    documented = set(re.findall(r"\b(CANFIELD_[A-Z0-9_]+|REDIS_URL)\b", DOC.read_text()))
    assert documented <= known, documented - known
