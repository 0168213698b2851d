"""Pacing requests by what Jira Cloud says on its answers.

Jira limits API-token traffic by bursts (per second, per endpoint and method) and, for
apps, by hourly points quotas; every answer may carry ``X-RateLimit-Limit``,
``X-RateLimit-Remaining`` and ``X-RateLimit-NearLimit: true`` (under a fifth of the
budget left), and a 429 carries ``Retry-After``. While far from a limit requests go as
they come; near it (``NearLimit``, or a remaining count under a fifth of the limit)
each request waits ``near_limit_spacing``; after a 429 every request waits out
``Retry-After``. Every wait is bounded, and the clock and the sleep are injected so the
arithmetic is tested on a fake clock.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["JiraPacer", "JiraPacingPolicy"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class JiraPacingPolicy:
    #: The spacing between requests while Jira says a limit is near.
    near_limit_spacing: float = 1.0
    #: The longest pause after a 429 (Jira's quotas are hourly).
    max_pause: float = 3600.0


class JiraPacer:
    """Shared by every request one client makes."""

    def __init__(
        self,
        policy: JiraPacingPolicy | None = None,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.policy = policy or JiraPacingPolicy()
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self.near_limit = False
        self.limit: float | None = None
        self.remaining: float | None = None
        self._next_start = 0.0
        self._paused_until = 0.0

    def interval(self) -> float:
        """The spacing the last answer asks for before one more request."""
        return self.policy.near_limit_spacing if self.near_limit else 0.0

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Wait for the turn of one request, then hold it (claimed before the sleep, so
        concurrent requests queue one behind another)."""
        spacing = self.interval()
        with self._lock:
            now = self._clock()
            start = max(now, self._next_start, self._paused_until)
            self._next_start = start + spacing
        if start > now:
            self._sleep(start - now)
        yield

    def observe(self, headers: Mapping[str, str]) -> None:
        """Read where the budget stands from an answer's headers."""
        near = headers.get("x-ratelimit-nearlimit", "").strip().lower() == "true"
        limit = _number(headers.get("x-ratelimit-limit"))
        remaining = _number(headers.get("x-ratelimit-remaining"))
        with self._lock:
            if limit is not None:
                self.limit = limit
            if remaining is not None:
                self.remaining = remaining
            low = (
                self.limit is not None
                and self.remaining is not None
                and self.remaining < self.limit / 5
            )
            self.near_limit = near or low

    def pause(self, seconds: float, why: str) -> float:
        """Hold every request ``seconds`` (bounded by ``max_pause``); the pause taken."""
        seconds = min(max(seconds, 0.0), self.policy.max_pause)
        with self._lock:
            until = self._clock() + seconds
            if until > self._paused_until:
                self._paused_until = until
                # A warning: a run may stand still for up to an hour.
                logger.warning(
                    "jira rate limited; pausing every request %.0f s",
                    seconds,
                    extra={"seconds": round(seconds, 1), "why": why},
                )
        return seconds


def _number(value: str | None) -> float | None:
    try:
        return float(value) if value and value.strip() else None
    except ValueError:
        return None
