"""Pacing requests by the budgets Linear reports on every answer.

Linear limits each API key by two leaky buckets (its rate-limiting documentation):
requests (1,500 an hour for an API key) and complexity points (250,000 an hour), each
refilled at a constant rate, and says where both stand in ``X-RateLimit-Requests-*`` and
``X-RateLimit-Complexity-*`` (limit, remaining, reset) with the request's own cost in
``X-Complexity``. The pacer spreads what is left of each budget evenly over the time
until its reset: the next request may start ``reset_in * cost / remaining`` after the
last one. A full bucket allows a burst; as it drains the spacing grows, and it settles
at the refill rate when half the budget is left, so a steady client never runs dry.
After a RATELIMITED answer every request waits for the reset. Every wait is bounded
(``max_wait`` between requests, ``max_pause`` for a rate limit), and the clock and the
sleep are injected so the arithmetic is tested on a fake clock.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from ralph.linear._classify import epoch_seconds

__all__ = ["Budget", "LinearPacer", "LinearPacingPolicy", "even_interval"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class LinearPacingPolicy:
    #: The longest spacing between two requests, whatever the budgets say.
    max_wait: float = 60.0
    #: The longest pause after a RATELIMITED answer (Linear's window is an hour).
    max_pause: float = 3600.0


@dataclass
class Budget:
    """One of Linear's buckets as the last answer reported it."""

    limit: float
    remaining: float
    #: Epoch seconds when the bucket is full again.
    reset_at: float


def even_interval(remaining: float, reset_in: float, cost: float) -> float:
    """Seconds to leave before a request costing ``cost`` so that what is left lasts
    until the reset: the time to the reset shared out by cost. Nothing left: the whole
    time to the reset."""
    if reset_in <= 0:
        return 0.0
    if remaining <= 0:
        return reset_in
    return reset_in * min(cost / remaining, 1.0)


def _budget(headers: Mapping[str, str], name: str) -> Budget | None:
    try:
        limit = float(headers[f"x-ratelimit-{name}-limit"])
        remaining = float(headers[f"x-ratelimit-{name}-remaining"])
        reset_at = epoch_seconds(float(headers[f"x-ratelimit-{name}-reset"]))
    except (KeyError, ValueError):
        return None
    return Budget(limit, remaining, reset_at)


class LinearPacer:
    """Shared by every request one client makes (one pacer per API key)."""

    def __init__(
        self,
        policy: LinearPacingPolicy | None = None,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.policy = policy or LinearPacingPolicy()
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self.requests: Budget | None = None
        self.complexity: Budget | None = None
        #: The complexity Linear charged each operation last (``X-Complexity``).
        self.costs: dict[str, float] = {}
        self._next_start = 0.0
        self._paused_until = 0.0

    def interval(self, operation: str = "") -> float:
        """The spacing the budgets ask for before one more ``operation``."""
        now = self._clock()
        waits = [0.0]
        with self._lock:
            if self.requests is not None:
                b = self.requests
                waits.append(even_interval(b.remaining, b.reset_at - now, 1.0))
            if self.complexity is not None:
                b = self.complexity
                cost = self.costs.get(operation, 1.0)
                waits.append(even_interval(b.remaining, b.reset_at - now, cost))
        return min(max(waits), self.policy.max_wait)

    @contextmanager
    def slot(self, operation: str = "") -> Iterator[None]:
        """Wait for the turn of one request of ``operation``, then hold it (the turn is
        claimed before the sleep, so concurrent requests queue one behind another)."""
        spacing = self.interval(operation)
        with self._lock:
            now = self._clock()
            start = max(now, self._next_start, self._paused_until)
            self._next_start = start + spacing
        if start > now:
            self._sleep(start - now)
        yield

    def observe(self, headers: Mapping[str, str], operation: str = "") -> None:
        """Read the budgets and the request's cost from an answer's headers."""
        requests = _budget(headers, "requests")
        complexity = _budget(headers, "complexity")
        cost = headers.get("x-complexity", "").strip()
        with self._lock:
            if requests is not None:
                self.requests = requests
            if complexity is not None:
                self.complexity = complexity
            if cost.replace(".", "", 1).isdigit():
                self.costs[operation] = max(float(cost), 1.0)

    def pause(self, seconds: float, why: str) -> float:
        """Hold every request ``seconds`` (bounded by ``max_pause``); the pause taken."""
        seconds = min(max(seconds, 0.0), self.policy.max_pause)
        with self._lock:
            until = self._clock() + seconds
            if until > self._paused_until:
                self._paused_until = until
                logger.info(
                    "linear rate limited; pausing", extra={"seconds": round(seconds, 1), "why": why}
                )
        return seconds
