"""The ``ralph`` command, killed by SIGKILL (what ``kill -9`` sends) at a chosen point:
a deterministic crash for recovery tests, with nothing of it in Ralph itself.

    python crashing_ralph.py WHERE ralph-args...

WHERE is ``agent:PHASE`` (the process dies while that phase's agent works, after the
phase took its issues) or ``after:OBJECT.ATTRIBUTE[:N]`` (it dies right after the Nth
call of that function returns: the write happened, nothing after it did), e.g.
``after:ralph.tracker.local._pulls.LocalCodeHost.create_pull_request``.
"""

from __future__ import annotations

import functools
import importlib
import os
import signal
import sys
from typing import Any


def _die() -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def _owner(dotted: str) -> tuple[Any, str]:
    """The object holding the attribute ``dotted`` names (a module or a class in one)."""
    path, _, attribute = dotted.rpartition(".")
    parts = path.split(".")
    for split in range(len(parts), 0, -1):
        try:
            owner: Any = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        for name in parts[split:]:
            owner = getattr(owner, name)
        return owner, attribute
    raise SystemExit(f"crashing_ralph: cannot find {dotted}")


def _after(dotted: str, nth: int) -> None:
    owner, attribute = _owner(dotted)
    original = getattr(owner, attribute)
    calls = [0]

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        calls[0] += 1
        if calls[0] == nth:
            _die()
        return result

    setattr(owner, attribute, wrapper)


def _during_agent(phase: str) -> None:
    from ralph.runtimes.scripted import ScriptedRuntime

    original = ScriptedRuntime.run

    def run(self: ScriptedRuntime, brief: Any) -> Any:
        if brief.phase == phase:
            _die()
        return original(self, brief)

    ScriptedRuntime.run = run  # type: ignore[method-assign]


def main() -> None:
    where, *args = sys.argv[1:]
    kind, _, spec = where.partition(":")
    if kind == "agent":
        _during_agent(spec)
    elif kind == "after":
        dotted, _, nth = spec.partition(":")
        _after(dotted, int(nth or 1))
    else:
        raise SystemExit(f"crashing_ralph: bad crash point {where!r}")
    from ralph.cli import main as ralph

    ralph(args)


if __name__ == "__main__":
    main()
