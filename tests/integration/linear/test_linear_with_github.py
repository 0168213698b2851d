"""Issues on Linear, pull requests on GitHub: ``ralph init --linear TEAM --github
OWNER/REPO``, ``ralph doctor`` and ``ralph hero`` as a person runs them, real ``ralph``
processes against FakeLinear and FakeGitHub served on 127.0.0.1."""

from __future__ import annotations

import pytest

from ._shapes import GITHUB_TOKEN, LINEAR_KEY, git, shop

pytestmark = pytest.mark.timeout(300)


def test_init_writes_linear_as_tracker_and_github_as_code_host(tmp_path):
    with shop(tmp_path, github=True) as served:
        made = served.ralph("init", "--linear", "ENG", "--github", "acme/greet")
        assert made.returncode == 0, made.stderr
        assert "Pull requests: GitHub acme/greet, into main" in made.stdout
        toml = (served.work / "ralph.toml").read_text()
        for line in (
            'tracker = "linear"',
            'code_host = "github"',
            '[linear]\nteam = "ENG"',
            '[github]\nowner = "acme"\nrepo = "greet"\n',
            'repo = "greet"',
        ):
            assert line in toml, toml
        assert "project =" not in toml  # no board: the issues are on Linear
        assert GITHUB_TOKEN not in toml
        assert LINEAR_KEY not in toml
        again = served.ralph("init", "--linear", "ENG", "--github", "acme/greet")
        assert again.returncode == 0, again.stderr
        assert (served.work / "ralph.toml").read_text() == toml


def test_doctor_checks_linear_and_the_github_repository(tmp_path):
    with shop(tmp_path, github=True) as served:
        assert served.ralph("init", "--linear", "ENG", "--github", "acme/greet").returncode == 0
        doctor = served.ralph("doctor", "--agent", "scripted")
        assert "team: ENG Engineering" in doctor.stdout, doctor.stdout
        assert "✓ token: authenticated as acme" in doctor.stdout, doctor.stdout
        assert "✓ repository: acme/greet" in doctor.stdout, doctor.stdout
        assert "✗" not in doctor.stdout, doctor.stdout
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        wrong = served.ralph("doctor", "--agent", "scripted", RALPH_GH_TOKEN="ghp_not_known")
        assert wrong.returncode == 1
        assert "✗ token: GitHub does not accept" in wrong.stdout, wrong.stdout


def test_init_with_a_repository_the_token_cannot_see_writes_nothing(tmp_path):
    with shop(tmp_path, github=True) as served:
        made = served.ralph("init", "--linear", "ENG", "--github", "acme/nothing")
        assert made.returncode != 0
        assert len(made.stderr.strip().splitlines()) == 1, made.stderr
        assert "repository acme/nothing not found" in made.stderr
        assert not (served.work / "ralph.toml").exists()
        # Linear was not touched either: the repository is checked first.
        assert "Human Needed" not in {
            s.name for s in served.linear.workspace.team("ENG").state_list
        }


def test_init_without_a_github_token_asks_for_one_that_may_merge_and_writes_nothing(tmp_path):
    with shop(tmp_path, github=True) as served:
        made = served.ralph("init", "--linear", "ENG", "--github", "acme/greet", RALPH_GH_TOKEN="")
        assert made.returncode != 0
        assert len(made.stderr.strip().splitlines()) == 1, made.stderr
        assert "no GitHub token: set RALPH_GH_TOKEN" in made.stderr
        assert "merge its pull requests" in made.stderr
        assert not (served.work / "ralph.toml").exists()


def test_init_with_linear_refuses_a_board_number(tmp_path):
    with shop(tmp_path, github=True) as served:
        made = served.ralph("init", "--linear", "ENG", "--github", "acme/greet", "--project", "2")
        assert made.returncode != 0
        assert len(made.stderr.strip().splitlines()) == 1, made.stderr
        assert "--project is for a GitHub board" in made.stderr
        assert not (served.work / "ralph.toml").exists()


@pytest.mark.slow
@pytest.mark.timeout(660)
def test_hero_takes_the_epic_to_done_on_linear_with_pull_requests_merged_on_github(tmp_path):
    with shop(tmp_path, github=True) as served:
        served.init("--github", "acme/greet")
        epic = served.epic()

        run = served.ralph("hero", str(epic), timeout=600)

        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        served.assert_epic_done(epic)
        assert served.github is not None
        assert served.origin is not None
        pulls = served.github.repository("acme/greet").pull_list
        assert pulls
        assert {p.state for p in pulls} == {"MERGED"}
        assert "def farewell" in git(served.origin, "show", "main:greet/core.py")
        # No issue went to GitHub: they are all on Linear.
        assert not served.github.repository("acme/greet").issue_list
