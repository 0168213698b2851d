"""The demo epic on Jira as a person runs it: ``ralph init --jira`` and ``ralph hero``
as real processes against FakeJira served on 127.0.0.1, with pull requests merged in
this repository or on a served FakeGitHub."""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from ralph.demo._sample import EPIC_BODY, EPIC_TITLE, create_sample_repository
from ralph.github.fake import FakeGitHub
from ralph.jira import JiraClient
from ralph.jira.fake import FakeJira, ralph_statuses
from ralph.tracker.jira import JiraTracker
from ralph.workflow import WorkflowState

from ..conftest import ralph_process

pytestmark = pytest.mark.timeout(600)

EMAIL, TOKEN = "ada@example.com", "jira-shapes-token"
GITHUB_TOKEN = "ghp_fake_token_for_jira_shapes"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@dataclass
class Site:
    work: Path
    jira: FakeJira
    url: str
    github: FakeGitHub | None = None
    github_url: str = ""
    origin: Path | None = None

    def ralph(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        env = {"COLUMNS": "160", "RALPH_JIRA_TOKEN": TOKEN}
        if self.github is not None:
            env |= {
                "RALPH_GH_API_URL": self.github_url,
                "RALPH_GH_TOKEN": GITHUB_TOKEN,
                "RALPH_GH_MUTATION_INTERVAL": "0.01",
            }
        return ralph_process(*args, cwd=self.work, env=env, timeout=timeout)

    def init(self, *options: str) -> subprocess.CompletedProcess[str]:
        """``ralph init --jira`` with ``options`` and the sample's tests, committed."""
        made = self.ralph_init(*options)
        self.commit_set_up()
        return made

    def ralph_init(self, *options: str) -> subprocess.CompletedProcess[str]:
        tests = shlex.join([sys.executable, "-m", "unittest", "-q"])
        site = ("--jira-url", self.url, "--jira-email", EMAIL)
        made = self.ralph("init", "--jira", "PROJ", *site, *options, "--test-command", tests)
        assert made.returncode == 0, made.stdout + made.stderr
        return made

    def commit_set_up(self) -> None:
        """What ``ralph init`` wrote, with scripted agents merging on passing checks,
        committed (and pushed to GitHub's clone)."""
        toml = self.work / "ralph.toml"
        text = toml.read_text().replace('runtime = "claude"', 'runtime = "scripted"')
        toml.write_text(text.replace('merge_policy = "approval"', 'merge_policy = "checks"'))
        git(self.work, "add", "-A")
        git(self.work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Set up")
        if self.origin is not None:
            git(self.work, "push", "-q", "origin", "main")

    def epic(self) -> int:
        tracker = JiraTracker(JiraClient(self.jira), "PROJ")
        made = tracker.create_issue(EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG)
        return made.number

    def assert_epic_done(self) -> None:
        issues = list(self.jira.site.issues.values())
        assert len(issues) == 4, [(i.key, i.summary) for i in issues]  # the epic, 3 children
        assert {i.status.name for i in issues} == {"Done"}, [(i.key, i.status) for i in issues]
        assert [i.issue_type.name for i in issues] == ["Task", "Subtask", "Subtask", "Subtask"]
        assert self.jira.internal_errors == []


@contextmanager
def site(
    tmp_path: Path,
    *,
    github: bool = False,
    repository: Callable[[Path], Path] = create_sample_repository,
) -> Iterator[Site]:
    """A served FakeJira (and FakeGitHub, whose ``acme/greet`` is a bare clone of the
    sample) and the sample repository (or what ``repository`` makes at the path it is
    given), not yet set up for Ralph."""
    jira = FakeJira()
    jira.add_account(EMAIL, TOKEN, "Ada Lovelace")
    jira.add_project("PROJ", "Project", ralph_statuses())
    work = repository(tmp_path / "work")
    with ExitStack() as stack:
        served = Site(work, jira, stack.enter_context(jira.serve()))
        if github:
            origin = tmp_path / "origin.git"
            git(tmp_path, "clone", "-q", "--bare", str(work), str(origin))
            git(work, "remote", "add", "origin", str(origin))
            fake = FakeGitHub()
            fake.add_token(GITHUB_TOKEN, "acme")
            fake.add_repository("acme/greet", git_path=origin)
            served.github, served.origin = fake, origin
            served.github_url = stack.enter_context(fake.serve())
        yield served
        if served.github is not None:
            assert served.github.internal_errors == []


def test_hero_takes_the_demo_epic_to_done_on_jira_with_local_pull_requests(tmp_path):
    with site(tmp_path) as served:
        served.init()
        run = served.ralph("hero", str(served.epic()), timeout=500)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        served.assert_epic_done()
        assert "def farewell" in git(served.work, "show", "main:greet/core.py")


def test_hero_takes_the_demo_epic_to_done_on_jira_with_pull_requests_on_github(tmp_path):
    with site(tmp_path, github=True) as served:
        made = served.init("--github", "acme/greet")
        assert "Pull requests: GitHub acme/greet, into main" in made.stdout
        run = served.ralph("hero", str(served.epic()), timeout=500)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        served.assert_epic_done()
        assert served.github is not None
        assert served.origin is not None
        pulls = served.github.repository("acme/greet").pull_list
        assert pulls
        assert {p.state for p in pulls} == {"MERGED"}
        assert all("Fixes PROJ-" in p.body for p in pulls), [p.body for p in pulls]
        assert "def farewell" in git(served.origin, "show", "main:greet/core.py")
        assert not served.github.repository("acme/greet").issue_list  # all on Jira
