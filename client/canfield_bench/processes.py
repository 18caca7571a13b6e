"""Start ``canfield-race`` subcommands as child processes, by their command line.

The benchmark (and the tests) need real processes: ``canfield-race serve``
on a free loopback port, the bare ``canfield-race baseline``, and a shared
``canfield-race redis``. The benchmarks never import the server to get them:
it runs the commands, waits until each is ready (``/healthz`` answers, or
``redis`` prints its URL), reads their memory, and stops them with SIGTERM
(SIGKILL after a grace period).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Self

__all__ = [
    "race_command",
    "free_port",
    "rss_mb",
    "LoopbackEndpoint",
    "ChildProcess",
    "ServerProcess",
    "BaselineProcess",
    "RedisProcess",
    "DelayProxy",
    "local_servers",
    "stop_all",
    "cpu_hog",
]


def race_command() -> list[str]:
    """``canfield-race`` for this interpreter: the console script beside it, else ``-m``."""
    script = Path(sys.executable).with_name("canfield-race")
    return [str(script)] if script.exists() else [sys.executable, "-m", "canfield_cli"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_mb(pid: int) -> float | None:
    """Resident memory of a process now, in MB (Linux /proc), or None."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class LoopbackEndpoint:
    """Something listening on ``self.port`` of 127.0.0.1: its page and WebSocket URLs."""

    port: int

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"


class ChildProcess:
    """A command run as a child, its output in ``log_path``; ``start`` returns once
    ``ready()`` says so. Subclasses name the command (``argv``) and the sign."""

    what = "process"
    #: the head of a process group of its own, as a command typed in a terminal is
    #: (Ctrl-C there signals the whole group); else in this process's group
    own_group = False

    def __init__(self, log_path: Path, env: dict[str, str] | None = None) -> None:
        self.log_path = log_path
        self.env = env or {}
        self.process: subprocess.Popen[bytes] | None = None

    def argv(self) -> list[str]:
        raise NotImplementedError

    def ready(self) -> bool:
        raise NotImplementedError

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def start(self, timeout_s: float = 20.0) -> Self:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                self.argv(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=self.own_group,
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.what} exited early:\n{self.log()}")
            if self.ready():
                return self
            time.sleep(0.05)  # waiting for another process: nothing to await
        self.stop()
        raise RuntimeError(f"{self.what} did not become ready:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:] if self.log_path.exists() else ""

    def rss_mb(self) -> float | None:
        """Resident memory of the process now, in MB (Linux /proc), or None."""
        return rss_mb(self.pid) if self.pid else None

    def stop(self, grace_s: float = 10.0) -> None:
        """SIGTERM, so a server tells its clients to reconnect and Redis flushes its
        AOF; SIGKILL if it is still there after ``grace_s``."""
        stop_all([self], grace_s)

    def kill(self) -> None:
        """SIGKILL: a crash, no shutdown code runs."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


class ServerProcess(LoopbackEndpoint, ChildProcess):
    """One real ``canfield-race serve`` process on a free loopback port."""

    what = "server"

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
        self.port = port or free_port()
        super().__init__(data_dir / f"server-{self.port}.log", env)

    #: the ``canfield-race`` subcommand
    command = "serve"

    def argv(self) -> list[str]:
        return [
            *race_command(),
            self.command,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--redis-url",
            self.redis_url,
            *self.more_args(),
        ]

    def more_args(self) -> list[str]:
        return ["--data-dir", str(self.data_dir), *self.extra_args]

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(self.http_url + "/healthz", timeout=1) as resp:
                return bool(resp.status == 200)
        except OSError:
            return False

    def restart(self) -> Self:
        self.kill()
        return self.start()


class BaselineProcess(ServerProcess):
    """The bare baseline endpoint (``canfield-race baseline``) as a process."""

    what = "baseline"
    command = "baseline"

    def more_args(self) -> list[str]:
        return []


class RedisProcess(ChildProcess):
    """``canfield-race redis``: the bundled redis-server, data in ``data_dir``.

    Ready once the command prints its URL (the unix socket unless ``port``
    is given); ``server_pid`` is then the redis-server it runs, whose CPU
    time the bench reports.
    """

    what = "redis"

    def __init__(
        self,
        data_dir: Path,
        *,
        port: int | None = None,
        appendfsync: str = "always",
        env: dict[str, str] | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.port = port
        self.appendfsync = appendfsync
        self.url: str | None = None
        self.server_pid: int | None = None
        super().__init__(data_dir.parent / f"{data_dir.name}-command.log", env)

    def argv(self) -> list[str]:
        port = ["--port", str(self.port)] if self.port else []
        return [
            *race_command(),
            "redis",
            "--data-dir",
            str(self.data_dir),
            "--appendfsync",
            self.appendfsync,
            *port,
        ]

    def ready(self) -> bool:
        for line in self.log().splitlines():
            if line.startswith(("redis://", "unix://")):
                self.url = line.strip()
                self.server_pid = _child_pid(self.pid) if self.pid else None
                return True
        return False


def stop_all(children: Sequence[ChildProcess], grace_s: float = 10.0) -> None:
    """``ChildProcess.stop`` for many at once: every one is told (SIGTERM) before
    any is waited for, so they shut down side by side, not one after another."""
    told = [c for c in children if c.process is not None and c.process.poll() is None]
    for child in told:
        assert child.process is not None
        child.process.terminate()
    deadline = time.monotonic() + grace_s
    for child in told:
        assert child.process is not None
        try:
            child.process.wait(max(deadline - time.monotonic(), 0.0))
        except subprocess.TimeoutExpired:
            child.kill()


def _child_pid(pid: int) -> int | None:
    """The first child of a process (Linux /proc), or None."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            found = children.read().split()
    except OSError:
        return None
    return int(found[0]) if found else None


@contextlib.contextmanager
def local_servers(
    count: int, env: dict[str, str], appendfsync: str = "always", prefix: str = "canfield-"
) -> Iterator[tuple[RedisProcess, list[ServerProcess]]]:
    """A redis-server and ``count`` servers on it, in a temporary folder; all
    stopped on the way out (the servers first)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        root = Path(tmp)
        redis = RedisProcess(root / "redis", appendfsync=appendfsync).start()
        started: list[ServerProcess] = []
        try:
            assert redis.url is not None  # ready means the URL was printed
            for i in range(count):
                started.append(ServerProcess(redis.url, root / f"srv{i}", env=env).start())
            yield redis, started
        finally:
            stop_all(started)
            redis.stop()


class DelayProxy(LoopbackEndpoint, ChildProcess):
    """``delay_proxy``: a loopback TCP proxy to ``target`` (a port) adding
    ``rtt_ms`` to every round trip, as a process of its own."""

    what = "delay proxy"

    def __init__(self, target: int, rtt_ms: float, log_dir: Path) -> None:
        self.target = target
        self.rtt_ms = rtt_ms
        self.port = 0
        log = log_dir / f"delay-{target}-{rtt_ms:g}.log"
        log.unlink(missing_ok=True)  # its port is read from this run's first line
        super().__init__(log)

    def argv(self) -> list[str]:
        return [
            *(sys.executable, "-m", "canfield_bench.delay_proxy"),
            *("--target", str(self.target), "--rtt-ms", str(self.rtt_ms)),
        ]

    def ready(self) -> bool:
        for line in self.log().splitlines():
            if line.startswith("listening on "):
                self.port = int(line.split()[-1])
                return True
        return False


@contextlib.contextmanager
def cpu_hog() -> Iterator[int]:
    """Other work on the box (``bench --contend``): one process spinning on the
    CPU, as much as one core gives it, until the block ends; yields its pid."""
    hog = subprocess.Popen(
        [sys.executable, "-c", "while True: pass"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield hog.pid
    finally:
        hog.kill()
        hog.wait(10)
