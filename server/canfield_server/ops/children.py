"""Child processes: stopping them one way, and making them die with their parent.

``stop`` asks politely (SIGTERM, so redis flushes its AOF and a server
tells its clients to reconnect) and insists after a grace period;
``kill`` is the crash that fault tests inject.

``die_with_parent`` runs in a child (a ``preexec_fn``, a worker's
initializer): on Linux the kernel then sends the child a signal when its
parent goes, even by SIGKILL, so no helper process (redis-server, solver
worker) outlives the server that started it. Elsewhere it does nothing.

``deaf_to_ctrl_c`` wraps the start of children that must not die of the
Ctrl-C a terminal sends its whole foreground group (the server stops them
itself, in order), without the server missing that Ctrl-C.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from concurrent.futures import BrokenExecutor, Executor
from functools import partial

from canfield_server.ops.parent_death import die_with_parent

log = logging.getLogger(__name__)

__all__ = [
    "stop",
    "kill",
    "die_with_parent",
    "dies_with_this_process",
    "deaf_to_ctrl_c",
    "start_pool",
]


def dies_with_this_process(sig: int) -> Callable[[], None]:
    """A ``preexec_fn`` for ``subprocess.Popen``: the child gets ``sig`` when
    this process (the thread starting the child) dies."""
    return partial(die_with_parent, sig, os.getpid())


@contextlib.contextmanager
def deaf_to_ctrl_c() -> Iterator[None]:
    """Children started inside cannot get SIGINT from their first instruction:
    it is blocked in the starting thread, and a child inherits that mask across
    fork and exec (a solver worker then ignores it: ``solving.worker``). Blocked,
    not ignored: a Ctrl-C meanwhile waits, or goes to another thread of this
    process, and the server still stops. It was ignored here once, and a Ctrl-C
    arriving while a job was handed to the workers (every job passes here) was
    lost: the server ran on (``multiprocessing``'s resource tracker guards its
    own start the same way)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


async def start_pool(executor: Executor, workers: int) -> None:
    """Start a process pool's ``workers`` now (a job each), from a server's
    start-up, before it listens, so the first jobs find them ready."""
    loop = asyncio.get_running_loop()
    with deaf_to_ctrl_c():
        started = [loop.run_in_executor(executor, os.getpid) for _ in range(workers)]
    try:
        async with asyncio.timeout(60):
            await asyncio.gather(*started)
    except (BrokenExecutor, TimeoutError, OSError) as exc:
        log.warning("workers not started ahead (%s); they start with the first job", exc)


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
