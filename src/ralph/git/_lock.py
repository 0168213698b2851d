"""Locks in the git directory that hold across threads and processes of this machine
(``flock`` on a file: one lock per open file, released by the kernel when its holder
dies), each waited for a bounded time."""

from __future__ import annotations

import fcntl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ralph.errors import GitError

__all__ = ["LOCK_WAIT_SECONDS", "file_lock"]

#: Longest wait for a lock. Holders do git work only (a checkout, a merge, a fetch);
#: one that holds it this long is stuck, and waiting on would hang the caller too.
LOCK_WAIT_SECONDS = 600.0
_POLL_SECONDS = 0.01


@contextmanager
def file_lock(
    path: Path, *, what: str, shared: bool = False, wait: float = LOCK_WAIT_SECONDS
) -> Iterator[None]:
    """Hold ``path`` exclusively (or ``shared`` with other shared holders) while the
    block runs; GitError naming ``what`` when it cannot be had within ``wait`` seconds."""
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    deadline = time.monotonic() + wait
    with path.open("a") as handle:
        while True:
            try:
                fcntl.flock(handle, mode | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise GitError(
                        f"could not {what}: another Ralph process has held {path.name} for "
                        f"{wait:g}s; if none is running, retry"
                    ) from None
                time.sleep(_POLL_SECONDS)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
