"""Pacing requests by the budgets Linear reports on every answer.

Linear limits each API key by two leaky buckets (its rate-limiting documentation):
requests (5,000 an hour for an API key) and complexity points (250,000 an hour), each
refilled at a constant rate, and says where both stand in ``X-RateLimit-Requests-*`` and
``X-RateLimit-Complexity-*`` (limit, remaining, reset) with the request's own cost in
``X-Complexity``. While more than half of a budget is left, requests go as fast as they
come (a step's reads are a burst, and a bucket is there to take one). Below half, each
request waits what the bucket takes to refill what it costs (``cost * period / limit``:
0.72 s a request at 5,000 an hour), so a steady client holds its level and never runs
dry; one that cannot afford a request waits for the shortfall to refill too. After a
RATELIMITED answer every request waits for the reset. Every wait is bounded
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

__all__ = ["HOUR", "Budget", "LinearPacer", "LinearPacingPolicy", "refill_interval"]

logger = logging.getLogger(__name__)

#: Linear's budgets are by the hour, refilled continuously.
HOUR = 3600.0


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


def refill_interval(limit: float, remaining: float, cost: float, period: float = HOUR) -> float:
    """Seconds to leave before a request costing ``cost`` from a bucket of ``limit`` a
    ``period`` with ``remaining`` left: none above half the bucket; below, the time the
    bucket takes to refill ``cost``, and any shortfall besides when ``remaining`` does
    not cover it."""
    if limit <= 0 or remaining > limit / 2:
        return 0.0
    per_unit = period / limit
    return (cost + max(cost - remaining, 0.0)) * per_unit


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
                waits.append(refill_interval(b.limit, self._level(b, now), 1.0))
            if self.complexity is not None:
                b = self.complexity
                cost = self.costs.get(operation, 1.0)
                waits.append(refill_interval(b.limit, self._level(b, now), cost))
        return min(max(waits), self.policy.max_wait)

    @staticmethod
    def _level(budget: Budget, now: float) -> float:
        """What is left now: as last reported, refilled since at the bucket's rate (a
        leaky bucket's reset is when it is full again, so what it still misses is the
        time to the reset at that rate)."""
        refilled_by_reset = budget.limit - max(budget.reset_at - now, 0.0) * budget.limit / HOUR
        return max(budget.remaining, min(refilled_by_reset, budget.limit))

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
