"""The demo project driven through the installed ``ralph`` command, as a person would."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.demo._sample import FAREWELL
from ralph.project import open_project
from ralph.workflow import Estimate, WorkflowState

RALPH = shutil.which("ralph", path=str(Path(sys.executable).parent)) or "ralph"


def ralph(
    repo: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [RALPH, *args], cwd=repo, env={**(env or os.environ), "COLUMNS": "200"},
        capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


def farewell_project(folder: Path) -> tuple[Path, int]:
    """The demo project (scripted agents, its tests as the test command) with one XS
    issue in Research Needed whose diff adds ``farewell``; returns it and the issue."""
    repo, _ = create_demo_project(folder)
    with open_project(load_config(repo)) as project:
        issue = project.tracker.create_issue(
            "Add a farewell function", body=f"Add `farewell`.\n\n{FAREWELL}\n",
            state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.XS,
        )  # fmt: skip
    return repo, issue.number


def state_of(repo: Path, number: int) -> WorkflowState | None:
    with open_project(load_config(repo)) as project:
        return project.tracker.get_issue(number).workflow_state


def through(repo: Path, number: int, *steps: str) -> None:
    """Run ``ralph run STEP N`` (``approve``: ``ralph approve N``) for each step; each
    must succeed."""
    for step in steps:
        args = ["approve"] if step == "approve" else ["run", step]
        done = ralph(repo, *args, str(number))
        assert done.returncode == 0, done.stdout + done.stderr
