"""The run's events as the last waiter of this store read them, shared with the waiters
woken by the same change or an earlier one (``wait_for_events``).

A team's idle workers all wake at each event of their run and each read the same new
rows: on PostgreSQL a round trip apiece, each holding one of the pool's few
connections while busy workers wait for one (issue 49). A read is taken after its
reader saw the database's change count (which only grows); a waiter that saw that count
or a lower one takes its events from the read instead. Whatever committed before the
read began is in it, and whatever commits after moves the count past the reader's, so
past the waiter's too, and wakes it again: nothing is missed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ralph.tasks._model import Event

__all__ = ["SharedEventReads"]

#: Runs whose last read is kept at once: a long-lived process (``ralph serve``) sees
#: many runs, a team one.
_RUNS_KEPT = 8


class SharedEventReads:
    def __init__(self) -> None:
        # Held while a read is taken: the waiters woken together wait for the first
        # one's read instead of each sending their own.
        self._lock = threading.Lock()
        #: Per run: the change count seen before the read, its cursor, what it found.
        self._kept: dict[int, tuple[int, int, list[Event]]] = {}

    def after(
        self, run_id: int, cursor: int, seen: int, read: Callable[[int], list[Event]]
    ) -> list[Event]:
        """The run's events above ``cursor`` for a waiter that saw change count ``seen``
        (of the run's topic): from the kept read, if it was taken at that count or a
        later one from at or below ``cursor``, else from ``read(cursor)``, kept for the
        next unless the kept one is later."""
        with self._lock:
            kept = self._kept.get(run_id)
            if kept is not None and kept[0] >= seen and kept[1] <= cursor:
                return [event for event in kept[2] if event.id > cursor]
            found = read(cursor)
            if run_id not in self._kept and len(self._kept) >= _RUNS_KEPT:
                self._kept.clear()
            if kept is None or seen >= kept[0]:
                self._kept[run_id] = (seen, cursor, found)
            return found
