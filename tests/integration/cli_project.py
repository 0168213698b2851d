"""The demo project driven through the installed ``ralph`` command, as a person would."""

from __future__ import annotations

from pathlib import Path

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.demo._sample import FAREWELL
from ralph.project import open_project
from ralph.workflow import Estimate, WorkflowState

from .conftest import ralph_process


def farewell_project(folder: Path) -> tuple[Path, int]:
    """The demo project (scripted agents, its tests as the test command) with one XS
    issue in Research Needed whose diff adds ``farewell``; returns it and the issue."""
    repo, _ = create_demo_project(folder)
    with open_project(load_config(repo)) as project:
        issue = project.tracker.create_issue(
            "Add a farewell function",
            body=f"Add `farewell`.\n\n{FAREWELL}\n",
            state=WorkflowState.RESEARCH_NEEDED,
            estimate=Estimate.XS,
        )
    return repo, issue.number


def state_of(repo: Path, number: int) -> WorkflowState | None:
    with open_project(load_config(repo)) as project:
        return project.tracker.get_issue(number).workflow_state


def through(repo: Path, number: int, *steps: str) -> None:
    """Run ``ralph run STEP N`` (``approve``: ``ralph approve N``) for each step; each
    must succeed."""
    for step in steps:
        args = ["approve"] if step == "approve" else ["run", step]
        done = ralph_process(*args, str(number), cwd=repo)
        assert done.returncode == 0, done.stdout + done.stderr
