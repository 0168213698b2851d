"""The sample project with its issues and merge requests on a served FakeGitLab (the
merge requests merging in the sample clone, as on GitLab's side): what the tests of
each pipeline shape on GitLab start from, and the ``ralph`` processes they run."""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ralph.demo._sample import EPIC_BODY, EPIC_TITLE, create_sample_repository
from ralph.gitlab import GitLabClient
from ralph.gitlab.fake import FakeGitLab
from ralph.gitlab.fake._state import Issue
from ralph.sandbox import probe
from ralph.tracker.gitlab import GitLabTracker
from ralph.workflow import WorkflowState

from ..conftest import ralph_process, spawn_ralph

TOKEN = "glpat-shapes-token"
PROJECT = "acme/app"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@dataclass
class Site:
    """The sample repository ``work`` and GitLab at ``url``."""

    work: Path
    gitlab: FakeGitLab
    url: str

    def env(self, **extra: str) -> dict[str, str]:
        env = {"COLUMNS": "160", "RALPH_GITLAB_TOKEN": TOKEN}
        if not probe().available:  # no bubblewrap here: the test command runs unconfined
            env["RALPH_ALLOW_UNSANDBOXED"] = "true"
        return {**env, **extra}

    def ralph(
        self, *args: str, timeout: float = 120, **extra: str
    ) -> subprocess.CompletedProcess[str]:
        return ralph_process(*args, cwd=self.work, env=self.env(**extra), timeout=timeout)

    def spawn(self, *args: str, **extra: str) -> subprocess.Popen[str]:
        return spawn_ralph(*args, cwd=self.work, env=self.env(**extra))

    def tracker(self) -> GitLabTracker:
        """GitLab as Ralph sees it, in this process (the fake is a transport too)."""
        return GitLabTracker(GitLabClient(self.gitlab, TOKEN), PROJECT)

    def init(self) -> None:
        """``ralph init --gitlab`` with the sample's tests and scripted agents, committed."""
        self.ralph_init()
        self.commit_set_up()

    def ralph_init(self) -> None:
        tests = shlex.join([sys.executable, "-m", "unittest", "-q"])
        made = self.ralph(
            "init", "--gitlab", PROJECT, "--gitlab-url", self.url, "--test-command", tests
        )
        assert made.returncode == 0, made.stdout + made.stderr

    def commit_set_up(self) -> None:
        """What ``ralph init`` wrote, with scripted agents, committed."""
        toml = self.work / "ralph.toml"
        toml.write_text(toml.read_text().replace('runtime = "claude"', 'runtime = "scripted"'))
        git(self.work, "add", "-A")
        git(self.work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Set up")

    def epic(self) -> int:
        """The demo epic, filed in Backlog: its number."""
        return (
            self.tracker()
            .create_issue(EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG)
            .number
        )

    def issues(self) -> list[Issue]:
        with self.gitlab.state.lock:  # the served fake answers on its own threads
            project = self.gitlab.state.project(PROJECT)
            assert project is not None
            return list(project.issues.values())

    def all_done(self, count: int = 4) -> bool:
        issues = self.issues()
        return len(issues) == count and all(
            "ralph::Done" in i.labels and i.state == "closed" for i in issues
        )

    def assert_epic_done(self) -> None:
        """The epic and its three sub-issues Done and closed, the code merged here, and
        nothing refused or broken in the fake."""
        issues = self.issues()
        assert len(issues) == 4, [i.title for i in issues]  # no sub-issue made twice
        assert self.all_done(), [(i.iid, i.labels, i.state) for i in issues]
        assert "def farewell" in git(self.work, "show", "main:greet/core.py")
        assert self.gitlab.refused == []
        assert self.gitlab.internal_errors == []


@contextmanager
def site(
    tmp_path: Path, *, repository: Callable[[Path], Path] = create_sample_repository
) -> Iterator[Site]:
    """A served FakeGitLab (Premium, GitLab.com's limits) whose project ``acme/app``
    merges its merge requests in the sample clone (or what ``repository`` makes at the
    path it is given)."""
    fake = FakeGitLab()
    fake.add_token(TOKEN, "ada")
    work = repository(tmp_path / "work")
    fake.add_project(PROJECT, repository=work)
    with fake.serve() as url:
        yield Site(work, fake, url)
