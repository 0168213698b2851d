"""Triage tasks that end at once each plan the graph again from the same tasks, and the
store takes only the first edit: the others are planned again from a fresh read, so no
worker dies, no task waits for a lease, and the run's report shows no stall. On SQLite
and on PostgreSQL, with the race made certain (both edits planned before either lands,
and one triage closes its issue: both edits cancel that issue's research)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.orchestrate import Ending, SessionOptions, load_report, run_session, team_crew
from ralph.orchestrate import _execute as execute
from ralph.project import Project, open_project
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import EventKind, GraphEdit
from ralph.workflow import Estimate, WorkflowState

from .conftest import assert_sound

CHILDREN = 2
#: Bounds the barrier's wait: the other triage ends within seconds.
MEET_SECONDS = 60.0


def _body(name: str, marker: str = "") -> str:
    return (
        f"Add the `{name}` module.\n\n{marker}```diff\n--- /dev/null\n+++ b/greet/{name}.py\n"
        f"@@ -0,0 +1 @@\n+NAME = {name!r}\n```\n"
    )


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def epic(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Project, int]]:
    """An L epic with XS children in Backlog: each child is triaged on its own."""
    url = request.getfixturevalue("pg_schema_url") if request.param == "postgres" else None
    repo, number = create_demo_project(tmp_path / "greet", store_url=url)
    with open_project(load_config(repo)) as project:
        tracker = project.tracker
        tracker.update_issue(number, estimate=Estimate.L)
        for i in range(CHILDREN):
            child = tracker.create_issue(
                f"Add m{i}",
                body=_body(f"m{i}", "Triage: close obsolete\n\n" if i == 0 else ""),
                state=WorkflowState.BACKLOG,
                estimate=Estimate.XS,
            )
            tracker.add_sub_issue(number, child.number)
        yield project, number


def test_triage_tasks_ending_together_replan_without_a_stall(
    epic: tuple[Project, int], monkeypatch: pytest.MonkeyPatch
):
    project, number = epic
    real = execute.TaskExecutor._regraph
    met = threading.Barrier(CHILDREN, timeout=MEET_SECONDS)
    planned: list[GraphEdit] = []
    lock = threading.Lock()
    entered = 0

    def regraph(self: execute.TaskExecutor, **options: Any) -> tuple[GraphEdit, bool]:
        nonlocal entered
        with lock:
            racing = bool(options.get("finished")) and entered < CHILDREN
            entered += racing
        if not racing:
            return real(self, **options)
        met.wait()  # every triage has ended and moved its issue: all read the same board
        edit, survives = real(self, **options)
        planned.append(edit)
        met.wait()  # all planned before any lands
        return edit, survives

    monkeypatch.setattr(execute.TaskExecutor, "_regraph", regraph)
    crew = team_crew({"analyst": CHILDREN, "builder": 1, "validator": 1, "integrator": 1})
    options = SessionOptions.from_config(project.config, mode="team")
    result = run_session(project, number, ScriptedRuntime(env={}), options, crew=crew)

    first, second = planned
    assert set(first.cancel) & set(second.cancel)  # the race happened: one edit must lose
    assert result.ending is Ending.FINISHED
    assert result.run is not None
    events = project.store.events(result.run.id)
    assert not [e for e in events if e.kind in (EventKind.TASK_EXPIRED, EventKind.TASK_DEAD)]
    report = load_report(project.store, result.run.id)
    assert_sound(report)
    assert (report.counters.leases_expired, report.counters.worker_broke) == (0, 0)
    assert report.stalled == 0.0
    tracker = project.tracker
    closed, kept = tracker.get_issue(number).sub_issues
    assert not tracker.get_issue(closed).is_open
    assert {tracker.get_issue(n).workflow_state for n in (number, kept)} == {WorkflowState.DONE}
