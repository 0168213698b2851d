"""A request to stop one agent run from another thread: a person took the agent's issue
away (moved it to Canceled, Done or Human Needed, closed it, took it off the board), so
its work can no longer be used. Every runtime honours it within a fraction of a second:
the scripted agent gives up, an agent process is killed with its process group, Claude
Code's run is cancelled as its watchdog would; a brief waiting for an agent slot stops
waiting."""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["StopSignal"]


class StopSignal:
    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []
        #: Why the agent was stopped ("" until it is).
        self.reason = ""

    def stop(self, reason: str) -> None:
        """Ask the agent to stop; the first reason given stands."""
        with self._lock:
            if self._event.is_set():
                return
            self.reason = reason
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def on_stop(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (from the stopping thread) once stopped; at once if already."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        callback()

    @property
    def stopped(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float | None) -> bool:
        """Block until stopped or ``timeout`` seconds; True when stopped."""
        return self._event.wait(timeout)

    def __repr__(self) -> str:
        return f"StopSignal(stopped={self.stopped}, reason={self.reason!r})"
