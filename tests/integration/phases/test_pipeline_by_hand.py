"""``ralph run`` carries a split epic's sub-issues from Backlog to Done with the scripted
agent: the documents and the code end up on main, and every comment reads like the
original's."""

from __future__ import annotations

import subprocess
import sys

from ralph.phases import PhaseStatus
from ralph.workflow import WorkflowState as S

from .conftest import Sample


def test_an_epic_goes_from_backlog_to_done_phase_by_phase(sample: Sample):
    epic = sample.epic()
    assert sample.run("triage", epic).status is PhaseStatus.DONE
    assert sample.state(epic) is S.BACKLOG
    assert "ralph-triage" in sample.tracker.get_issue(epic).labels

    split = sample.run("split", epic)
    assert split.status is PhaseStatus.DONE, split.lines
    children = list(sample.tracker.get_issue(epic).sub_issues)
    assert len(children) == 3
    first, second, third = children
    assert sample.tracker.get_issue(second).blocked_by == (first,)
    assert sample.tracker.get_issue(third).blocked_by == (second,)
    assert all(sample.state(n) is S.RESEARCH_NEEDED for n in children)
    assert any(c.startswith("## Issue Split") for c in sample.comments(epic))

    for child in children:
        outcome = sample.run("research", child)
        assert outcome.status is PhaseStatus.DONE, outcome.lines
        assert sample.state(child) is S.READY_FOR_PLAN

    plan = sample.run("plan", first)
    assert plan.status is PhaseStatus.DONE, plan.lines
    assert plan.issues == (first, second, third)
    assert all(sample.state(n) is S.PLAN_IN_REVIEW for n in children)

    review = sample.run("review", second)
    assert review.status is PhaseStatus.DONE, review.lines
    assert all(sample.state(n) is S.IN_PROGRESS for n in children)

    implement = sample.run("implement", first)
    assert implement.status is PhaseStatus.DONE, (implement.lines, implement.error)
    worktree = sample.repo.path / "worktrees" / f"GH-{epic}"
    assert worktree.is_dir()

    pr = sample.run("pr", first)
    assert pr.status is PhaseStatus.DONE, (pr.lines, pr.error)
    assert all(sample.state(n) is S.IN_REVIEW for n in children)

    merge = sample.run("merge", third)
    assert merge.status is PhaseStatus.DONE, (merge.lines, merge.error)
    assert all(sample.state(n) is S.DONE for n in children)
    assert sample.state(epic) is S.DONE
    assert not worktree.exists()

    # main holds the documents and the code, and its tests pass there.
    files = subprocess.run(
        ["git", "ls-files"], cwd=sample.repo.path, capture_output=True, text=True, check=True
    ).stdout.split()
    assert len([f for f in files if f.startswith("thoughts/shared/research/")]) == 3
    assert len([f for f in files if f.startswith("thoughts/shared/plans/")]) == 1
    assert len([f for f in files if f.startswith("thoughts/shared/reviews/")]) == 1
    assert "def farewell" in sample.repo.show("main", "greet/core.py")
    tests = subprocess.run(
        [sys.executable, "-m", "unittest", "-q"], cwd=sample.repo.path, capture_output=True
    )
    assert tests.returncode == 0

    # Every phase, run again, knows it is done.
    for phase, number in [
        ("triage", epic),
        ("split", epic),
        ("research", first),
        ("plan", first),
        ("review", first),
        ("implement", first),
        ("pr", first),
        ("merge", first),
    ]:
        again = sample.run(phase, number)
        assert again.status is PhaseStatus.ALREADY_DONE, (phase, again)
