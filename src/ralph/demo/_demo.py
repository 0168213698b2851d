"""``ralph demo``: a throwaway project carried from an unsized epic to merged code by a
team of simulated agents, checked at the end (every issue Done, the change on main, the
project's tests passing there).

Where bubblewrap cannot start (every Mac, a Linux machine without it), the demo runs
unconfined: its project is one Ralph wrote itself and its agents are Ralph's own simulated
ones, so there is nothing of the person's to protect. That is written into the demo
project's ralph.toml; every other project still refuses unless its own says so."""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ralph.config import load_config
from ralph.db import open_database
from ralph.demo._sample import (
    EPIC_BODY,
    EPIC_TITLE,
    commit_everything,
    create_sample_repository,
)
from ralph.orchestrate import (
    Interrupt,
    Observer,
    SessionOptions,
    SessionResult,
    run_session,
    team_crew,
)
from ralph.project import Project, init_project, migrate_database, open_project
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.sandbox import probe
from ralph.workflow import WorkflowState

__all__ = [
    "DEMO_TEAM",
    "DemoCheck",
    "check_demo",
    "create_demo_project",
    "demo_project",
    "run_demo",
    "unconfined_reason",
]

#: Two workers per role: research and implementation run side by side where they can.
DEMO_TEAM = {"analyst": 2, "builder": 2, "validator": 1, "integrator": 1}


#: What the demo project's ralph.toml says where bubblewrap cannot start.
_UNCONFINED = """\
# ralph demo: bubblewrap cannot start here, and this project and its simulated agents
# are Ralph's own, so they run unconfined.
allow_unsandboxed = true"""


@dataclass(frozen=True)
class DemoCheck:
    all_done: bool
    merged: bool
    tests_pass: bool
    test_output: str

    @property
    def ok(self) -> bool:
        return self.all_done and self.merged and self.tests_pass


def unconfined_reason() -> str | None:
    """Why the demo runs its agents and tests unconfined here (None: bubblewrap starts)."""
    status = probe()
    return None if status.available else status.reason


def create_demo_project(
    folder: Path,
    *,
    store_url: str | None = None,
    epic: tuple[str, str] = (EPIC_TITLE, EPIC_BODY),
    unconfined: bool = False,
) -> tuple[Path, int]:
    """The sample package in a git repository with ralph.toml (local tracker, SQLite or
    ``store_url``, scripted agents, its unittest suite as the test command; with
    ``unconfined``, allow_unsandboxed) and the epic (title, body), unsized, in Backlog.
    Returns the repository and the epic's number."""
    repo = create_sample_repository(folder)
    test_command = shlex.join([sys.executable, "-m", "unittest", "-q"])
    result = init_project(repo, test_command=test_command)
    text = result.config_path.read_text()
    text = text.replace('runtime = "claude"', 'runtime = "scripted"')
    if unconfined:
        text = text.replace("allow_unsandboxed = false", _UNCONFINED)
    if store_url is not None:
        text = text.replace('store = "sqlite:///.ralph/ralph.db"', f"store = {store_url!r}")
        with open_database(store_url) as db:  # made as `ralph db migrate` makes it
            migrate_database(db)
    result.config_path.write_text(text)
    commit_everything(repo, "Set up Ralph")
    title, body = epic
    with open_project(load_config(repo)) as project:
        issue = project.tracker.create_issue(title, body=body, state=WorkflowState.BACKLOG)
    return repo, issue.number


@contextmanager
def demo_project(folder: Path, *, unconfined: bool = False) -> Iterator[tuple[Project, int]]:
    repo, epic = create_demo_project(folder, unconfined=unconfined)
    with open_project(load_config(repo)) as project:
        yield project, epic


def check_demo(project: Project, epic: int) -> DemoCheck:
    tracker = project.tracker
    root = tracker.get_issue(epic)
    issues = [root, *(tracker.get_issue(n) for n in root.sub_issues)]
    all_done = all(i.workflow_state is WorkflowState.DONE for i in issues)
    core = project.git.read_on(project.config.base_branch, "greet/core.py")
    merged = core is not None and "def farewell" in core
    tests = subprocess.run(
        shlex.split(project.config.test_command),
        cwd=project.git.path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return DemoCheck(all_done, merged, tests.returncode == 0, (tests.stdout + tests.stderr).strip())


def run_demo(
    project: Project,
    epic: int,
    *,
    observer: Observer | None = None,
    interrupt: Interrupt | None = None,
) -> tuple[SessionResult, DemoCheck]:
    """Run the team on the epic with the scripted agents, then check the outcome."""
    options = SessionOptions.from_config(
        project.config, mode="team", observer=observer, interrupt=interrupt
    )
    session = run_session(project, epic, ScriptedRuntime(), options, crew=team_crew(DEMO_TEAM))
    return session, check_demo(project, epic)
