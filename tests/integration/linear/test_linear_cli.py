"""``ralph init --linear``, ``ralph doctor``, ``ralph issue`` and ``ralph status`` as a
person runs them: real ``ralph`` processes against FakeLinear served on 127.0.0.1."""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ralph.demo._sample import create_sample_repository
from ralph.linear.fake import FakeLinear
from ralph.workflow import WorkflowState

from ..conftest import ralph_process

pytestmark = pytest.mark.timeout(300)

TOKEN = "lin_api_cli_process_key"


@dataclass
class Served:
    fake: FakeLinear
    url: str

    def env(self, token: str = TOKEN) -> dict[str, str]:
        return {"COLUMNS": "160", "RALPH_LINEAR_API_URL": self.url, "RALPH_LINEAR_TOKEN": token}

    def ralph(self, *args: str, cwd: Path, token: str = TOKEN, timeout: float = 120):
        return ralph_process(*args, cwd=cwd, env=self.env(token), timeout=timeout)


@pytest.fixture
def served() -> Iterator[Served]:
    fake = FakeLinear()
    fake.add_token(TOKEN, "Ada Lovelace")
    fake.add_team("ENG", "Engineering")
    with fake.serve() as url:
        yield Served(fake, url)


def team_states(fake: FakeLinear) -> set[str]:
    return {s.name for s in fake.workspace.team("ENG").state_list}


def test_init_sets_the_team_up_and_writes_ralph_toml_without_the_key(served, project):
    made = served.ralph("init", "--linear", "eng", cwd=project.path)
    assert made.returncode == 0, made.stderr
    assert "Linear team ENG Engineering: created the states" in made.stdout
    toml = (project.path / "ralph.toml").read_text()
    assert 'tracker = "linear"' in toml
    assert 'code_host = "local"' in toml
    assert '[linear]\nteam = "ENG"' in toml
    assert TOKEN not in toml
    assert {s.value for s in WorkflowState} <= team_states(served.fake)


def test_init_again_changes_nothing(served, project):
    served.ralph("init", "--linear", "ENG", cwd=project.path)
    before = (project.path / "ralph.toml").read_text()
    served.fake.requests.clear()
    again = served.ralph("init", "--linear", "ENG", cwd=project.path)
    assert again.returncode == 0, again.stderr
    assert "has Ralph's workflow states" in again.stdout
    assert (project.path / "ralph.toml").read_text() == before
    assert served.fake.requests
    assert not [r for r in served.fake.requests if r.mutation]


def test_doctor_issue_new_list_and_status_work_on_the_team(served, project):
    assert served.ralph("init", "--linear", "ENG", cwd=project.path).returncode == 0
    doctor = served.ralph("doctor", "--agent", "scripted", cwd=project.path)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    for line in ("Linear API key: authenticated as Ada Lovelace", "team: ENG Engineering"):
        assert line in doctor.stdout, doctor.stdout
    assert "✗ Linear" not in doctor.stdout
    assert "✗ team" not in doctor.stdout
    assert "✗ estimates" not in doctor.stdout
    assert "✗ state" not in doctor.stdout
    new = served.ralph("issue", "new", "Greet people by name", "-e", "XS", cwd=project.path)
    assert new.returncode == 0, new.stderr
    assert new.stdout == "Created ENG-1: Greet people by name [Backlog]\n"
    said = served.ralph("issue", "comment", "1", "Looks right", cwd=project.path)
    assert said.stdout == "Commented on ENG-1\n", said.stderr
    listed = served.ralph("issue", "list", cwd=project.path)
    assert listed.returncode == 0, listed.stderr
    assert "Greet people by name" in listed.stdout
    status = served.ralph("status", cwd=project.path)
    assert status.returncode == 0, status.stderr
    assert "#1 XS Greet people by name" in status.stdout
    assert [i.title for i in served.fake.workspace.team("ENG").issue_list] == [
        "Greet people by name"
    ]


def test_a_wrong_key_is_one_line_and_a_failure(served, project):
    assert served.ralph("init", "--linear", "ENG", cwd=project.path).returncode == 0
    listed = served.ralph("issue", "list", cwd=project.path, token="lin_api_wrong")
    assert listed.returncode != 0
    assert len(listed.stderr.strip().splitlines()) == 1, listed.stderr
    assert "Traceback" not in listed.stderr


def test_init_without_a_key_names_both_variables_and_writes_nothing(served, project):
    made = ralph_process(
        "init", "--linear", "ENG", cwd=project.path, env={"RALPH_LINEAR_API_URL": served.url}
    )
    assert made.returncode != 0
    assert len(made.stderr.strip().splitlines()) == 1, made.stderr
    assert "RALPH_LINEAR_TOKEN" in made.stderr
    assert "LINEAR_API_KEY" in made.stderr
    assert not (project.path / "ralph.toml").exists()


@pytest.mark.slow
def test_hero_takes_an_xs_issue_to_done_merging_its_branch_here(tmp_path):
    # Linear's own budgets (an API key's 5,000 requests and 250,000 points an hour): the
    # run stays in the half of each that goes unpaced.
    fake = FakeLinear()
    fake.add_token(TOKEN, "Ada Lovelace")
    fake.add_team("ENG", "Engineering")
    work = create_sample_repository(tmp_path / "work")
    tests = shlex.join([sys.executable, "-m", "unittest", "-q"])
    with fake.serve() as url:
        served = Served(fake, url)
        assert (
            served.ralph("init", "--linear", "ENG", "--test-command", tests, cwd=work).returncode
            == 0
        )
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
        # The local pull request is found though the Linear issue links none.
        assert "Merged pull request #1 into main (" in run.stdout
        assert "closing ENG-1." in run.stdout
        # One hero run, XS, scripted agents: 35 requests (12 writes); 109 (24 writes)
        # before a snapshot kept its reads and a move took its comments along.
        assert len(fake.requests) - before <= 50
    (issue,) = fake.workspace.team("ENG").issue_list
    assert issue.state.name == "Done"
    log = subprocess.run(
        ["git", "log", "--oneline", "main"], cwd=work, capture_output=True, text=True, check=True
    ).stdout
    assert "Merge pull request #1" in log


def test_issue_show_reads_the_issue_then_all_its_relatives_in_one_request(served, project):
    assert served.ralph("init", "--linear", "ENG", cwd=project.path).returncode == 0
    assert served.ralph("issue", "new", "Epic", cwd=project.path).returncode == 0
    for title in ("First", "Second", "Third"):
        made = served.ralph("issue", "new", title, "--parent", "1", cwd=project.path)
        assert made.returncode == 0, made.stderr
    before = len(served.fake.requests)
    shown = served.ralph("issue", "show", "1", cwd=project.path)
    assert shown.returncode == 0, shown.stderr
    assert "Third" in shown.stdout
    names = [r.name for r in served.fake.requests[before:]]
    assert names == ["Team", "IssuesWithComments", "IssuesWithComments"]
