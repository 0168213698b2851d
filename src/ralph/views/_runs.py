"""Runs and tasks as JSON documents: ``ralph runs list|show --json`` and ``ralph tasks
show --json`` print these, and ``ralph web`` serves them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from ralph.git import RUN_FILES_DIR
from ralph.orchestrate import RunReport, run_outcome, tally
from ralph.tasks import TaskStore

__all__ = ["run_document", "runs_document", "task_document"]


def runs_document(store: TaskStore) -> list[dict[str, Any]]:
    """Every run, newest first, with its outcome, its tasks done of those that count
    (replaced ones left out) and its tasks counted by status."""
    documents = []
    for run in store.list_runs():
        tasks = store.list_tasks(run.id)
        documents.append(
            {
                "id": run.id,
                "name": run.name,
                "mode": run.mode,
                "rootIssue": run.root_issue,
                "status": run.status.value,
                "outcome": run_outcome(run, tasks).value,
                "done": asdict(tally(tasks)),
                "createdAt": run.created_at,
                "tasks": {
                    status.value: n for status, n in Counter(t.status for t in tasks).items()
                },
            }
        )
    return documents


def run_document(
    report: RunReport, files: Mapping[int, Sequence[str]] | None = None
) -> dict[str, Any]:
    """One run with its report (tasks, time, cost, critical path, what needs a person),
    the merge batches that concern it (``batches``: who rode each, its test runs, what
    landed and what went back, and why), and the files it keeps of each task
    (``RunFiles.listing``: its log and the agents' transcripts), as paths from the
    project's root by task id."""
    run = report.run
    folder = f"{RUN_FILES_DIR}/{run.id}"
    return {
        "id": run.id,
        "name": run.name,
        "mode": run.mode,
        "rootIssue": run.root_issue,
        "status": run.status.value,
        "outcome": report.outcome.value,
        "done": asdict(report.tally),
        "shutdownRequested": run.shutdown_requested,
        "config": dict(run.config),
        "tasks": dict(Counter(t.status for t in report.tasks)),
        "report": report.to_dict(),
        "batches": [batch.to_dict() for batch in report.batches],
        "files": {
            str(task): [f"{folder}/{name}" for name in names]
            for task, names in (files or {}).items()
        },
    }


def task_document(store: TaskStore, task_id: int) -> dict[str, Any]:
    """One task with its result, error, attempts and history; TaskNotFound when the
    store has no such task."""
    task = store.get_task(task_id)
    history = [e for e in store.events(task.run_id) if e.task_id == task_id]
    data = task.to_dict()
    data["history"] = [
        {"id": e.id, "at": e.at, "kind": e.kind.value, "data": dict(e.data)} for e in history
    ]
    return data
