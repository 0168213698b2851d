"""``ralph serve``: ``ralph loop`` as a service. It reads the board every
``poll_seconds``, whenever a root ends and, on a tracker that can say so cheaply (the
local one), whenever the board changes, in this process or another (an issue filed with
``ralph issue new`` starts within a second). Each read first brings in what people did
outside Ralph (``phases.sync_board``). It starts the roots ``ralph loop`` would (same
order, same sessions: ``RootSessions``) as capacity frees, and holds a lease per root in
the store while it runs, so several processes on one store never run a root twice. Each
read is also the sessions' reconciliation: an agent whose issue a person took away is
stopped (``_reconcile``), and the board's upkeep: new issues routed by the project's
routing file, and the hygiene report every ``hygiene_interval`` hours (``_upkeep``).

It stops when ``interrupt`` says so, at once even while it idles between polls: the
first signal stops starting roots and lets the sessions finish their tasks in hand; the
second hands those tasks back (the sessions do that themselves). A tracker that cannot
be read is waited out, said once a minute; a root that keeps ending without finishing
(or with nothing to do, though the board showed work, or finished while the board shows
it where it was) waits longer each time, and after ``MAX_ROOT_FAILURES`` it is left for
a person. A root waiting for a person is not started at all (``pipeline.root_need``);
once a person moves it (the board's change wakes the service), it is work again and
starts afresh.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path

from ralph.errors import RalphError
from ralph.orchestrate._lead import Ending
from ralph.orchestrate._leases import RootLeases
from ralph.orchestrate._loop import RootRun, RootSessions
from ralph.orchestrate._options import Interrupt, SessionOptions
from ralph.orchestrate._serve_status import status_files, write_status
from ralph.orchestrate._upkeep import BoardUpkeep
from ralph.phases import sync_board
from ralph.pipeline import BoardQueue, QueuedRoot
from ralph.project import Project
from ralph.runtimes import AgentRuntime
from ralph.tracker import Tracker

__all__ = ["MAX_ROOT_FAILURES", "ServeResult", "serve"]

logger = logging.getLogger(__name__)

#: Sessions in a row that end without finishing before a root is left for a person.
MAX_ROOT_FAILURES = 3
#: The longest a failing root waits before it is tried again.
MAX_BACKOFF_SECONDS = 3600.0
#: How often an unreachable tracker is mentioned while it stays so.
NOTE_EVERY_SECONDS = 60.0
#: How often a stopping service looks at its sessions (they end on their own).
STOP_LOOK_SECONDS = 0.5
#: The least time between two reads of the board that changes on it call for: a busy
#: board (every phase comments and moves issues) is not read more often than this.
MIN_READ_GAP_SECONDS = 0.2
#: How long one wait of the board watcher lasts before it looks whether to stop.
WATCH_SECONDS = 1.0
#: Endings that say nothing bad of the root: it is done, or a person has it. Nothing to
#: do is not one: the board showed work, so starting it again at once would only find
#: nothing again (another process finished it: the next read no longer shows it).
_HEALTHY = frozenset(
    {Ending.FINISHED, Ending.WAITING_FOR_HUMAN, Ending.INTERRUPTED, Ending.CANCELED}
)


@dataclass
class ServeResult:
    runs: list[RootRun] = field(default_factory=list)
    #: Roots left for a person after failing ``MAX_ROOT_FAILURES`` times in a row.
    given_up: list[int] = field(default_factory=list)


@dataclass
class _Backoff:
    failures: int = 0
    until: float = 0.0
    #: Where the root stood when its last session started, if that session finished:
    #: the board showing it there again means the session moved nothing.
    finished_at: QueuedRoot | None = None


def serve(
    project: Project,
    runtime: AgentRuntime,
    options: SessionOptions,
    *,
    poll_seconds: float,
    status_file: Path | None = None,
    on_start: Callable[[QueuedRoot], None] | None = None,
    on_end: Callable[[RootRun], None] | None = None,
    on_note: Callable[[str], None] | None = None,
) -> ServeResult:
    """Serve the board, ``options.max_roots`` roots at once, until ``options.interrupt``
    stops it. The callbacks are called from this thread; ``options.observer`` is given
    each session's events from that session's thread."""
    interrupt, max_roots = options.interrupt, options.max_roots
    note = on_note or (lambda text: logger.info(text))
    # The sessions reconcile with each read of the board here.
    sessions = RootSessions(project, runtime, options, reconcile_every=None, on_note=note)
    leases = RootLeases(project.store, project.config.repo or project.git.path.name)
    upkeep = BoardUpkeep(project, note)
    result = ServeResult()
    verdicts = _Verdicts(poll_seconds, result, note)
    board: BoardQueue | None = None
    next_read = last_read = 0.0
    unreachable_since: float | None = None
    noted_at = 0.0
    watch = _BoardWatch(project.tracker, sessions.wake)
    stop_watch = _StopWatch(interrupt, sessions.wake)
    if status_file is not None:  # written while agents work: not theirs
        project.live_files.extend(status_files(status_file))
    try:
        while True:
            if watch.changed.is_set():  # the board changed: read it soon, not on the poll
                watch.changed.clear()
                next_read = min(next_read, last_read + MIN_READ_GAP_SECONDS)
            for done in sessions.ended():
                leases.give_back(done.root.root)
                result.runs.append(done)
                verdicts.judge(done)
                next_read = 0.0  # capacity freed: look at the board now
                if on_end is not None:
                    on_end(done)
            for root in leases.renew():
                note(f"#{root}: its lease in the store was lost; another process may take it")
            if interrupt.stopping.is_set():
                if not sessions.running:
                    break
            elif time.monotonic() >= next_read:
                last_read = time.monotonic()
                next_read = last_read + poll_seconds
                try:
                    # What people did outside Ralph first, so the roots read see it.
                    for synced in sync_board(project):
                        for line in synced.lines if synced.changed else ():
                            note(line)
                    upkeep.run()  # new issues routed before the board is read for work
                    board = sessions.board()
                except RalphError as exc:
                    now = time.monotonic()
                    unreachable_since = unreachable_since or now
                    if now - noted_at >= NOTE_EVERY_SECONDS:
                        noted_at = now
                        note(f"cannot read the board ({exc}); trying again every {poll_seconds:g}s")
                else:
                    if unreachable_since is not None:
                        note("the board can be read again; serving")
                        unreachable_since, noted_at = None, 0.0
                    _start(board, sessions, leases, verdicts, max_roots, on_start)
            if status_file is not None:
                write_status(status_file, project.store, sessions, board, verdicts.backoff, result)
            if interrupt.stopping.is_set():  # the board is not read again: sessions end
                wake_in = min(STOP_LOOK_SECONDS, leases.renew_in)
            else:
                wake_in = min(max(0.0, next_read - time.monotonic()), leases.renew_in)
            sessions.wait(wake_in)
    finally:
        watch.stop()
        stop_watch.stop()
        leases.give_back_all()
        if status_file is not None:
            write_status(status_file, project.store, sessions, board, verdicts.backoff, result)
    return result


class _BoardWatch:
    """A thread that waits for the board to change and wakes the service; nothing on a
    tracker that cannot say so without a read of the board (GitHub: the poll reads it)."""

    def __init__(self, tracker: Tracker, wake: Callable[[], None]) -> None:
        self.tracker = tracker
        self.changed = threading.Event()
        self._wake = wake
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        try:
            seen = tracker.board_version()
        except RalphError:
            seen = None  # the poll says when the board cannot be read
        if seen is not None:
            self._thread = threading.Thread(
                target=self._run, args=(seen,), name="serve-board-watch", daemon=True
            )
            self._thread.start()

    def _run(self, seen: Hashable) -> None:
        while not self._done.is_set():
            try:
                version = self.tracker.wait_for_board_change(seen, WATCH_SECONDS)
            except Exception:  # the store hiccuped: the poll goes on; look again soon
                logger.warning("cannot watch the board for changes", exc_info=True)
                self._done.wait(WATCH_SECONDS)
                continue
            if version != seen:
                seen = version
                self.changed.set()
                self._wake()

    def stop(self) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join(WATCH_SECONDS + 5)


class _StopWatch:
    """A thread that wakes the service once it is told to stop, so an idle service stops
    at once, not at its next poll. The signal's handler cannot wake it: the handler runs
    on the service's thread, maybe while that thread holds the lock of the very event
    it waits on."""

    def __init__(self, interrupt: Interrupt, wake: Callable[[], None]) -> None:
        self._interrupt = interrupt
        self._wake = wake
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="serve-stop-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._done.is_set():
            if self._interrupt.stopping.wait(WATCH_SECONDS):
                self._wake()
                return

    def stop(self) -> None:
        self._done.set()
        self._thread.join(WATCH_SECONDS + 5)


def _start(
    board: BoardQueue,
    sessions: RootSessions,
    leases: RootLeases,
    verdicts: _Verdicts,
    max_roots: int,
    on_start: Callable[[QueuedRoot], None] | None,
) -> None:
    verdicts.forget_moved(board)
    for queued in board.roots:
        if len(sessions.running) >= max_roots:
            return
        if queued.root in sessions.running or not verdicts.may_start(queued):
            continue
        if not leases.take(queued.root):
            continue  # another process runs it
        if on_start is not None:
            on_start(queued)
        sessions.start(queued)


@dataclass
class _Verdicts:
    """What the service makes of each root's sessions: when it may start again."""

    poll_seconds: float
    result: ServeResult
    note: Callable[[str], None]
    backoff: dict[int, _Backoff] = field(default_factory=dict)

    def forget_moved(self, board: BoardQueue) -> None:
        """A root the board no longer shows as work (done, or waiting for a person)
        loses its backoff: when a person moves it back, it starts afresh, even one left
        for them."""
        queued = {q.root for q in board.roots}
        for root in [r for r in self.backoff if r not in queued]:
            del self.backoff[root]
            if root in self.result.given_up:
                self.result.given_up.remove(root)

    def judge(self, done: RootRun) -> None:
        """A root that ended well starts afresh; one that did not waits twice as long as
        the time before, and after ``MAX_ROOT_FAILURES`` in a row waits for a person.
        One whose tasks wait for a person (a review) is looked at again a poll later,
        not at once: the board still shows its work, and nothing but the wait would come
        of starting it. One that finished is judged when the board is read next
        (``may_start``)."""
        root = done.root.root
        if done.result.ending in _HEALTHY:
            previous = self.backoff.pop(root, _Backoff())
            if done.result.waiting:
                self.backoff[root] = _Backoff(until=time.monotonic() + self.poll_seconds)
            elif done.result.ending is Ending.FINISHED:
                self.backoff[root] = _Backoff(failures=previous.failures, finished_at=done.root)
            return
        self._failed(root, done.result.detail)

    def may_start(self, queued: QueuedRoot) -> bool:
        """Whether the root may start now. A root whose last session finished, yet which
        the board shows where that session started (same group, same next phase), moved
        nothing: starting it again would do the same, so it counts as a failure. A root
        that moved starts afresh."""
        state = self.backoff.get(queued.root)
        if state is None:
            return True
        before, state.finished_at = state.finished_at, None
        if before is not None:
            if (before.members, before.next_phase) == (queued.members, queued.next_phase):
                self._failed(queued.root, f"its session moved nothing; {queued.next_phase} is next")
                return False
            state.failures = 0
        return time.monotonic() >= state.until

    def _failed(self, root: int, detail: str) -> None:
        state = self.backoff.setdefault(root, _Backoff())
        state.failures += 1
        if state.failures >= MAX_ROOT_FAILURES:
            state.until = float("inf")
            self.result.given_up.append(root)
            self.note(
                f"#{root} ended without finishing {state.failures} times in a row "
                f"({_unprefixed(root, detail)}); left for a person"
            )
            return
        wait = min(MAX_BACKOFF_SECONDS, self.poll_seconds * 2**state.failures)
        state.until = time.monotonic() + wait
        self.note(f"#{root}: {_unprefixed(root, detail)}; trying it again in {wait:g}s")


def _unprefixed(root: int, detail: str) -> str:
    """A session's detail without the root it already names (said once per line)."""
    return detail.removeprefix(f"#{root}: ")
