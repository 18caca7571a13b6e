"""Dying with the parent: the one call a child makes so no helper outlives its server.

On Linux the kernel sends the child a signal when its parent goes, even
by SIGKILL (prctl ``PR_SET_PDEATHSIG``); elsewhere it does nothing. A
module of its own, with nothing but the standard library's ``ctypes``
behind it, as a solver worker imports it at its start (``solving.worker``):
every import there is paid again by each worker a server starts.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable

__all__ = ["die_with_parent"]

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
