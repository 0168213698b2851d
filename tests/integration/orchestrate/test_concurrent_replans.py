"""Triage tasks that end at once each plan the graph again from the same tasks, and the
store takes only the first edit: the others are planned again from a fresh read, so no
worker dies, no task waits for a lease, and the run's report shows no stall. On SQLite
and on PostgreSQL, with the race made certain (both edits planned before either lands,
and one triage closes its issue: both edits cancel that issue's research)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.orchestrate import (
    Ending,
    SessionOptions,
    base_key,
    load_report,
    run_session,
    team_crew,
)
from ralph.orchestrate import _execute as execute
from ralph.orchestrate._planning import plan_from_tracker as real_plan_from_tracker
from ralph.project import Project, open_project
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.runtimes.scripted import _runtime as scripted_runtime
from ralph.tasks import EventKind, GraphEdit, TaskStatus
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
                body=_body(f"m{i}"),
                state=WorkflowState.BACKLOG,
                estimate=Estimate.XS,
            )
            tracker.add_sub_issue(number, child.number)
        yield project, number


def test_triage_tasks_ending_together_replan_without_a_stall(
    epic: tuple[Project, int], monkeypatch: pytest.MonkeyPatch
):
    project, number = epic
    closed = project.tracker.get_issue(number).sub_issues[0]
    project.tracker.update_issue(closed, body=_body("m0", "Triage: close obsolete\n\n"))
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


def test_a_triage_ending_while_another_plans_again_loses_no_work(
    epic: tuple[Project, int], monkeypatch: pytest.MonkeyPatch
):
    # The first triage to end reads the board while the second has not moved its issue;
    # the second then ends before the first reads the run's tasks. Read in that order,
    # the second triage looked asked for again and its issue's work was dropped.
    project, number = epic
    first_read = threading.Event()
    real_triage = scripted_runtime._AGENTS["triage"]
    callers: list[int] = []
    lock = threading.Lock()

    def triage(brief: Any) -> dict[str, Any]:
        with lock:
            callers.append(brief.primary.number)
            second = len(callers) == 2
        if second:  # moves its issue only once the first has read the board
            assert first_read.wait(MEET_SECONDS)
        return real_triage(brief)

    def plan_from_tracker(*args: Any, **kwargs: Any) -> Any:
        plan = real_plan_from_tracker(*args, **kwargs)
        if not first_read.is_set():
            first_read.set()
            _wait_for_triages_done(project, CHILDREN)
        return plan

    monkeypatch.setitem(scripted_runtime._AGENTS, "triage", triage)
    monkeypatch.setattr(f"{execute.__name__}.plan_from_tracker", plan_from_tracker)
    crew = team_crew({"analyst": CHILDREN, "builder": 1, "validator": 1, "integrator": 1})
    options = SessionOptions.from_config(project.config, mode="team")
    result = run_session(project, number, ScriptedRuntime(env={}), options, crew=crew)

    assert result.ending is Ending.FINISHED
    assert result.run is not None
    canceled = project.store.list_tasks(result.run.id, status=TaskStatus.CANCELED)
    assert not [(t.key, t.error) for t in canceled if "after Triage" in (t.error or "")]
    tracker = project.tracker
    issues = [number, *tracker.get_issue(number).sub_issues]
    assert {tracker.get_issue(n).workflow_state for n in issues} == {WorkflowState.DONE}


def _wait_for_triages_done(project: Project, count: int) -> None:
    """Until ``count`` triage tasks of the latest run are done (bounded)."""
    deadline = time.monotonic() + MEET_SECONDS
    while time.monotonic() < deadline:
        run = project.store.list_runs()[0]
        tasks = project.store.list_tasks(run.id, kind="triage", status=TaskStatus.DONE)
        if len(tasks) >= count - 1:  # every triage but the one asking
            return
        time.sleep(0.02)
    raise AssertionError("the other triage never ended")


@pytest.mark.parametrize("store", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_team_s_triages_cancel_nothing_only_the_group_chain_becomes_streams(
    request: pytest.FixtureRequest, tmp_path: Path, store: str
):
    children = 8
    url = request.getfixturevalue("pg_schema_url") if store == "postgres" else None
    repo, number = create_demo_project(tmp_path / "greet", store_url=url)
    with open_project(load_config(repo)) as project:
        tracker = project.tracker
        tracker.update_issue(number, estimate=Estimate.L)
        for i in range(children):
            child = tracker.create_issue(
                f"Add m{i}", body=_body(f"m{i}"), state=WorkflowState.BACKLOG, estimate=Estimate.XS
            )
            tracker.add_sub_issue(number, child.number)
        crew = team_crew({"analyst": 4, "builder": 2, "validator": 1, "integrator": 1})
        options = SessionOptions.from_config(project.config, mode="team")
        result = run_session(project, number, ScriptedRuntime(env={}), options, crew=crew)

        assert result.ending is Ending.FINISHED
        assert result.run is not None
        canceled = project.store.list_tasks(result.run.id, status=TaskStatus.CANCELED)
        # The group's plan .. merge chain, once: one plan, review, PR and merge, and an
        # implementation per child.
        assert sorted(base_key(t.key).partition(":")[0] for t in canceled) == sorted(
            ["plan", "review", "pr", "merge"] + ["implement"] * children
        )
