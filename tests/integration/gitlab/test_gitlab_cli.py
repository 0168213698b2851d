"""``ralph init --gitlab``, ``ralph doctor``, ``ralph issue`` and ``ralph hero`` as a person
runs them: real ``ralph`` processes against FakeGitLab served on 127.0.0.1."""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ralph.demo._sample import create_sample_repository
from ralph.gitlab.fake import FakeGitLab
from ralph.sandbox import probe

from ..conftest import ralph_process

pytestmark = pytest.mark.timeout(300)

TOKEN = "glpat-cli-process-token"


@dataclass
class Served:
    fake: FakeGitLab
    url: str

    def env(self, token: str = TOKEN) -> dict[str, str]:
        env = {"COLUMNS": "160", "RALPH_GITLAB_TOKEN": token}
        if not probe().available:  # no bubblewrap here: the test command runs unconfined
            env["RALPH_ALLOW_UNSANDBOXED"] = "true"
        return env

    def ralph(self, *args: str, cwd: Path, token: str = TOKEN, timeout: float = 120):
        return ralph_process(*args, cwd=cwd, env=self.env(token), timeout=timeout)

    def init(self, cwd: Path, *more: str):
        return self.ralph("init", "--gitlab", "acme/app", "--gitlab-url", self.url, *more, cwd=cwd)


@pytest.fixture
def served() -> Iterator[Served]:
    fake = FakeGitLab()
    fake.add_token(TOKEN, "ada")
    fake.add_project("acme/app", default_branch="main")
    with fake.serve() as url:
        yield Served(fake, url)


def test_init_sets_the_labels_up_and_writes_ralph_toml_without_the_token(served, project):
    made = served.init(project.path)
    assert made.returncode == 0, made.stderr
    assert "gitlab tracker (repo app)" in made.stdout
    assert "GitLab project acme/app: created 20 of Ralph's labels" in made.stdout
    toml = (project.path / "ralph.toml").read_text()
    assert 'tracker = "gitlab"' in toml
    assert f'[gitlab]\nproject = "acme/app"\nurl = "{served.url}"' in toml
    assert TOKEN not in toml
    labels = served.fake.state.project("acme/app").labels
    assert {"ralph::Backlog", "ralph::Done", "ralph-estimate::XS"} <= set(labels)
    assert served.fake.refused == []


def test_init_again_changes_nothing(served, project):
    served.init(project.path)
    before = (project.path / "ralph.toml").read_text()
    served.fake.requests.clear()
    again = served.init(project.path)
    assert again.returncode == 0
    assert "GitLab project acme/app: has Ralph's labels" in again.stdout
    assert (project.path / "ralph.toml").read_text() == before
    assert [r.method for r in served.fake.requests if r.method != "GET"] == []


def test_doctor_issue_new_and_list_work_on_the_project(served, project):
    assert served.init(project.path).returncode == 0
    doctor = served.ralph("doctor", "--agent", "scripted", cwd=project.path)
    assert "gitlab (project acme/app); readable" in doctor.stdout, doctor.stdout
    assert "Ralph's workflow labels are there" in doctor.stdout
    new = served.ralph("issue", "new", "Greet people by name", "-e", "XS", cwd=project.path)
    assert new.returncode == 0, new.stderr
    listed = served.ralph("issue", "list", cwd=project.path)
    assert listed.returncode == 0, listed.stderr
    assert "Greet people by name" in listed.stdout
    (issue,) = served.fake.state.project("acme/app").issues.values()
    assert "ralph-estimate::XS" in issue.labels


def test_a_wrong_token_is_one_line_and_a_failure(served, project):
    assert served.init(project.path).returncode == 0
    listed = served.ralph("issue", "list", cwd=project.path, token="glpat-wrong")
    assert listed.returncode != 0
    assert len(listed.stderr.strip().splitlines()) == 1, listed.stderr
    assert "Traceback" not in listed.stderr
    assert "glpat-wrong" not in listed.stderr


def test_init_with_a_refused_token_or_no_token_is_one_line_and_writes_nothing(served, project):
    refused = served.ralph(
        "init", "--gitlab", "acme/app", "--gitlab-url", served.url, cwd=project.path, token="x"
    )
    assert refused.returncode != 0
    assert refused.stderr.strip().removeprefix("ralph: error: ").splitlines() == [
        f"GitLab at {served.url} refused the token in RALPH_GITLAB_TOKEN; create a personal "
        "access token with the api scope and set RALPH_GITLAB_TOKEN to it"
    ]
    bare = ralph_process("init", "--gitlab", "acme/app", cwd=project.path, env={})
    assert bare.returncode != 0
    assert "RALPH_GITLAB_TOKEN" in bare.stderr
    assert len(bare.stderr.strip().splitlines()) == 1, bare.stderr
    assert not (project.path / "ralph.toml").exists()


def test_an_unknown_project_or_a_url_without_the_project_is_one_line(served, project):
    missing = served.ralph(
        "init", "--gitlab", "acme/nope", "--gitlab-url", served.url, cwd=project.path
    )
    assert missing.returncode != 0
    assert "acme/nope" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1, missing.stderr
    alone = served.ralph("init", "--gitlab-url", served.url, cwd=project.path)
    assert alone.returncode != 0
    assert "--gitlab GROUP/PROJECT" in alone.stderr
    assert not (project.path / "ralph.toml").exists()


@pytest.mark.slow
def test_hero_takes_an_xs_issue_to_done_merging_its_branch_here(tmp_path):
    fake = FakeGitLab()
    fake.add_token(TOKEN, "ada")
    work = create_sample_repository(tmp_path / "work")
    # GitLab holds the merge requests too, merging in this repository as on its side.
    fake.add_project("acme/app", repository=work)
    tests = shlex.join([sys.executable, "-m", "unittest", "-q"])
    with fake.serve() as url:
        served = Served(fake, url)
        assert served.init(work, "--test-command", tests).returncode == 0
        subprocess.run(["git", "add", "-A"], cwd=work, check=True)
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Set up"],
            cwd=work,
            check=True,
        )
        new = served.ralph("issue", "new", "Add a farewell function", "-e", "XS", cwd=work)
        assert new.returncode == 0, new.stderr
        before = len(fake.requests)
        run = served.ralph("hero", "1", "--agent", "scripted", cwd=work, timeout=280)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        assert "Merged pull request #1 into main (" in run.stdout
        merged = subprocess.run(
            ["git", "log", "-1", "--format=%s", "main"], cwd=work, capture_output=True, text=True
        )
        assert merged.stdout.startswith("Merge branch 'feature/GH-1' into 'main'")
        used = len(fake.requests) - before
        # One hero run, XS, scripted agents, GitLab merge requests: 155 requests (24
        # writes; 126 with local pull requests); 419 before a step's reads were kept in a
        # snapshot.
        assert used <= 170, used
    (issue,) = fake.state.project("acme/app").issues.values()  # type: ignore[union-attr]
    assert "ralph::Done" in issue.labels
    assert issue.state == "closed"
    assert fake.refused == []
    assert fake.internal_errors == []


def test_gitlab_issues_beside_github_pull_requests_close_by_url(tmp_path, monkeypatch):
    from ralph.config import load_config
    from ralph.project._backends import BACKENDS

    (tmp_path / "ralph.toml").write_text(
        'tracker = "gitlab"\ncode_host = "github"\n'
        '[github]\nowner = "acme"\nrepo = "app"\n'
        '[gitlab]\nproject = "acme/app"\nurl = "https://git.example.com"\n'
    )
    monkeypatch.setenv("RALPH_GITLAB_TOKEN", TOKEN)
    config = load_config(tmp_path, env={})
    opener = BACKENDS["gitlab"].open_tracker
    assert opener is not None
    with opener(config, None, None) as tracker:  # type: ignore[arg-type]
        assert tracker.closing_words(3) == "Closes https://git.example.com/acme/app/-/issues/3"


def test_init_writes_gitlab_as_tracker_and_github_as_code_host(served, tmp_path):
    from ralph.github.fake import FakeGitHub

    work = create_sample_repository(tmp_path / "work")
    github = FakeGitHub()
    github.add_token("ghp_gitlab_beside_github", "acme")
    github.add_repository("acme/greet", git_path=work)
    with github.serve() as github_url:
        env = {
            "RALPH_GH_API_URL": github_url,
            "RALPH_GH_TOKEN": "ghp_gitlab_beside_github",
            **served.env(),
        }
        made = ralph_process(
            "init",
            *("--gitlab", "acme/app", "--gitlab-url", served.url, "--github", "acme/greet"),
            *("--code-host", "github"),  # both hold code: GitHub has the pull requests
            cwd=work,
            env=env,
        )
    assert made.returncode == 0, made.stderr
    assert "Pull requests: GitHub acme/greet" in made.stdout
    toml = (work / "ralph.toml").read_text()
    assert 'tracker = "gitlab"' in toml
    assert 'code_host = "github"' in toml
    assert github.internal_errors == []


def test_init_with_gitlab_and_github_asks_which_holds_the_code_writing_nothing(served, project):
    """Both hold code: without --code-host, ralph init cannot tell which has the issues."""
    made = served.ralph(
        "init",
        *("--gitlab", "acme/app", "--gitlab-url", served.url, "--github", "acme/greet"),
        cwd=project.path,
    )
    assert made.returncode != 0
    assert len(made.stderr.strip().splitlines()) == 1, made.stderr
    assert "--code-host" in made.stderr
    assert not (project.path / "ralph.toml").exists()


@pytest.mark.slow
def test_team_takes_the_demo_epic_to_done_on_gitlab_merging_each_branch_here(tmp_path):
    from ralph.demo._sample import EPIC_BODY, EPIC_TITLE
    from ralph.gitlab import GitLabClient
    from ralph.tracker.gitlab import GitLabTracker
    from ralph.workflow import WorkflowState

    fake = FakeGitLab()
    fake.add_token(TOKEN, "ada")
    work = create_sample_repository(tmp_path / "work")
    fake.add_project("acme/app", repository=work)  # merge requests merge here
    tests = shlex.join([sys.executable, "-m", "unittest", "-q"])
    with fake.serve() as url:
        served = Served(fake, url)
        assert served.init(work, "--test-command", tests).returncode == 0
        toml = work / "ralph.toml"
        toml.write_text(toml.read_text().replace('runtime = "claude"', 'runtime = "scripted"'))
        subprocess.run(["git", "add", "-A"], cwd=work, check=True)
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Set up"],
            cwd=work,
            check=True,
        )
        tracker = GitLabTracker(GitLabClient(fake, TOKEN), "acme/app")
        epic = tracker.create_issue(EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG)
        before = len(fake.requests)
        run = served.ralph("team", str(epic.number), cwd=work, timeout=280)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        used = len(fake.requests) - before
        # The demo epic and its three sub-issues, scripted agents, GitLab merge requests.
        assert used <= 700, used
        print(f"requests for the demo epic (team) on GitLab: {used}")
        core = subprocess.run(
            ["git", "show", "main:greet/core.py"], cwd=work, capture_output=True, text=True
        )
        assert "def farewell" in core.stdout
        issues = list(fake.state.project("acme/app").issues.values())  # type: ignore[union-attr]
        assert len(issues) == 4
        assert all("ralph::Done" in i.labels and i.state == "closed" for i in issues)
        assert fake.refused == []
        assert fake.internal_errors == []
