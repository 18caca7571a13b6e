"""Stopping child processes (redis-server, server processes, nginx) one way.

``stop`` asks politely (SIGTERM, so redis flushes its AOF and a server
tells its clients to reconnect) and insists after a grace period;
``kill`` is the crash that fault tests inject.
"""

from __future__ import annotations

import subprocess

__all__ = ["stop", "kill"]


def stop(process: subprocess.Popen | None, grace_s: float = 10.0) -> None:
    """SIGTERM, then SIGKILL if the process is still there after ``grace_s``."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


def kill(process: subprocess.Popen | None) -> None:
    """SIGKILL: a crash; no shutdown code of the process runs."""
    if process is not None and process.poll() is None:
        process.kill()
        process.wait(10)
