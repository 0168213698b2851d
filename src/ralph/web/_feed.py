"""The live feed behind every open page: one thread per app watches the store and the
board and hands what changed to each subscriber (an SSE stream).

On SQLite and PostgreSQL the thread sleeps on the database's change signal (the store's
own wake-up: ``data_version`` on SQLite, LISTEN/NOTIFY with polling on PostgreSQL), so a
task's start or end reaches the page within a poll of the commit. A state move on the
local tracker is a commit to the same database and wakes it the same way; a GitHub
board is read every ``poll_seconds``. Every wait is bounded, each subscriber's queue
too (a page that stops reading is told to reload instead of holding events), and
``stop()`` ends every stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from ralph.db import Database
from ralph.errors import RalphError
from ralph.tasks import RunStatus, TaskStore

__all__ = ["FEED_QUEUE_SIZE", "Feed", "FeedMessage", "Subscription"]

logger = logging.getLogger(__name__)

#: Messages a subscriber may fall behind by before it is told to reload instead.
FEED_QUEUE_SIZE = 256
#: Longest sleep on the database's change signal: how soon ``stop()`` is noticed.
_WAIT_SECONDS = 0.5
#: The board is read again at most this often while the database keeps changing
#: (heartbeats commit too): reading a board of 1,000 issues costs some 50 ms, so this
#: bounds the feed's cost during a run, and a card still moves within a second.
_BOARD_EVERY_SECONDS = 0.5


@dataclass(frozen=True)
class FeedMessage:
    """One SSE message: its event name and JSON data. ``None`` ends a stream."""

    event: str
    data: dict[str, Any] = field(default_factory=dict)


class Subscription:
    """One page's queue of messages, filled from the feed's thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[FeedMessage | None] = asyncio.Queue(FEED_QUEUE_SIZE)

    def offer(self, message: FeedMessage | None) -> None:
        """From any thread: queue ``message``; a full queue is emptied and told to
        reload (its page missed something), so a stalled reader holds bounded memory."""

        def put() -> None:
            if self.queue.full():
                while not self.queue.empty():
                    self.queue.get_nowait()
                self.queue.put_nowait(FeedMessage("reload", {}))
            if message is None or not self.queue.full():
                with contextlib.suppress(asyncio.QueueFull):
                    self.queue.put_nowait(message)

        with contextlib.suppress(RuntimeError):  # its loop is closed: nobody reads it
            self.loop.call_soon_threadsafe(put)

    async def next(self, timeout: float) -> FeedMessage | bool | None:
        """The next message, None when the feed stopped, False after ``timeout``
        seconds without one."""
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        except TimeoutError:
            return False


class Feed:
    """Watches ``store`` (and, through ``board``, the tracker) from one thread.

    ``board`` returns something comparable that changes when a card should move (a
    fingerprint of the board); ``poll_seconds`` is how often it is read when the
    database does not signal board changes (a GitHub board), None when it does.
    """

    def __init__(
        self,
        store: TaskStore,
        db: Database,
        board: Callable[[], Hashable],
        *,
        poll_seconds: float | None = None,
    ) -> None:
        self._store = store
        self._db = db
        self._board = board
        self._poll_seconds = poll_seconds
        self._subscribers: set[Subscription] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        #: Run id -> the last event of it already published.
        self._cursors: dict[int, int] = {}
        self._finished: set[int] = set()
        self._board_seen: Hashable = None
        self._board_read_at = 0.0
        self._board_due = False
        self._published = 0

    # -- subscribers ----------------------------------------------------------------------

    def subscribe(self, loop: asyncio.AbstractEventLoop) -> Subscription:
        subscription = Subscription(loop)
        with self._lock:
            if self._stop.is_set():
                subscription.offer(None)
            self._subscribers.add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            self._subscribers.discard(subscription)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subscribers)

    @property
    def published(self) -> int:
        """Messages published since the start (for tests and the benchmark)."""
        return self._published

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def publish(self, message: FeedMessage) -> None:
        with self._lock:
            targets = list(self._subscribers)
            self._published += 1
        for subscription in targets:
            subscription.offer(message)

    # -- the thread -----------------------------------------------------------------------

    def start(self) -> None:
        self._catch_up(publish=False)
        self._board_seen = self._read_board()
        self._thread = threading.Thread(target=self._watch, name="ralph-web-feed", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """End every stream and the thread (waiting up to ``timeout`` seconds for it)."""
        self._stop.set()
        with self._lock:
            targets = list(self._subscribers)
        for subscription in targets:
            subscription.offer(None)
        if self._thread is not None:
            self._thread.join(timeout)

    def _watch(self) -> None:
        seen = self._db.wait_for_change(0, 0.0)
        next_poll = time.monotonic() + (self._poll_seconds or 0.0)
        while not self._stop.is_set():
            try:
                now_seen = self._db.wait_for_change(seen, _WAIT_SECONDS)
                changed = now_seen != seen
                seen = now_seen
                if changed:
                    self._catch_up(publish=True)
                    self._board_due = self._board_due or self._poll_seconds is None
                if self._poll_seconds is not None and time.monotonic() >= next_poll:
                    next_poll = time.monotonic() + self._poll_seconds
                    self._board_due = True
                if self._board_due and time.monotonic() - self._board_read_at >= (
                    _BOARD_EVERY_SECONDS
                ):
                    self._board_due = False
                    board = self._read_board()
                    if board is not None and board != self._board_seen:
                        self._board_seen = board
                        self.publish(FeedMessage("board", {}))
            except RalphError as exc:  # a store or board that does not answer: try again
                logger.warning(
                    "the live feed could not read the store or board",
                    extra={"action": "feed_error", "error": str(exc)},
                )
                self._stop.wait(1.0)
            except Exception:
                # A read still under way when the app stopped (a paced request outwaits
                # ``stop``'s join) meets a closed project: the feed was ending anyway.
                if self._stop.is_set():
                    return
                raise

    def _read_board(self) -> Hashable:
        self._board_read_at = time.monotonic()
        try:
            return self._board()
        except RalphError as exc:
            logger.warning(
                "the live feed could not read the board",
                extra={"action": "board_error", "error": str(exc)},
            )
            return None

    def _catch_up(self, *, publish: bool) -> None:
        """Publish every store event since the last look, run by run (event ids are in
        commit order within a run, not across runs on PostgreSQL)."""
        for run in self._store.list_runs():
            if run.id in self._finished:
                continue
            events = self._store.events(run.id, self._cursors.get(run.id, 0))
            if events:
                self._cursors[run.id] = events[-1].id
            if run.status is not RunStatus.ACTIVE and not events:
                self._finished.add(run.id)  # its last events are out: nothing more comes
            if not publish:
                continue
            for event in events:
                data = {
                    "run": run.id,
                    "event": event.id,
                    "kind": event.kind.value,
                    "task": event.task_id,
                    "at": event.at,
                }
                self.publish(FeedMessage("runs", data))
