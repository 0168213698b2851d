"""Ready changes for the merge train: the demo project (local tracker and code host,
SQLite, scripted agents) with XS issues In Review, each with a real branch adding one
module and its test, and a pull request that closes it. ``ralph loop`` then has one
merge per issue waiting on the repository's merge key. A bad change's test fails."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.git import commit_files
from ralph.project import open_project
from ralph.workflow import Estimate, WorkflowState

__all__ = ["Change", "ReadyChanges", "ready_changes", "slow_tests"]

#: Each test run leaves this file in the checkout it tests while it runs: a test sees a
#: run under way (``.ralph/scratch/*/<MARKER>``).
MARKER = ".test-running"


@dataclass(frozen=True)
class Change:
    issue: int
    pr: int
    branch: str
    #: The file the change adds; on the base branch once it landed.
    module: str
    bad: bool


@dataclass(frozen=True)
class ReadyChanges:
    repo: Path
    base: str
    changes: tuple[Change, ...]

    @property
    def good(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if not c.bad)

    @property
    def bad(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.bad)


def slow_tests(seconds: float) -> str:
    """The demo's tests as the test command, ``seconds`` of sleep first, with the
    running-test marker left in the checkout meanwhile."""
    tests = shlex.join([sys.executable, "-m", "unittest", "-q"])
    return f"touch {MARKER}; sleep {seconds:g}; {tests}"


def _files(name: str, bad: bool) -> dict[str, str]:
    says = "broken" if bad else name
    test = (
        "import unittest\n\n"
        f"from greet import {name}\n\n\n"
        f"class {name.upper()}Test(unittest.TestCase):\n"
        f"    def test_name(self):\n"
        f"        self.assertEqual({name}.NAME, {name!r})\n"
    )
    return {f"greet/{name}.py": f"NAME = {says!r}\n", f"tests/test_{name}.py": test}


def ready_changes(folder: Path, count: int, bad: Collection[int] = ()) -> ReadyChanges:
    """The demo project in ``folder`` with ``count`` XS issues In Review, each with its
    pull request open; those whose index (0-based) is in ``bad`` fail their own test."""
    repo, epic = create_demo_project(folder)
    made: list[Change] = []
    with open_project(load_config(repo)) as project:
        project.tracker.close_issue(epic)
        git, base = project.git, project.config.base_branch
        for i in range(count):
            name = f"m{i}"
            issue = project.tracker.create_issue(
                f"Add {name}",
                body=f"Add the `{name}` module and its test.",
                estimate=Estimate.XS,
                state=WorkflowState.IN_REVIEW,
            )
            branch = f"feature/{issue.number}-{name}"
            git.git("branch", branch, base, what=f"create {branch}")
            commit_files(git, branch, _files(name, i in bad), f"Add {name}")
            pr = project.code_host.create_pull_request(
                head=branch, base=base, title=f"Add {name}", body=f"Closes #{issue.number}"
            )
            made.append(Change(issue.number, pr.number, branch, f"greet/{name}.py", i in bad))
    return ReadyChanges(repo, base, tuple(made))
