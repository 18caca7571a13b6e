"""Structured logs carry room and player ids as fields and never a token."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
from canfield_client.client import RaceClient
from canfield_server.ops import logs

from tests.conftest import ServerFactory


@pytest.fixture
def capture() -> Iterator[logging.Logger]:
    logger = logging.getLogger("canfield.test-logs")
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    yield logger
    logger.handlers.clear()


def attach(logger: logging.Logger, formatter: logging.Formatter) -> io.StringIO:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    handler.addFilter(logs.RedactTokens())
    logger.handlers[:] = [handler]
    return stream


def test_json_lines_carry_event_instance_and_ids(capture: logging.Logger) -> None:
    stream = attach(capture, logs.JsonFormatter("srv-a"))
    logs.event(capture, "move.accepted", room="ABC234", player="p7", seq=3)
    logs.event(capture, "room.created", level=logging.WARNING, room="XYZ789")
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["event"] == "move.accepted"
    assert (first["room"], first["player"], first["seq"]) == ("ABC234", "p7", 3)
    assert first["instance"] == "srv-a" and first["level"] == "info"
    assert second["level"] == "warning" and second["room"] == "XYZ789"


def test_text_lines_show_fields_as_key_value(capture: logging.Logger) -> None:
    stream = attach(capture, logs.TextFormatter("srv-a"))
    logs.event(capture, "player.joined", room="ABC234", player="p1")
    line = stream.getvalue().strip()
    assert line.endswith("INFO canfield.test-logs player.joined room=ABC234 player=p1")


@pytest.mark.parametrize("json_lines", [True, False])
def test_tokens_never_reach_the_output(capture: logging.Logger, json_lines: bool) -> None:
    secret = "Zq3mK8vN2xR7pL4wT9yB1c"
    formatter = logs.JsonFormatter("a") if json_lines else logs.TextFormatter("a")
    stream = attach(capture, formatter)
    logs.event(capture, "player.resumed", room="ABC234", player="p1", token=secret)
    logs.event(capture, "frame", room="ABC234", raw=f'{{"type":"resume","token":"{secret}"}}')
    capture.info('bad frame {"type": "resume", "room": "ABC234", "token": "%s"}', secret)
    capture.info("resume_token=%s&room=ABC234", secret)
    try:
        raise ValueError(f"token={secret}")
    except ValueError:
        capture.exception("failed")
    out = stream.getvalue()
    assert secret not in out
    assert out.count(logs.REDACTED) >= 4
    assert "ABC234" in out  # ids survive the scrubbing


def test_configure_routes_uvicorn_through_one_handler() -> None:
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        logs.configure(json_lines=True, instance="srv-b")
        assert len(root.handlers) == 1
        assert isinstance(root.handlers[0].formatter, logs.JsonFormatter)
        assert logging.getLogger("uvicorn.error").propagate
        assert not logging.getLogger("uvicorn.access").handlers
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])


async def test_a_real_server_logs_json_with_ids_and_without_tokens(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(env={"CANFIELD_LOG_JSON": "true", "CANFIELD_INSTANCE": "logs-a"})
    async with RaceClient(server.ws_url) as host:
        joined = await host.create("Ann")
        async with RaceClient(server.ws_url) as again:
            await again.resume(joined.room, joined.token)
    lines = [line for line in server.log_path.read_text().splitlines() if line.strip()]
    entries = []
    for line in lines:  # every line is one JSON object
        try:
            entries.append(json.loads(line))
        except ValueError:
            pytest.fail(f"not a JSON log line: {line!r}")
    seated = [e for e in entries if e["event"] == "member.joined"]
    assert len(seated) == 2
    assert {(e["room"], e["player"], e["instance"]) for e in seated} == {
        (joined.room, joined.player_id, "logs-a")
    }
    assert joined.token not in server.log_path.read_text()
