"""Pacing requests the way GitHub asks clients to (its REST and GraphQL rate-limit documentation).

One mutation in flight and at least a second between mutation starts; a few concurrent
queries; a content-creation budget (80 a minute, 500 an hour); GitHub's secondary
points (2,000 a minute: 1 a query, 5 a mutation); and a pause for every request while a
rate limit lasts. The clock and the sleep are injected, so the waits
are tested with a fake clock.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from ralph.github._shared_pacing import SharedPacing

__all__ = ["Pacer", "PacingPolicy"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PacingPolicy:
    mutation_interval: float = 1.0
    concurrent_queries: int = 4
    content_per_minute: int = 80
    content_per_hour: int = 500
    #: GitHub's secondary limit on the GraphQL endpoint: 2,000 points a minute, a query
    #: costing 1 and a request with a mutation 5.
    points_per_minute: int = 2000


class Pacer:
    """Shared by every request one client makes (one process-wide pacer per token)."""

    def __init__(
        self,
        policy: PacingPolicy | None = None,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        shared: SharedPacing | None = None,
    ) -> None:
        """``shared``: the token's pacing across processes (its mutation spacing, content
        window and pauses); None: this process alone."""
        self.policy = policy or PacingPolicy()
        self.shared = shared
        self._clock = clock
        self._sleep = sleep
        self._mutations = threading.Lock()
        self._queries = threading.BoundedSemaphore(self.policy.concurrent_queries)
        self._state = threading.Lock()
        self._last_mutation_start: float | None = None
        self._created: deque[float] = deque()
        self._points: deque[tuple[float, int]] = deque()
        self._paused_until = 0.0
        self.remaining: int | None = None
        self.reset_at: float | None = None

    @contextmanager
    def slot(self, *, mutation: bool, creates: bool | int = False) -> Iterator[None]:
        """Hold a place to send one request; waits as long as the rules say. ``creates``:
        how many things the request creates (True: one)."""
        if not mutation:
            with self._queries:
                self._wait_pause()
                self._spend_points(1)
                yield
            return
        with self._mutations:
            self._wait_pause()
            self._spend_points(5)
            if self._last_mutation_start is not None:
                self._wait_until(self._last_mutation_start + self.policy.mutation_interval)
            if creates:
                made = int(creates)
                self._wait_for_content_budget(made)
                self._created.extend([self._clock()] * made)
            if self.shared is not None:
                self._take_shared_turn(int(creates))
            self._last_mutation_start = self._clock()
            yield

    def _take_shared_turn(self, made: int) -> None:
        """Wait until every process of this token leaves room: a mutation interval since
        the last one started anywhere, ``made`` more creations within the budget, no
        pause; then claim the turn (all under the shared file's lock, so no two
        processes claim the same moment)."""
        assert self.shared is not None
        windows = ((60.0, self.policy.content_per_minute), (3600.0, self.policy.content_per_hour))
        while True:
            with self.shared.locked() as state:
                now = self._clock()
                created = [float(t) for t in state.get("created", ()) if float(t) > now - 3600]
                until = float(state.get("paused_until", 0.0))
                last = state.get("last_mutation")
                if last is not None:
                    until = max(until, float(last) + self.policy.mutation_interval)
                for window, allowed in windows:
                    recent = [t for t in created if t > now - window]
                    if made and recent and len(recent) + made > allowed:
                        oldest = min(max(len(recent) + made - allowed - 1, 0), len(recent) - 1)
                        until = max(until, recent[oldest] + window)
                if until <= now:
                    state["last_mutation"] = now
                    state["created"] = created + [now] * made
                    return
            self._sleep(until - now)

    def pause_until(self, when: float, why: str) -> None:
        """Hold every request until ``when`` (a rate limit's reset or retry-after); with
        shared pacing, every process of the token holds its mutations too."""
        if self.shared is not None:
            with self.shared.locked() as state:
                state["paused_until"] = max(float(state.get("paused_until", 0.0)), when)
        with self._state:
            if when > self._paused_until:
                self._paused_until = when
                logger.info(
                    "github rate limited; pausing",
                    extra={"seconds": round(when - self._clock(), 1), "why": why},
                )

    def observe(self, headers: Mapping[str, str]) -> None:
        """Read ``x-ratelimit-*`` from a response; when the hour's points are gone, pause
        until the reset (plus a second, as octokit does)."""
        remaining = headers.get("x-ratelimit-remaining")
        reset = headers.get("x-ratelimit-reset")
        if remaining is None or not remaining.strip().lstrip("-").isdigit():
            return
        self.remaining = int(remaining)
        if reset and reset.strip().isdigit():
            self.reset_at = float(reset)
        if self.remaining <= 0 and self.reset_at is not None:
            self.pause_until(self.reset_at + 1, "primary rate limit used up")

    # -- waiting ------------------------------------------------------------------------------

    def _wait_pause(self) -> None:
        while True:
            with self._state:
                until = self._paused_until
            if not self._wait_until(until):
                return

    def _wait_until(self, when: float) -> bool:
        delay = when - self._clock()
        if delay <= 0:
            return False
        self._sleep(delay)
        return True

    def _spend_points(self, cost: int) -> None:
        """Wait until ``cost`` more secondary points fit in the last minute, then spend."""
        while True:
            with self._state:
                now = self._clock()
                while self._points and self._points[0][0] <= now - 60.0:
                    self._points.popleft()
                spent = sum(points for _, points in self._points)
                if spent + cost <= self.policy.points_per_minute or not self._points:
                    self._points.append((now, cost))
                    return
                until = self._points[0][0] + 60.0
            self._wait_until(until)

    def _wait_for_content_budget(self, made: int = 1) -> None:
        windows = ((60.0, self.policy.content_per_minute), (3600.0, self.policy.content_per_hour))
        while True:
            now = self._clock()
            while self._created and self._created[0] <= now - 3600.0:
                self._created.popleft()
            waits = []
            for window, allowed in windows:
                recent = [t for t in self._created if t > now - window]
                if recent and len(recent) + made > allowed:
                    # the oldest that must leave the window before ``made`` more fit
                    oldest = min(max(len(recent) + made - allowed - 1, 0), len(recent) - 1)
                    waits.append(recent[oldest] + window)
            if not waits:
                return
            logger.info("github content budget spent; waiting", extra={"until": max(waits)})
            self._wait_until(max(waits))
