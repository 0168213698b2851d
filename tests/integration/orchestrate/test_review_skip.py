"""``review_mode = "skip"``: nobody reviews the plan; implementation takes it from Plan in
Review and its lock moves the issues to In Progress (the original's ralph_impl), so the
run goes on to the merge."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.orchestrate import Ending
from ralph.project import open_project
from ralph.tracker import Issue
from ralph.workflow import Estimate, WorkflowState, parse_transition_comments

from ..conftest import ralph_process
from .conftest import BODIES, Demo, assert_sound

DONE = WorkflowState.DONE


def moves(issue: Issue) -> list[tuple[str, str, str]]:
    return [r.key for c in issue.comments for r in parse_transition_comments(c.body)]


def test_hero_with_review_skipped_takes_an_issue_to_done(tmp_path: Path):
    repo, _ = create_demo_project(tmp_path / "greet")
    title, body = BODIES["farewell"]
    with open_project(load_config(repo)) as project:
        number = project.tracker.create_issue(
            title, body=body, state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.XS
        ).number
    result = ralph_process("hero", str(number), "--review-mode", "skip", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    with open_project(load_config(repo)) as project:
        issue = project.tracker.get_issue(number)
        assert issue.workflow_state is DONE
        assert ("Plan in Review", "In Progress", "ralph_impl") in moves(issue)
        assert not any(c.body.startswith("## Plan Review") for c in issue.comments)
        (run,) = project.store.list_runs(root_issue=number)
        assert {t.kind for t in project.store.list_tasks(run.id)} == {
            "research",
            "plan",
            "implement",
            "pr",
            "merge",
        }
    assert (
        "def farewell"
        in subprocess.run(
            ["git", "show", "main:greet/core.py"],
            cwd=repo,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )


def test_hero_with_review_skipped_takes_a_group_to_done(demo: Demo):
    first, second, third = demo.group()
    result = demo.hero(third, review_mode="skip")
    assert result.ending is Ending.FINISHED
    assert [demo.state(n) for n in (first, second, third)] == [DONE] * 3
    statuses = demo.statuses(result)
    assert not [key for key in statuses if key.startswith(("review", "human_gate"))]
    assert all(status == "done" for status in statuses.values())
    for number in (first, second, third):
        issue = demo.project.tracker.get_issue(number)
        assert ("Plan in Review", "In Progress", "ralph_impl") in moves(issue)
    assert "from greet.core import farewell" in demo.on_main("greet/__init__.py")
    assert_sound(demo.report(result))
