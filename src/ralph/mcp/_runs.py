"""Run tools over the store: every run with its outcome (succeeded, needs a person,
failed, stopped, canceled, running), its tasks done, and what the agents of its running
tasks are doing; one run's whole report. Read only."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ralph.mcp._context import ToolContext
from ralph.orchestrate import Outcome, at_work, load_report
from ralph.tasks import TaskStore
from ralph.views import run_document, runs_document

__all__ = ["latest_runs", "register_run_tools", "runs_text"]

RunId = Annotated[int, Field(description="Run id (ralph_hero__run_list lists them)")]


def latest_runs(store: TaskStore, limit: int, outcome: str | None = None) -> list[dict[str, Any]]:
    """The newest ``limit`` runs (of ``outcome``, when given), each with ``atWork``: what
    the agents of its running tasks are doing."""
    known = [o.value for o in Outcome]
    if outcome is not None and outcome not in known:
        raise ValueError(f"outcome {outcome!r} is not known; use one of {', '.join(known)}")
    runs = [r for r in runs_document(store) if outcome is None or r["outcome"] == outcome]
    runs = runs[:limit]
    for run in runs:
        running = run["outcome"] == Outcome.RUNNING
        run["atWork"] = at_work(store.list_tasks(run["id"])) if running else []
    return runs


def runs_text(runs: list[dict[str, Any]]) -> list[str]:
    """A line per run for people (``Run 3 (hero GH-2): needs a person, 2/6 tasks
    done``), and one per task at work under a running one."""
    lines = []
    for run in runs:
        done = run["done"]
        lines.append(
            f"Run {run['id']} ({run['name']}): {Outcome(run['outcome']).words}, "
            f"{done['done']}/{done['total']} tasks done"
        )
        for task in run["atWork"]:
            activity = task["activity"]
            doing = f": {activity['summary']}" if activity and activity["summary"] else ""
            lines.append(f"  {task['subject']}{doing}")
    return lines


def register_run_tools(tools: ToolContext) -> None:
    store = tools.project.store

    @tools.read("list runs")
    def run_list(
        outcome: Annotated[
            str | None,
            Field(description="Only runs with this outcome: running, needs_person, failed..."),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 20,
    ) -> dict[str, Any]:
        """Runs, newest first: each one's outcome, tasks done of those that count, tasks
        by status, and for each running task its worker and agent activity (summary,
        turns, tokens, last tool call)."""
        runs = latest_runs(store, limit, outcome)
        return {"runs": runs, "count": len(runs)}

    @tools.read("get run")
    def run_get(runId: RunId) -> dict[str, Any]:
        """One run's report: its outcome, every task (status, time, attempts, cost,
        tokens, agent activity), what needs a person, its work streams."""
        report = load_report(store, runId)
        document = run_document(report)
        document["atWork"] = at_work(store.list_tasks(runId))
        return document
