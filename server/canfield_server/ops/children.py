"""Child processes: stopping them one way, and making them die with their parent.

``stop`` asks politely (SIGTERM, so redis flushes its AOF and a server
tells its clients to reconnect) and insists after a grace period;
``kill`` is the crash that fault tests inject.

``die_with_parent`` runs in a child (a ``preexec_fn``, a worker's
initializer): on Linux the kernel then sends the child a signal when its
parent goes, even by SIGKILL, so no helper process (redis-server, solver
worker) outlives the server that started it. Elsewhere it does nothing.

``deaf_to_ctrl_c`` wraps the start of children that must not die of the
Ctrl-C a terminal sends its whole foreground group: the server stops them
itself, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import BrokenExecutor, Executor
from functools import partial

log = logging.getLogger(__name__)

__all__ = [
    "stop",
    "kill",
    "die_with_parent",
    "dies_with_this_process",
    "deaf_to_ctrl_c",
    "start_pool",
]

#: prctl(2) option: the signal the kernel sends this process when its parent dies
PR_SET_PDEATHSIG = 1


def _load_prctl() -> Callable[..., int] | None:
    """libc's ``prctl``, looked up now, in the parent: a forked child then only
    calls it (loading a library between fork and exec could deadlock)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return prctl


_prctl = _load_prctl()


def die_with_parent(sig: int, parent_pid: int) -> None:
    """In a child: have the kernel send ``sig`` when the parent dies (Linux).

    The parent may have died before this call (the child would then never
    get the signal: it was re-parented already), so the parent pid is
    checked afterwards and the child exits at once if it is not
    ``parent_pid`` any more. Linux counts the *thread* that forked the
    child as its parent: a child forked by a thread that ends gets ``sig``
    then, so fork from threads that live as long as the child should.
    """
    if _prctl is None:
        return
    if _prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) != 0:
        return  # refused (a sandbox): the child lives on as before
    if os.getppid() != parent_pid:
        os._exit(1)


def dies_with_this_process(sig: int) -> Callable[[], None]:
    """A ``preexec_fn`` for ``subprocess.Popen``: the child gets ``sig`` when
    this process (the thread starting the child) dies."""
    return partial(die_with_parent, sig, os.getpid())


@contextlib.contextmanager
def deaf_to_ctrl_c() -> Iterator[None]:
    """Children started inside ignore SIGINT from their first instruction: an
    ignored signal stays ignored across exec, and Python then installs no
    handler of its own. (A handler set later, in the child, would come too
    late for a Ctrl-C during its start.) Signals can only be set from the main
    thread; elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


async def start_pool(executor: Executor, workers: int) -> None:
    """Start a process pool's ``workers`` now (a job each), from a server's
    start-up, before it listens. A worker starts inside ``deaf_to_ctrl_c``,
    which ignores SIGINT here until the child has read its start-up data
    (seconds on a busy machine): a Ctrl-C at a running server in that window
    was lost, and the server ran on. Only a worker restarted later reopens it."""
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
