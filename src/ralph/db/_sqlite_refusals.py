"""What SQLite's refusals mean for a person: a database another process keeps locked
(named, where Linux's ``/proc/locks`` says which), or a damaged file, each as one
line with what to do, instead of the driver's exception."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ralph.errors import StoreDamaged, StoreUnavailable, StoreUnreachable

__all__ = ["lock_holders", "refusal"]

#: Where Linux lists the file locks held on the machine.
_LOCKS = Path("/proc/locks")
#: How SQLite says the database file is not one it can read, or lacks a table or column
#: its migrations made (dropped by hand).
_DAMAGED = ("malformed", "file is not a database", "no such table", "no such column")


def refusal(error: sqlite3.Error, path: Path, waited: float) -> StoreUnavailable | None:
    """The error to raise instead of ``error``, when it is one a person can act on;
    None for the rest (a constraint, a bug), which stay as they are."""
    said = str(error)
    if isinstance(error, sqlite3.OperationalError) and "locked" in said:
        holders = ", ".join(f"pid {pid} ({name})" for pid, name in lock_holders(path))
        return StoreUnreachable(
            f"the database {path} is locked by {holders or 'another process'}, which did not "
            f"let go of it within {waited:g} s; let it finish or stop it, then run this again"
        )
    if any(sign in said.lower() for sign in _DAMAGED):
        return StoreDamaged(
            f"the database {path} is damaged ({said}): restore it from a backup, or move it "
            "aside and run `ralph db migrate` to start an empty one"
        )
    return None


def lock_holders(path: Path) -> list[tuple[int, str]]:
    """(pid, program) of the other processes holding a write lock on the database or its
    WAL index, as ``/proc/locks`` lists them; empty where that cannot be read."""
    inodes = set()
    for name in (path, path.with_name(f"{path.name}-shm")):
        try:
            found = name.stat()
        except OSError:
            continue
        inodes.add(f"{os.major(found.st_dev):02x}:{os.minor(found.st_dev):02x}:{found.st_ino}")
    try:
        lines = _LOCKS.read_text().splitlines()
    except OSError:
        return []
    pids: dict[int, str] = {}
    for line in lines:
        fields = line.split()
        # "1: POSIX  ADVISORY  WRITE 20163 fe:00:2157613 1073741826 1073742335"
        if len(fields) < 6 or fields[3] != "WRITE" or fields[5] not in inodes:
            continue
        pid = int(fields[4]) if fields[4].isdigit() else 0
        if pid and pid != os.getpid():
            pids[pid] = _program(pid)
    return sorted(pids.items())


def _program(pid: int) -> str:
    """The process's program name (never its arguments, which may hold secrets)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() or "?"
    except OSError:
        return "?"
