"""The page's protocol words (``web/js/protocol.js``) are the server's.

The page compares error codes, the limits they name and statuses from the
wire with the values in ``protocol.js``; a code renamed or added on one side
only would make the page mishandle it silently. Read as text: no browser needed.
"""

from __future__ import annotations

import re
from pathlib import Path

from canfield_protocol import Cap, ErrorCode, MemberStatus

JS = Path(__file__).resolve().parents[2] / "client/canfield_client/web/js"


def frozen_object(name: str) -> dict[str, str]:
    """The ``NAME: "value"`` pairs of ``export const <name> = Object.freeze({...})``."""
    source = (JS / "protocol.js").read_text(encoding="utf-8")
    body = re.search(rf"export const {name} = Object\.freeze\(\{{(.*?)\}}\);", source, re.S)
    assert body is not None, f"protocol.js has no {name}"
    return dict(re.findall(r'([A-Z_]+): "([^"]+)"', body.group(1)))


def test_every_error_code_is_spelled_as_the_server_spells_it() -> None:
    assert frozen_object("ERR") == {code.name: code.value for code in ErrorCode}


def test_every_racer_status_is_spelled_as_the_server_spells_it() -> None:
    assert frozen_object("STATUS") == {status.name: status.value for status in MemberStatus}


def test_every_limit_a_refusal_names_is_spelled_as_the_server_spells_it() -> None:
    assert frozen_object("CAP") == {cap.name: cap.value for cap in Cap}


def test_no_page_spells_an_error_code_itself() -> None:
    """Every module takes the codes from protocol.js (``ERR.X``), none writes one out."""
    codes = {code.value for code in ErrorCode if "-" in code.value}
    offenders = []
    for path in sorted(JS.glob("*.js")):
        if path.name == "protocol.js":
            continue
        text = path.read_text(encoding="utf-8")
        code_only = re.sub(r"//[^\n]*", "", text)  # comments may name a code
        offenders += [f"{path.name}: {c}" for c in codes if f'"{c}"' in code_only]
    assert offenders == []
