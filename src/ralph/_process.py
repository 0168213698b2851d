"""Who holds a claim or a lock: ``host:pid`` or ``host:pid/name``, and whether that
holder is a process of this machine that no longer exists (a crashed run, whose claims
can be taken back at once instead of after their lease)."""

from __future__ import annotations

import os
import socket

__all__ = ["holder_is_gone", "process_owner"]


def process_owner(name: str = "") -> str:
    """This process as a holder name, ``host:pid`` (``host:pid/name`` for one of its
    workers)."""
    base = f"{socket.gethostname()}:{os.getpid()}"
    return f"{base}/{name}" if name else base


def holder_is_gone(owner: str) -> bool:
    """True only when ``owner`` names a process of this machine that is not running.
    Holders on other machines, or named any other way, are never presumed dead."""
    host, _, pid = owner.partition("/")[0].rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
