"""The sample project with its issues on a served FakeLinear and, when asked, its pull
requests on a served FakeGitHub (a bare repository as GitHub's side): what the tests of
each pipeline shape on Linear start from, and the ``ralph`` processes they run."""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ralph.demo._sample import EPIC_BODY, EPIC_TITLE, create_sample_repository
from ralph.github.fake import FakeGitHub
from ralph.linear import LinearClient
from ralph.linear.fake import FakeLinear
from ralph.tracker.linear import LinearTracker
from ralph.workflow import WorkflowState

from ..conftest import ralph_process, spawn_ralph

LINEAR_KEY = "lin_api_shapes_key"
GITHUB_TOKEN = "ghp_fake_token_for_linear_shapes"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@dataclass
class Shop:
    """The sample repository ``work``; Linear at ``linear_url``; with GitHub, the fake
    and its side of the repository (``origin``)."""

    work: Path
    linear: FakeLinear
    linear_url: str
    github: FakeGitHub | None = None
    github_url: str = ""
    origin: Path | None = None
    extra: dict[str, str] = field(default_factory=dict)

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            "COLUMNS": "160",
            "RALPH_LINEAR_API_URL": self.linear_url,
            "RALPH_LINEAR_TOKEN": LINEAR_KEY,
        }
        if self.github is not None:
            # Mutations 10 ms apart instead of GitHub's second: pacing has its own tests.
            env |= {
                "RALPH_GH_API_URL": self.github_url,
                "RALPH_GH_TOKEN": GITHUB_TOKEN,
                "RALPH_GH_MUTATION_INTERVAL": "0.01",
            }
        return {**env, **self.extra, **extra}

    def ralph(
        self, *args: str, timeout: float = 120, **extra: str
    ) -> subprocess.CompletedProcess[str]:
        return ralph_process(*args, cwd=self.work, env=self.env(**extra), timeout=timeout)

    def spawn(self, *args: str, **extra: str) -> subprocess.Popen[str]:
        return spawn_ralph(*args, cwd=self.work, env=self.env(**extra))

    def tracker(self) -> LinearTracker:
        """Linear as Ralph sees it, in this process (the fake is a transport too)."""
        return LinearTracker(LinearClient(self.linear, LINEAR_KEY), "ENG")

    def init(self, *options: str) -> None:
        """``ralph init --linear ENG`` with the sample's tests and scripted agents,
        committed (and pushed to GitHub's side)."""
        tests = shlex.join([sys.executable, "-m", "unittest", "-q"])
        made = self.ralph("init", "--linear", "ENG", *options, "--test-command", tests)
        assert made.returncode == 0, made.stdout + made.stderr
        toml = self.work / "ralph.toml"
        # Scripted agents; and merges when the checks pass, as these tests are about the
        # pipeline: reviews on GitHub have tests of their own.
        text = toml.read_text().replace('runtime = "claude"', 'runtime = "scripted"')
        toml.write_text(text.replace('merge_policy = "approval"', 'merge_policy = "checks"'))
        git(self.work, "add", "-A")
        git(self.work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Set up")
        if self.origin is not None:
            git(self.work, "push", "-q", "origin", "main")

    def epic(self) -> int:
        """The demo epic in Backlog on Linear; its number."""
        issue = self.tracker().create_issue(EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG)
        return issue.number

    def assert_epic_done(self, number: int) -> list[int]:
        """The epic and its three sub-issues (each with the epic as parent) all Done on
        Linear; the sub-issues' numbers."""
        team = self.linear.workspace.team("ENG")
        by_number = {i.number: i for i in team.issue_list}
        epic = by_number[number]
        children = [i for i in team.issue_list if i.parent is epic]
        assert len(children) == 3, [(i.number, i.title) for i in team.issue_list]
        states = {i.number: i.state.name for i in (epic, *children)}
        assert set(states.values()) == {"Done"}, states
        return [c.number for c in children]


@contextmanager
def shop(tmp_path: Path, *, github: bool = False) -> Iterator[Shop]:
    """The sample repository with its issues on a served FakeLinear (team ENG) and,
    with ``github``, its pull requests on a served FakeGitHub (``acme/greet``)."""
    linear = FakeLinear()  # Linear's own budgets
    linear.add_token(LINEAR_KEY, "Ada Lovelace")
    linear.add_team("ENG", "Engineering")
    work = create_sample_repository(tmp_path / "work")
    with ExitStack() as stack:
        linear_url = stack.enter_context(linear.serve())
        served = Shop(work, linear, linear_url)
        if github:
            origin = tmp_path / "origin.git"
            git(tmp_path, "clone", "-q", "--bare", str(work), str(origin))
            git(work, "remote", "add", "origin", str(origin))
            fake = FakeGitHub()
            fake.add_token(GITHUB_TOKEN, "acme")
            fake.add_repository("acme/greet", git_path=origin)
            served.github = fake
            served.github_url = stack.enter_context(fake.serve())
            served.origin = origin
        yield served
        if served.github is not None:
            assert served.github.internal_errors == []
