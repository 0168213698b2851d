"""Issues on Jira, merge requests on GitLab: ``ralph init --jira PROJ --gitlab
GROUP/PROJECT`` and ``ralph hero`` as a person runs them, real ``ralph`` processes
against FakeJira and FakeGitLab served on 127.0.0.1, GitLab merging in a bare
repository the work clone pushes to."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from ralph.demo._sample import create_sample_repository
from ralph.gitlab.fake import FakeGitLab
from ralph.gitlab.fake import _mr_model as _merge_requests
from ralph.jira.fake import FakeJira, ralph_statuses

from ..conftest import ralph_process
from .test_jira_shapes import EMAIL, TOKEN, Site, git

pytestmark = pytest.mark.timeout(600)

GITLAB_TOKEN = "glpat-jira-beside-gitlab"


@pytest.mark.slow
def test_hero_takes_the_demo_epic_to_done_on_jira_with_merge_requests_on_gitlab(tmp_path):
    jira = FakeJira()
    jira.add_account(EMAIL, TOKEN, "Ada Lovelace")
    jira.add_project("PROJ", "Project", ralph_statuses())
    work = create_sample_repository(tmp_path / "work")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(origin))
    git(work, "remote", "add", "origin", str(origin))
    gitlab = FakeGitLab()
    gitlab.add_token(GITLAB_TOKEN, "ada")
    gitlab.add_project("acme/greet", repository=origin)
    with jira.serve() as jira_url, gitlab.serve() as gitlab_url:
        served = Site(work, jira, jira_url)
        env = {"COLUMNS": "160", "RALPH_JIRA_TOKEN": TOKEN, "RALPH_GITLAB_TOKEN": GITLAB_TOKEN}

        def ralph(*args: str, timeout: float = 120):
            return ralph_process(*args, cwd=work, env=env, timeout=timeout)

        tests = shlex.join([sys.executable, "-m", "unittest", "-q"])
        made = ralph(
            "init",
            "--jira",
            "PROJ",
            "--jira-url",
            jira_url,
            "--jira-email",
            EMAIL,
            "--gitlab",
            "acme/greet",
            "--gitlab-url",
            gitlab_url,
            "--test-command",
            tests,
        )
        assert made.returncode == 0, made.stdout + made.stderr
        toml = (work / "ralph.toml").read_text()
        assert 'tracker = "jira"' in toml
        assert 'code_host = "gitlab"' in toml
        (work / "ralph.toml").write_text(
            toml.replace('runtime = "claude"', 'runtime = "scripted"').replace(
                'merge_policy = "approval"', 'merge_policy = "checks"'
            )
        )
        git(work, "add", "-A")
        git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Set up")
        git(work, "push", "-q", "origin", "main")

        run = ralph("hero", str(served.epic()), timeout=500)

        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        served.assert_epic_done()
        project = gitlab.state.project("acme/greet")
        merge_requests = list(_merge_requests.of(project).items.values())
        assert merge_requests
        assert {mr.state for mr in merge_requests} == {"merged"}
        assert all("Fixes PROJ-" in mr.description for mr in merge_requests)
        assert "def farewell" in git(Path(origin), "show", "main:greet/core.py")
        assert not project.issues  # every issue is on Jira
        assert gitlab.refused == []
        assert gitlab.internal_errors == []
