"""A fake GitHub on 127.0.0.1 and the ``ralph`` command pointed at it."""

from __future__ import annotations

import shlex
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ralph.demo._sample import create_sample_repository
from ralph.github import GitHubClient, HttpTransport, Pacer, PacingPolicy, Tokens
from ralph.github.fake import FakeGitHub
from ralph.tracker import GitHubTracker, set_up_board

from ...conftest import FakeClock
from ..conftest import GitProject, ralph_process

TOKEN = "ghp_fake_token_for_tests"


class Clock(FakeClock):
    """The suite's clock, which the client's sleeps move too; every sleep is recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(round(seconds, 3))
            self.now += seconds


@pytest.fixture
def clock() -> Clock:
    """For the tests here, the suite's ``clock`` with the client's sleeps on it."""
    return Clock()


@pytest.fixture
def github(clock: Clock) -> FakeGitHub:
    """GitHub in memory on ``clock``: user ``ralph`` (token ``token``) and ``acme/shop``."""
    fake = FakeGitHub(clock=clock)
    fake.add_token("token", "ralph")
    fake.add_repository("acme/shop")
    return fake


@dataclass
class Served:
    fake: FakeGitHub
    url: str

    def env(self, token: str | None = TOKEN, **extra: str) -> dict[str, str]:
        """The settings of a ``ralph`` process pointed at this GitHub (no token: None)."""
        # Mutations 50 ms apart instead of GitHub's second: pacing has its own tests.
        env = {"COLUMNS": "120", "RALPH_GH_API_URL": self.url, "RALPH_GH_MUTATION_INTERVAL": "0.05"}
        if token is not None:
            env["RALPH_GH_TOKEN"] = token
        return {**env, **extra}

    def ralph(self, *args: str, cwd: Path, env: dict[str, str] | None = None, timeout=120):
        return ralph_process(*args, cwd=cwd, env=env or self.env(), timeout=timeout)


@pytest.fixture
def served(project) -> Iterator[Served]:
    """GitHub with user ``acme`` owning ``acme/shop``, whose git side is ``project``."""
    fake = FakeGitHub()
    fake.add_token(TOKEN, "acme")
    fake.add_repository("acme/shop", git_path=project.path)
    with fake.serve() as url:
        yield Served(fake, url)
    assert fake.internal_errors == []


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def shop(tmp_path):
    """The sample repository, its remote (GitHub's side of it) and a fake GitHub."""
    work = create_sample_repository(tmp_path / "work")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(origin))
    git(work, "remote", "add", "origin", str(origin))
    fake = FakeGitHub()
    fake.add_token(TOKEN, "acme")
    fake.add_repository("acme/greet", git_path=origin)
    with fake.serve() as url:
        yield work, origin, Served(fake, url)
    assert fake.internal_errors == []


def tracker_of(fake: FakeGitHub) -> GitHubTracker:
    pacer = Pacer(PacingPolicy(mutation_interval=0))
    return GitHubTracker(
        GitHubClient(fake, Tokens(TOKEN), pacer=pacer), owner="acme", repo="greet", project=1
    )


def ralph_on_the_board(work: Path, served: Served) -> dict[str, str]:
    """``ralph init --github`` for ``shop``, with the scripted agents and the sample's
    tests, committed and pushed; returns the environment to run ``ralph`` in."""
    env = served.env(RALPH_GH_MUTATION_INTERVAL="0.01")
    test_command = shlex.join([sys.executable, "-m", "unittest", "-q"])
    made = served.ralph(
        "init", "--github", "acme/greet", "--test-command", test_command, cwd=work, env=env
    )
    assert made.returncode == 0, made.stderr
    toml = work / "ralph.toml"
    # Scripted agents; and merges when the checks pass, as these tests are about the
    # pipeline: reviews on GitHub (merge_policy = "approval", init's default for a GitHub
    # board) have tests of their own (test_pull_request_loop_on_github.py).
    text = toml.read_text().replace('runtime = "claude"', 'runtime = "scripted"')
    toml.write_text(text.replace('merge_policy = "approval"', 'merge_policy = "checks"'))
    git(work, "add", "-A")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Set up Ralph")
    git(work, "push", "-q", "origin", "main")
    return env


REVIEWER_TOKEN = "ghp_fake_token_of_a_reviewer"


@dataclass
class PullRequests:
    """GitHub on 127.0.0.1 with ``acme/shop`` (its git side: ``project``), a board, Ralph's
    token (user ``ralph``) and a reviewer's (``alice``); GitHub's clock is ``clock``."""

    fake: FakeGitHub
    url: str
    clock: FakeClock
    project: GitProject
    board: int = 1

    def tracker(self, token: str = TOKEN) -> GitHubTracker:
        """A tracker over HTTP; its client waits on the fake clock."""
        clock = self.clock
        pacer = Pacer(PacingPolicy(mutation_interval=0), clock=clock, sleep=clock.advance)
        client = GitHubClient(
            HttpTransport(self.url), Tokens(token), pacer=pacer, clock=clock, sleep=clock.advance
        )
        return GitHubTracker(client, owner="acme", repo="shop", project=self.board, clock=clock)

    def requests(self, since: int = 0) -> list[str]:
        return [r.name for r in self.fake.requests[since:]]


@pytest.fixture
def pulls(project, clock) -> Iterator[PullRequests]:
    fake = FakeGitHub(clock=clock)
    fake.add_token(TOKEN, "ralph")
    fake.add_token(REVIEWER_TOKEN, "alice")
    fake.add_repository("acme/shop", git_path=project.path)
    with fake.serve() as url:
        world = PullRequests(fake, url, clock, project)
        world.board = set_up_board(world.tracker().client, "acme/shop").board.number
        yield world
    assert fake.internal_errors == []
