"""Who holds a claim or a lock: ``host:pid@start`` or ``host:pid@start/name`` (``start``:
the process's start time, so a pid the system gave to a later process is not taken for
the holder), and whether that holder is a process of this machine that no longer exists
(a crashed run, whose claims can be taken back at once instead of after their lease).
Holders written before the start time was kept (``host:pid``) are still understood."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Holder", "holder_is_gone", "process_owner"]


def _started(pid: int) -> str:
    """The process's start time in clock ticks since boot ("" where /proc is missing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return ""
    # Field 22; the command name (field 2) may hold spaces and parentheses.
    fields = stat.rpartition(")")[2].split()
    return fields[19] if len(fields) > 19 else ""


def _host() -> str:
    # socket.gethostname()'s answer on POSIX, without importing socket at every start.
    return os.uname().nodename


def process_owner(name: str = "") -> str:
    """This process as a holder name, ``host:pid@start`` (``host:pid@start/name`` for
    one of its workers)."""
    pid = os.getpid()
    started = _started(pid)
    base = f"{_host()}:{pid}" + (f"@{started}" if started else "")
    return f"{base}/{name}" if name else base


@dataclass(frozen=True)
class Holder:
    """A holder name taken apart (``pid`` None: not a process name Ralph wrote)."""

    host: str
    pid: int | None
    started: str
    name: str

    @classmethod
    def parse(cls, owner: str) -> Holder:
        base, _, name = owner.partition("/")
        host, _, process = base.rpartition(":")
        pid, _, started = process.partition("@")
        return cls(host, int(pid) if pid.isdigit() else None, started, name)

    @property
    def here(self) -> bool:
        return self.pid is not None and self.host == _host()


def holder_is_gone(owner: str) -> bool:
    """True only when ``owner`` names a process of this machine that is not running (or
    whose pid now belongs to a process started later). Holders on other machines, or
    named any other way, are never presumed dead."""
    holder = Holder.parse(owner)
    if not holder.here or holder.pid is None:
        return False
    try:
        os.kill(holder.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # another user's process: alive, but maybe not the holder (below)
    if not holder.started:
        return False
    now = _started(holder.pid)
    return bool(now) and now != holder.started
