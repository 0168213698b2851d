"""Keeping a running task's agent activity in the store, so every process sees it: a
background thread writes the feed's latest snapshot when it changed, at most once every
``every`` seconds (a chatty agent costs one write per interval, a quiet one none), and
once more, at once, when an agent run ends. A write refused because the task is no longer
this worker's is the end of it, not an error."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from ralph.errors import LeaseLost
from ralph.runtimes import ActivityFeed
from ralph.tasks import Claim, TaskStore

__all__ = ["ACTIVITY_EVERY_SECONDS", "recording_activity"]

logger = logging.getLogger(__name__)

#: The shortest time between two activity writes of one task.
ACTIVITY_EVERY_SECONDS = 2.0
#: How long a finished task waits for the recorder's last store call to return.
_GRACE_SECONDS = 5.0


class _Recorder:
    def __init__(self, store: TaskStore, claim: Claim, feed: ActivityFeed) -> None:
        self.store = store
        self.claim = claim
        self.feed = feed
        self.written = feed.version
        self.lost = False
        self.lock = threading.Lock()

    def on_change(self) -> None:
        # An ended agent run is written at once, from the runtime's thread, so its final
        # figures are on the task before the phase validates and completes it.
        if self.feed.snapshot().ended:
            self.write()

    def write(self) -> None:
        """Write the snapshot if it moved since the last write (one writer at a time)."""
        with self.lock:
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
            self.written = version


@contextmanager
def recording_activity(
    store: TaskStore, claim: Claim, feed: ActivityFeed, every: float = ACTIVITY_EVERY_SECONDS
) -> Iterator[None]:
    """While the block runs, keep ``feed``'s activity on ``claim``'s task."""
    recorder = _Recorder(store, claim, feed)
    feed.listen(recorder.on_change)
    done = threading.Event()

    def record() -> None:
        while not done.wait(every):
            recorder.write()

    thread = threading.Thread(target=record, name=f"activity-{claim.task_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(every + _GRACE_SECONDS)
