"""A provider's limit, switched on by a test: the fake then answers the agent's turns with
its provider's real "not now" answer (a 429, an overload, a spent usage window) instead
of the script, for the first N turn requests or from the K-th on, saying the limit
lifts at ``resets_at``. A refused request does not advance the script: the model never
answered it.

Each fake writes the answers in its own provider's words (``kinds``); this module only
decides which requests are refused and keeps the reset time.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

__all__ = ["Limit", "LimitWindow"]


@dataclass(frozen=True)
class Limit:
    """One refusal to write: which answer, and when its limit lifts (epoch seconds)."""

    kind: str
    resets_at: float

    @property
    def seconds_left(self) -> float:
        return max(0.0, self.resets_at - time.time())


class LimitWindow:
    """Which turn requests a fake refuses. Off until ``limit`` is called."""

    def __init__(self, kinds: tuple[str, ...]) -> None:
        self.kinds = kinds
        self._lock = threading.Lock()
        self._kind = ""
        self._resets_at = 0.0
        self._first: int | None = None
        self._start = 0
        self._seen = 0
        self._lifts = False
        self._seconds = 0.0
        self._spent = False
        #: How many turn requests were refused.
        self.refused = 0

    def limit(
        self,
        kind: str,
        *,
        seconds: float = 30.0,
        first: int | None = None,
        start: int = 0,
        lifts: bool = False,
    ) -> float:
        """Refuse turn requests with ``kind`` (one of ``kinds``): the ``first`` N from now
        (None: all of them), or every one from the ``start``-th (0-based) from now. The
        limit lifts ``seconds`` from now: the answers say so; with ``lifts`` it does
        (a usage window reopens at its reset), ``seconds`` after the first request it
        refuses (whenever the agent gets to ask), else it stays until ``lift``. Returns
        that time (with ``lifts``, as it stands before the first refusal)."""
        if kind not in self.kinds:
            raise ValueError(f"unknown limit {kind!r}; this fake knows {', '.join(self.kinds)}")
        with self._lock:
            self._kind = kind
            self._resets_at = time.time() + seconds
            self._first, self._start, self._seen = first, start, 0
            self._lifts, self._seconds, self._spent = lifts, seconds, False
            return self._resets_at

    @property
    def resets_at(self) -> float:
        with self._lock:
            return self._resets_at

    def lift(self) -> None:
        """Answer every request again."""
        with self._lock:
            self._kind = ""

    def check(self) -> Limit | None:
        """For one turn request: the limit to answer it with, or None to answer it."""
        with self._lock:
            if not self._kind:
                return None
            if self._lifts and not self._spent:  # the request that spends the window
                self._resets_at = time.time() + self._seconds
            if self._lifts and time.time() >= self._resets_at:
                return None
            number = self._seen
            self._seen += 1
            refused = number < self._first if self._first is not None else number >= self._start
            if not refused:
                return None
            self.refused += 1
            self._spent = True
            return Limit(self._kind, self._resets_at)
