"""Issue reads shared within one step of work (``Tracker.snapshot``), for the trackers
whose reads cost requests (GitHub, Linear).

A phase step reads the same few issues many times: the group's detection, its gates,
the compare-and-set read before a move, the live view. Inside a snapshot an issue is
read from the service once (its relatives with it, together) and kept; the tracker's
own writes keep the kept issues true (a move, a comment) or drop them (any other
write). A snapshot belongs to the thread that opened it, and ends before anything
outside this process may write (an agent's turn): what others change is read afresh.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from ralph.tracker._model import Issue

__all__ = ["IssueSnapshots"]


class _Kept:
    """One open snapshot: the issues read in it, by number."""

    def __init__(self, related: bool) -> None:
        self.issues: dict[int, Issue] = {}
        self.related = related


class IssueSnapshots:
    def __init__(self) -> None:
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: weakref.WeakSet[_Kept] = weakref.WeakSet()
        #: Each issue as this process last read or wrote it, in any thread (for display).
        self.latest: dict[int, Issue] = {}

    @contextmanager
    def scope(self, *, related: bool = True) -> Iterator[None]:
        """Keep issue reads until the outermost scope of this thread ends; ``related``:
        an issue read brings its relatives (a step's group), else only itself (one
        operation's reads of one issue)."""
        if getattr(self._local, "kept", None) is not None:
            yield
            return
        kept = _Kept(related)
        self._local.kept = kept
        with self._lock:
            self._open.add(kept)
        try:
            yield
        finally:
            self._local.kept = None
            with self._lock:
                self._open.discard(kept)

    @property
    def active(self) -> bool:
        return getattr(self._local, "kept", None) is not None

    @property
    def related(self) -> bool:
        """Whether this thread's snapshot reads an issue's relatives with it."""
        kept: _Kept | None = getattr(self._local, "kept", None)
        return kept is not None and kept.related

    def get(self, number: int) -> Issue | None:
        kept: _Kept | None = getattr(self._local, "kept", None)
        return None if kept is None else kept.issues.get(number)

    def missing(self, numbers: Iterable[int]) -> list[int]:
        """Of ``numbers``, those this thread's snapshot has not read (none outside one)."""
        kept: _Kept | None = getattr(self._local, "kept", None)
        if kept is None:
            return []
        return [n for n in dict.fromkeys(numbers) if n not in kept.issues]

    def keep(self, issue: Issue) -> None:
        kept: _Kept | None = getattr(self._local, "kept", None)
        if kept is not None:
            kept.issues[issue.number] = issue
        with self._lock:
            self.latest[issue.number] = issue

    def update(self, number: int, change: Callable[[Issue], Issue]) -> None:
        """Apply a write this tracker made to every snapshot that kept the issue."""
        with self._lock:
            for kept in list(self._open):
                if number in kept.issues:
                    kept.issues[number] = change(kept.issues[number])
            if number in self.latest:
                self.latest[number] = change(self.latest[number])

    def forget(self, numbers: Iterable[int] | None = None) -> None:
        """Drop ``numbers`` (None: everything) from every snapshot: a write whose effect
        on the kept issues is not known here is read again."""
        # A list, not the iterable as given: a generator would be spent on the first
        # snapshot and leave every other thread's holding the stale issue.
        dropped = None if numbers is None else list(numbers)
        with self._lock:
            for kept in list(self._open):
                if dropped is None:
                    kept.issues.clear()
                else:
                    for number in dropped:
                        kept.issues.pop(number, None)
