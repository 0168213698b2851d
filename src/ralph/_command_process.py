"""How the ``ralph`` command's process collects garbage and ends: tuned for a command that
does its work in a fraction of a second, and still right for one that runs for days.

Collecting: on its way up a command makes some half a million objects (modules, classes,
Typer's and Rich's), and Python's default runs a collection on every 700 new ones, each
full collection walking all the objects made before it: some 4 % of ``ralph status``. A
threshold of 10,000 leaves a handful; ``ralph serve`` and ``ralph worker`` still collect,
with at most that many young objects waiting.

Ending: Python's teardown frees every one of those objects, one by one, for a process
about to end: some 8 % of a short command. Once the command has returned and no other
thread runs, the exit functions run as they would (logs flushed, temporary folders
removed), stdout and stderr are flushed, and the process ends there (``os._exit``).
Anything else (another thread still running, a stream that cannot be flushed, an error,
a profiler or tracer such as ``python -m cProfile``, coverage or a debugger, which
write their results as Python ends) takes Python's own way out, unchanged.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import threading
from collections.abc import Callable
from typing import NoReturn

__all__ = ["GEN0_THRESHOLD", "collect_less", "run_then_end"]

#: New container objects between two young collections (Python's default is 700).
GEN0_THRESHOLD = 10_000


def collect_less() -> None:
    """Raise this process's young-collection threshold to ``GEN0_THRESHOLD``."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GEN0_THRESHOLD, middle, old)


def run_then_end(command: Callable[[], object]) -> NoReturn:
    """Run ``command`` and end the process with its exit status, skipping the teardown
    when that is safe; never returns."""
    try:
        command()
    except SystemExit as exc:
        status = exc.code
    else:
        status = None
    code = _exit_code(status)
    if code is not None and _alone_and_unwatched() and _flushed():
        atexit._run_exitfuncs()
        if _flushed():
            os._exit(code)
    sys.exit(status)


def _alone_and_unwatched() -> bool:
    """No other thread to wait for, and no profiler or tracer to write its results."""
    unwatched = sys.getprofile() is None and sys.gettrace() is None
    return unwatched and threading.active_count() == 1


def _exit_code(status: object) -> int | None:
    """The code Python would exit with for ``sys.exit(status)``; None for a message,
    which Python prints on its way out, or a number past a C long's, which it refuses."""
    if status is None:
        return 0
    if isinstance(status, int) and -(2**63) <= status < 2**63:
        return status & 0xFF
    return None


def _flushed() -> bool:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # closed, or none: Python reports it
        return False
    return True
