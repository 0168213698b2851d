"""``ralph serve --status-file PATH``: what the service does, as JSON for machines (a
monitor, a dashboard), rewritten whole on every look so a reader never sees half a file:
the roots running, their run's outcome so far, their tasks, retries, what the agents of
the running tasks are doing, the tasks waiting (for what, for whom, and when they look
again), who waits for a person, the sessions that ended lately and how their runs stand,
roots backing off or left for a person, what was spent today, and the agents whose
provider refuses for now (until when, and what it said)."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ralph.orchestrate._at_work import at_work
from ralph.orchestrate._budget import start_of_day
from ralph.orchestrate._outcome import run_outcome, tally
from ralph.orchestrate._provider_wait import provider_wait_text
from ralph.pipeline import BoardQueue
from ralph.tasks import RunStatus, TaskStore

if TYPE_CHECKING:
    from ralph.orchestrate._loop import RootSessions
    from ralph.orchestrate._serve import ServeResult

__all__ = ["status_document", "status_files", "write_status"]

#: The sessions that ended lately the status names, newest first: enough for a monitor
#: to see how each root's last run stands, without reading every run at each look.
ENDED_SHOWN = 10


class _Backoff(Protocol):
    failures: int
    until: float


def status_document(
    store: TaskStore,
    sessions: RootSessions,
    board: BoardQueue | None,
    backoff: Mapping[int, _Backoff],
    result: ServeResult,
) -> dict[str, Any]:
    now = time.time()
    active = {
        run.root_issue: run
        for run in store.list_runs(status=RunStatus.ACTIVE)
        if run.root_issue is not None
    }
    running = []
    for root in sorted(sessions.running):
        run = active.get(root)
        tasks = store.list_tasks(run.id) if run is not None else []
        running.append(
            {
                "root": root,
                "run": run.id if run is not None else None,
                "outcome": run_outcome(run, tasks).value if run is not None else None,
                "done": asdict(tally(tasks)),
                "tasks": dict(sorted(Counter(t.status.value for t in tasks).items())),
                "at_work": at_work(tasks),
                "retries": sum(max(0, t.attempts - 1) for t in tasks),
                "waiting": [
                    {
                        "task": t.key,
                        "issue": t.issues[0] if t.issues else None,
                        "waiting_for": t.waiting_for,
                        "for_person": t.waiting_for_person,
                        "next_check": t.not_before,
                    }
                    for t in tasks
                    if t.waiting_for is not None
                ],
            }
        )
    monotonic = time.monotonic()
    return {
        "pid": os.getpid(),
        "updated_at": now,
        "stopping": sessions.options.interrupt.stopping.is_set(),
        "running": running,
        "queued": [q.root for q in board.roots if q.root not in sessions.running] if board else [],
        "waiting": list(board.waiting) if board else [],
        "backing_off": [
            {"root": root, "failures": b.failures, "retry_in_seconds": round(b.until - monotonic)}
            for root, b in sorted(backoff.items())
            if b.until != float("inf") and b.until > monotonic
        ],
        "left_for_a_person": sorted(result.given_up),
        "finished_sessions": len(result.runs),
        "ended": _ended(store, result),
        "spent_today_usd": round(store.spent(since=start_of_day(now)), 6),
        # The agents whose provider refuses for now: their tasks wait, the others run.
        "provider_waits": [
            {
                "agent": wait.agent,
                "until": wait.until,
                "said": wait.said,
                "text": provider_wait_text(wait, now=now),
            }
            for wait in store.provider_waits(now=now)
        ],
    }


def _ended(store: TaskStore, result: ServeResult) -> list[dict[str, Any]]:
    """The latest sessions that ended, newest first, with how their run stands now (a
    run a later session took on again reads as running)."""
    ended = []
    for done in reversed(result.runs[-ENDED_SHOWN:]):
        run = done.result.run
        if run is None:
            continue
        run = store.get_run(run.id)
        tasks = store.list_tasks(run.id)
        ended.append(
            {
                "root": done.root.root,
                "run": run.id,
                "ending": done.result.ending.value,
                "outcome": run_outcome(run, tasks).value,
                "done": asdict(tally(tasks)),
            }
        )
    return ended


def write_status(
    path: Path,
    store: TaskStore,
    sessions: RootSessions,
    board: BoardQueue | None,
    backoff: Mapping[int, _Backoff],
    result: ServeResult,
) -> None:
    """Write the status beside ``path`` and move it into place (atomic on POSIX)."""
    text = json.dumps(status_document(store, sessions, board, backoff, result), indent=2)
    scratch = status_files(path)[1]
    scratch.write_text(text + "\n", encoding="utf-8")
    os.replace(scratch, path)


def status_files(path: Path) -> list[Path]:
    """The files writing the status at ``path`` touches: itself and its scratch copy."""
    return [path, path.with_name(f".{path.name}.{os.getpid()}.tmp")]
