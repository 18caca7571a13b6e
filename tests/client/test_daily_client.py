"""The Python client's daily race and history, and ``canfield-race bot --daily``."""

from __future__ import annotations

import subprocess

from canfield_bench.processes import race_command
from canfield_client.bot import run_daily
from canfield_client.client import RaceClient, ServerError

from tests.conftest import ServerFactory

DATE = "2031-09-09"
#: a fixed secret: the same candidate deals every run
ENV = {"CANFIELD_DAILY_DATE": DATE, "CANFIELD_DAILY_SECRET": "client-test-secret"}


async def test_race_client_plays_the_daily_deal_and_reads_the_standing(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(env=ENV)
    client, standing = await run_daily(server.ws_url, "Robo", draw=1, seed=3)
    mine = client.daily_finished
    assert mine is not None and mine.date == DATE and mine.draw == 1
    assert mine.row.status in ("won", "gave_up") and mine.row.rank == 1
    assert standing.players == 1 and standing.rows[0].name == "Robo"
    assert standing.deal is None and not standing.over
    token = client.identity_token
    assert token is not None

    async with RaceClient(server.ws_url) as again:
        assert (await again.identify(token)).id == client.identity_id
        try:
            await again.daily("Robo", 1)
        except ServerError as exc:
            assert exc.code == "daily-played"
        else:
            raise AssertionError("a second daily attempt was accepted")
        history = await again.history()
        assert [r.kind for r in history.races] == ["daily"] and history.streak == 1
        assert (await again.delete_history()).removed == 1


def test_bot_command_plays_the_daily_race(server_factory: ServerFactory) -> None:
    server = server_factory(env=ENV)
    command = [*race_command(), "bot", "--daily", "--draw", "3", "--pace", "0"]
    first = subprocess.run(
        [*command, "--server", server.ws_url, "--name", "Ann"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert first.returncode == 0, first.stdout + first.stderr
    assert f"standing of {DATE} (draw 3), 1 player(s):" in first.stdout
    assert "1. Ann" in first.stdout
    token = first.stdout.split("identity: ")[1].split()[0]
    again = subprocess.run(
        [*command, "--server", server.ws_url, "--name", "Ann", f"--identity={token}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 1 and "daily-played" in again.stdout
