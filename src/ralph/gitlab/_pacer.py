"""Pacing requests by the budget GitLab reports on its answers.

GitLab's rate limits are counted per user (or IP) in fixed windows, a minute on
GitLab.com (2,000 authenticated API requests a minute; a self-managed instance sets its
own), and answers carry ``RateLimit-Limit``, ``RateLimit-Remaining`` and
``RateLimit-Reset`` (epoch seconds when the window ends). While more than half of the
window's budget is left, requests go as they come; below half, the rest is spread over
what is left of the window (``(reset - now) / remaining``), so a steady client never
hits the wall. A 429 pauses every request for its ``Retry-After``. Every wait is
bounded, and the clock and the sleep are injected for tests.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["GitLabPacer", "GitLabPacingPolicy", "Window", "spacing"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class GitLabPacingPolicy:
    #: The longest spacing between two requests, whatever the headers say.
    max_wait: float = 30.0
    #: The longest pause after a 429 (GitLab's windows are a minute; some an hour).
    max_pause: float = 300.0


@dataclass(frozen=True)
class Window:
    """The window as the last answer reported it."""

    limit: float
    remaining: float
    #: Epoch seconds when the window ends and the budget is whole again.
    reset_at: float


def spacing(window: Window, now: float) -> float:
    """Seconds to leave before the next request: none above half the budget or once
    the window has ended; else what is left of the window shared by what is left of
    the budget (all of it when nothing is left)."""
    left = window.reset_at - now
    if left <= 0 or window.limit <= 0 or window.remaining > window.limit / 2:
        return 0.0
    return left / max(window.remaining, 1.0) if window.remaining >= 1 else left


def _window(headers: Mapping[str, str]) -> Window | None:
    try:
        return Window(
            float(headers["ratelimit-limit"]),
            float(headers["ratelimit-remaining"]),
            float(headers["ratelimit-reset"]),
        )
    except (KeyError, ValueError):
        return None


class GitLabPacer:
    """Shared by every request one client makes (one pacer per token)."""

    def __init__(
        self,
        policy: GitLabPacingPolicy | None = None,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.policy = policy or GitLabPacingPolicy()
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self.window: Window | None = None
        self._next_start = 0.0
        self._paused_until = 0.0

    def interval(self) -> float:
        with self._lock:
            window = self.window
        wait = spacing(window, self._clock()) if window is not None else 0.0
        return min(wait, self.policy.max_wait)

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Wait for the turn of one request, then hold it (claimed before the sleep, so
        concurrent requests queue one behind another)."""
        gap = self.interval()
        with self._lock:
            now = self._clock()
            start = max(now, self._next_start, self._paused_until)
            self._next_start = start + gap
        if start > now:
            self._sleep(start - now)
        yield

    def observe(self, headers: Mapping[str, str]) -> None:
        window = _window(headers)
        if window is not None:
            with self._lock:
                self.window = window

    def pause(self, seconds: float, why: str) -> float:
        """Hold every request ``seconds`` (bounded by ``max_pause``); the pause taken."""
        seconds = min(max(seconds, 0.0), self.policy.max_pause)
        with self._lock:
            until = self._clock() + seconds
            if until > self._paused_until:
                self._paused_until = until
                logger.info(
                    "gitlab rate limited; pausing", extra={"seconds": round(seconds, 1), "why": why}
                )
        return seconds
