"""``ralph hero`` carries the sample epic to merged code on a (fake) GitHub board: the
same run as ``ralph demo``, with issues, fields, sub-issues and pull requests on GitHub
and the pull requests merged on GitHub's side (a bare repository, the remote)."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ralph.demo._sample import EPIC_BODY, EPIC_TITLE, create_sample_repository
from ralph.github import GitHubClient, Pacer, PacingPolicy, Tokens
from ralph.github.fake import FakeGitHub
from ralph.tracker import GitHubTracker
from ralph.workflow import WorkflowState

from .conftest import TOKEN, Served

pytestmark = pytest.mark.slow


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


def test_hero_takes_the_epic_from_backlog_to_merged_on_github(shop):
    work, origin, served = shop
    env = served.env(RALPH_GH_MUTATION_INTERVAL="0.01")
    test_command = shlex.join([sys.executable, "-m", "unittest", "-q"])
    made = served.ralph(
        "init", "--github", "acme/greet", "--test-command", test_command, cwd=work, env=env
    )
    assert made.returncode == 0, made.stderr
    toml = work / "ralph.toml"
    toml.write_text(toml.read_text().replace('runtime = "claude"', 'runtime = "scripted"'))
    git(work, "add", "-A")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Set up Ralph")
    git(work, "push", "-q", "origin", "main")
    epic = tracker_of(served.fake).create_issue(
        EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG
    )

    run = served.ralph("hero", str(epic.number), cwd=work, env=env, timeout=600)

    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    tracker = tracker_of(served.fake)
    root = tracker.get_issue(epic.number)
    assert len(root.sub_issues) == 3
    family = [root, *(tracker.get_issue(n) for n in root.sub_issues)]
    assert {i.workflow_state for i in family} == {WorkflowState.DONE}
    assert all(not i.is_open for i in family[1:])
    board = served.fake.world.accounts["acme"].projects[0]
    status = next(f for f in board.field_list if f.name == "Status")
    done = next(o["id"] for o in status.option_list if o["name"] == "Done")
    assert all(item.values.get(status.id) == done for item in board.item_list)
    pulls = served.fake.repository("acme/greet").pull_list
    assert pulls
    assert {p.state for p in pulls} == {"MERGED"}
    assert "def farewell" in git(origin, "show", "main:greet/core.py")
    assert git(work, "rev-parse", "main") == git(origin, "rev-parse", "main")
    assert not [r for r in served.fake.requests if r.status not in (200,)]
