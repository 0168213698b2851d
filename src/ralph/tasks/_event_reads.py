"""The run's events as the last waiter of this store read them, shared with the waiters
woken by the same change (``wait_for_events``).

A team's idle workers all wake at each event of their run and each read the same new
rows: on PostgreSQL a round trip apiece, each holding one of the pool's few
connections while busy workers wait for one (issue 49). A read is taken after its
reader saw the run's change count (which only grows between a database's opening and
closing); a waiter that saw that count or a lower one takes its events from the read
instead, provided the read began after the waiter's own previous look ended. Whatever
committed before the read began is in it, and whatever commits after moves the count
past the reader's, so past the waiter's too, and wakes it again. A change whose
notification was lost moves no count: a waiter's fallback polls still find it, as a
read it shares began after its previous poll ended (so by its second poll after the
change, the read it gets began after the change). A waiter's first look shares a read
that began after it started waiting.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ralph.tasks._model import Event

__all__ = ["SharedEventReads"]

#: Runs whose last read is kept at once: a long-lived process (``ralph serve``) sees
#: many runs, a team one.
_RUNS_KEPT = 8


@dataclass(frozen=True)
class _Read:
    seen: int  # the run's change count its reader saw before it began
    began: float  # time.monotonic() as it began
    cursor: int
    events: list[Event]


class _RunReads:
    def __init__(self) -> None:
        # Held while a read is taken: the run's waiters woken together wait for the
        # first one's read instead of each sending their own.
        self.lock = threading.Lock()
        self.last: _Read | None = None


class SharedEventReads:
    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._runs: dict[int, _RunReads] = {}

    def after(
        self,
        run_id: int,
        cursor: int,
        seen: int,
        previous_look: float,
        read: Callable[[int], list[Event]],
    ) -> list[Event]:
        """The run's events above ``cursor`` for a waiter that saw change count ``seen``
        and whose last look ended at ``previous_look`` (``time.monotonic()``; before
        its first, when it began to wait): from the last read, if it was taken at that
        count or a later one, from at or below ``cursor``, and began after that look;
        else ``read(cursor)``."""
        run = self._run(run_id)
        with run.lock:
            last = run.last
            if (
                last is not None
                and last.seen >= seen
                and last.began > previous_look
                and last.cursor <= cursor
            ):
                return [event for event in last.events if event.id > cursor]
            began = time.monotonic()
            found = read(cursor)
            run.last = _Read(seen, began, cursor, found)
            return found

    def _run(self, run_id: int) -> _RunReads:
        with self._guard:
            run = self._runs.get(run_id)
            if run is None:
                if len(self._runs) >= _RUNS_KEPT:
                    # A waiter holding a dropped one finishes with it; the next asks anew.
                    self._runs.clear()
                run = self._runs[run_id] = _RunReads()
            return run
