"""Runs through the MCP tools, as a dashboard agent reads them: each run's outcome in the
same words ``ralph runs list`` uses, its tasks done, and for a running task what its agent
is doing (the activity the worker keeps on the task); the pipeline dashboard names them
too."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.config import Config
from ralph.db import open_database
from ralph.git import GitRepo
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.orchestrate import ESCALATED
from ralph.project import Project
from ralph.runtimes import ActivityFeed
from ralph.tasks import RunStatus, open_store
from ralph.tracker import LocalCodeHost, LocalTracker

from .test_mcp_tools import calls

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(
        Config(root=tmp_path, repo="demo"),
        tracker := LocalTracker(open_database("memory://"), repo="demo"),
        LocalCodeHost(tracker.db, repo=tracker.repo, tracker=tracker),
        open_store(f"sqlite:///{tmp_path / 'ralph.db'}", create=True),
        GitRepo(tmp_path),
    )


def spec(key: str, kind: TaskKind, number: int, *deps: str) -> TaskSpec:
    return TaskSpec(key, kind, Role.ANALYST, (number,), f"{kind.value} GH-{number}", "", deps)


def three_runs(project: Project) -> tuple[int, int, int]:
    """A run that succeeded, one whose issue escalated, and one whose agent is at work
    (two turns in, editing a file)."""
    store = project.store
    done = store.create_run("hero GH-1", root_issue=1, mode="hero")
    (task,) = store.add_tasks(done.id, [spec("research:1", TaskKind.RESEARCH, 1)])
    store.complete(store.claim_task(task.id, "w1"), {})
    store.finish_run(done.id, RunStatus.FINISHED)

    escalated = store.create_run("hero GH-2", root_issue=2, mode="hero")
    (task,) = store.add_tasks(escalated.id, [spec("research:2", TaskKind.RESEARCH, 2)])
    claim = store.claim_task(task.id, "w1")
    store.fail(claim, f"{ESCALATED}the diff does not apply", retryable=False)
    store.finish_run(escalated.id, RunStatus.FINISHED)

    working = store.create_run("team GH-3", root_issue=3, mode="team")
    research, _ = store.add_tasks(
        working.id,
        [spec("research:3", TaskKind.RESEARCH, 3), spec("plan:3", TaskKind.PLAN, 3, "research:3")],
    )
    claim = store.claim_task(research.id, "host:1/analyst-1")
    feed = ActivityFeed()
    feed.begin("simulated agent")
    feed.turn()
    feed.turn()
    feed.usage(tokens=2000)
    feed.tool("Edit", "calc/x.py")
    activity = feed.snapshot()
    store.record_activity(claim, activity.to_dict(), activity.summary())
    return done.id, escalated.id, working.id


def test_run_list_gives_each_runs_outcome_and_what_its_agents_do(project: Project) -> None:
    done, escalated, working = three_runs(project)
    (error, listed), (_, people), (bad, refused) = calls(
        project,
        ("run_list", {}),
        ("run_list", {"outcome": "needs_person"}),
        ("run_list", {"outcome": "finished"}),
    )
    assert not error
    by_id = {run["id"]: run for run in listed["runs"]}
    assert [run["id"] for run in listed["runs"]] == [working, escalated, done]
    assert by_id[done]["outcome"] == "succeeded"
    assert by_id[done]["done"] == {"done": 1, "total": 1, "replaced": 0}
    assert by_id[escalated]["outcome"] == "needs_person"
    assert by_id[working]["outcome"] == "running"
    assert by_id[done]["atWork"] == by_id[escalated]["atWork"] == []
    (at_work,) = by_id[working]["atWork"]
    assert at_work["task"] == "research:3"
    assert at_work["worker"] == "analyst-1"
    activity = at_work["activity"]
    assert (activity["turns"], activity["tokens"], activity["tool"]) == (2, 2000, "Edit calc/x.py")
    assert activity["summary"] == "turn 2 · 2.0k tokens · Edit calc/x.py"
    assert [run["id"] for run in people["runs"]] == [escalated]
    assert bad
    assert "outcome 'finished' is not known; use one of running, succeeded" in refused["error"]


def test_run_get_and_task_get_carry_the_outcome_and_the_activity(project: Project) -> None:
    _, escalated, working = three_runs(project)
    research = project.store.list_tasks(working)[0]
    (_, shown), (_, ended), (_, task), (missing, said) = calls(
        project,
        ("run_get", {"runId": working}),
        ("run_get", {"runId": escalated}),
        ("task_get", {"taskId": research.id}),
        ("run_get", {"runId": 99}),
    )
    assert shown["outcome"] == "running"
    assert shown["atWork"][0]["activity"]["summary"] == "turn 2 · 2.0k tokens · Edit calc/x.py"
    assert shown["report"]["tasks"][0]["activity"]["turns"] == 2
    assert ended["outcome"] == "needs_person"
    assert ended["atWork"] == []
    assert task["activitySummary"] == "turn 2 · 2.0k tokens · Edit calc/x.py"
    assert missing
    assert "no run with id 99" in said["error"]


def test_the_pipeline_dashboard_names_the_latest_runs_and_their_outcomes(
    project: Project,
) -> None:
    done, escalated, working = three_runs(project)
    (_, data), (_, markdown), (_, ascii_) = calls(
        project,
        ("pipeline_dashboard", {}),
        ("pipeline_dashboard", {"format": "markdown"}),
        ("pipeline_dashboard", {"format": "ascii"}),
    )
    assert [(r["id"], r["outcome"]) for r in data["runs"]] == [
        (working, "running"),
        (escalated, "needs_person"),
        (done, "succeeded"),
    ]
    assert markdown["formatted"].endswith(
        "## Runs\n\n"
        f"- Run {working} (team GH-3): running, 0/2 tasks done\n"
        "  - research GH-3: turn 2 · 2.0k tokens · Edit calc/x.py\n"
        f"- Run {escalated} (hero GH-2): needs a person, 0/1 tasks done\n"
        f"- Run {done} (hero GH-1): succeeded, 1/1 tasks done\n"
    )
    assert f"Run {escalated} (hero GH-2): needs a person, 0/1 tasks done" in ascii_["formatted"]
