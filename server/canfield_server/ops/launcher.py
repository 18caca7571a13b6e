"""Start a server as a child process on a free loopback port.

Tests and the benchmark both need a real ``canfield-race serve`` (and the
benchmark its bare baseline): this is the one place that knows how to
launch one, wait for ``/healthz``, read its memory, and stop it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from canfield_server.ops import children
from canfield_server.storage.embedded_redis import free_port

__all__ = ["LoopbackEndpoint", "ServerProcess", "BaselineProcess"]


class LoopbackEndpoint:
    """Something listening on ``self.port`` of 127.0.0.1: its page and WebSocket URLs."""

    port: int

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"


class ServerProcess(LoopbackEndpoint):
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
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def argv(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "canfield_cli",
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
        ]

    def start(self, timeout_s: float = 20.0) -> ServerProcess:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")  # noqa: SIM115 - closed with the process
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        self.process = subprocess.Popen(self.argv(), stdout=log, stderr=subprocess.STDOUT, env=env)
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

    def rss_mb(self) -> float | None:
        """Resident memory of the process now, in MB (Linux /proc), or None."""
        return rss_mb(self.pid) if self.pid else None

    def kill(self) -> None:
        """SIGKILL: a crash, no shutdown code runs."""
        children.kill(self.process)

    def stop(self) -> None:
        children.stop(self.process)

    def restart(self) -> ServerProcess:
        self.kill()
        return self.start()


class BaselineProcess(ServerProcess):
    """The bare baseline endpoint (``canfield_server.ops.baseline``) as a process."""

    def argv(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "canfield_server.ops.baseline",
            "--port",
            str(self.port),
            "--redis-url",
            self.redis_url,
        ]


def rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None
