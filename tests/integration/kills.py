"""Killing a ``ralph`` process at the moment a faked service has carried out a write and
the process has not heard back: the crash a kill sweep reruns from."""

from __future__ import annotations

import os
import re
import signal
import threading
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["kill_after"]


class Posted(Protocol):
    """A fake whose every request goes through ``post`` (FakeGitHub, FakeLinear)."""

    def post(self, payload: Any, token: str) -> Any: ...


def kill_after(fake: Posted, nth: int) -> Callable[[int], None]:
    """The Nth mutation the service carries out from the first ``CreateIssue`` on (that
    one is the first) kills the process whose pid the returned function is given, before
    the process hears the service's answer."""
    post = fake.post
    seen: list[str] = []
    victim: list[int] = []
    armed = threading.Event()

    def posting(payload: Any, token: str) -> Any:
        reply = post(payload, token)
        found = re.search(r"mutation (\w+)", str(payload.get("query", "")))
        if found and (seen or found.group(1) == "CreateIssue"):
            seen.append(found.group(1))
            if len(seen) == nth and armed.wait(30):
                os.kill(victim[0], signal.SIGKILL)
        return reply

    fake.post = posting  # type: ignore[method-assign]

    def arm(pid: int) -> None:
        victim.append(pid)
        armed.set()

    return arm
