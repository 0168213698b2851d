"""Keeping a running task's agent activity in the store, so every process sees it: the
feed's latest snapshot is written when it changed, at most once every ``every`` seconds
(a chatty agent costs one write per interval, a quiet one none): the first change after
a quiet interval at once (with what follows it within a fifth of a second), later ones
when the interval is up, and the end of an agent run at once whatever the interval. A
write refused because the task is no longer this worker's ends it, not an error."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from ralph.errors import LeaseLost
from ralph.runtimes import ActivityFeed
from ralph.tasks import Claim, TaskStore

__all__ = ["ACTIVITY_EVERY_SECONDS", "recording_activity"]

logger = logging.getLogger(__name__)

#: The shortest time between two activity writes of one task.
ACTIVITY_EVERY_SECONDS = 2.0
#: How long the first change after a quiet interval waits for the ones right behind it.
_GATHER_SECONDS = 0.2
#: How long a finished task waits for the recorder's last store call to return.
_GRACE_SECONDS = 5.0


class _Recorder:
    def __init__(self, store: TaskStore, claim: Claim, feed: ActivityFeed, every: float) -> None:
        self.store = store
        self.claim = claim
        self.feed = feed
        self.every = every
        self.written = feed.version
        #: ``time.monotonic()`` of the last write (none yet: long ago).
        self.written_at = -every
        self.lost = False
        self.lock = threading.Lock()
        #: Set when a change is due to be written now.
        self.kick = threading.Event()

    def on_change(self) -> None:
        """From the runtime's thread. An ended agent run is written at once, so its
        final figures are on the task before the phase validates and completes it. The
        first change after a quiet interval wakes the writer (an agent's start shows at
        once); the runtime's stream never waits for a write but the last."""
        activity = self.feed.snapshot()
        if activity.ended:
            with self.lock:
                self._write()
        elif not activity.empty and self.due():
            self.kick.set()

    def due(self) -> bool:
        return time.monotonic() - self.written_at >= self.every

    def write_if_due(self) -> None:
        if self.due() and not self.feed.snapshot().empty:
            with self.lock:
                self._write()

    def _write(self) -> None:
        """Write the snapshot if it moved since the last write (the lock held)."""
        version = self.feed.version
        if self.lost or version == self.written:
            return
        activity = self.feed.snapshot()
        try:
            self.store.record_activity(self.claim, activity.to_dict(), activity.summary())
        except LeaseLost:
            self.lost = True  # finished, canceled or taken over: nothing more to keep
            return
        except Exception:  # a store hiccup: the next interval tries again
            logger.warning(
                "could not keep the agent's activity",
                exc_info=True,
                extra={"task": self.claim.task_id},
            )
            return
        finally:
            self.written_at = time.monotonic()
        self.written = version


@contextmanager
def recording_activity(
    store: TaskStore, claim: Claim, feed: ActivityFeed, every: float = ACTIVITY_EVERY_SECONDS
) -> Iterator[None]:
    """While the block runs, keep ``feed``'s activity on ``claim``'s task."""
    recorder = _Recorder(store, claim, feed, every)
    feed.listen(recorder.on_change)
    done = threading.Event()

    def record() -> None:
        # Looks four times an interval, so what changed after a write goes out within
        # an interval and a quarter of it, and never sooner than an interval after; a
        # change after a quiet interval at once, with what follows it right behind (a
        # message's text and its tool call) gathered into the same write.
        while not done.is_set():
            if recorder.kick.wait(every / 4):
                recorder.kick.clear()
                if done.wait(_GATHER_SECONDS):
                    return
            recorder.write_if_due()

    thread = threading.Thread(target=record, name=f"activity-{claim.task_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        recorder.kick.set()  # the writer sleeps on it
        thread.join(every + _GRACE_SECONDS)
