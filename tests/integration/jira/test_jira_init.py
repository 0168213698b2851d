"""``ralph init --jira PROJECT --jira-url URL --jira-email EMAIL``: the [jira] table with
every state's status written for the person to edit, and ``ralph doctor`` on it; when
Jira cannot be reached, refuses the token or has no such project, one line with the fix
and nothing written."""

from __future__ import annotations

import socket
import tomllib
from collections.abc import Iterator

import pytest

from ralph.errors import ConfigError
from ralph.jira.fake import FakeJira, ScriptedFault, ralph_statuses
from ralph.project import init_project

from ..conftest import ralph_process
from .conftest import EMAIL, TOKEN

pytestmark = pytest.mark.timeout(120)

ENV = {"RALPH_JIRA_TOKEN": TOKEN, "RALPH_JIRA_EMAIL": EMAIL}


@pytest.fixture
def served() -> Iterator[str]:
    fake = FakeJira()
    fake.add_account(EMAIL, TOKEN, "ralph")
    fake.add_project("PROJ", "Project", ralph_statuses())
    with fake.serve() as url:
        yield url


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_init_writes_the_jira_table_and_doctor_checks_the_project(served, project):
    made = ralph_process(
        "init",
        "--jira",
        "proj",
        "--jira-url",
        served,
        "--jira-email",
        EMAIL,
        cwd=project.path,
        env={"RALPH_JIRA_TOKEN": TOKEN},
    )
    assert made.returncode == 0, made.stderr
    assert f"Jira project PROJ Project at {served}" in made.stdout
    assert "no status for" not in made.stdout
    written = tomllib.loads((project.path / "ralph.toml").read_text())
    assert written["tracker"] == "jira"
    assert written["jira"]["project"] == "PROJ"
    assert (written["jira"]["url"], written["jira"]["email"]) == (served, EMAIL)
    assert written["jira"]["statuses"]["In Review"] == "In Review"
    assert TOKEN not in (project.path / "ralph.toml").read_text()
    doctor = ralph_process("doctor", cwd=project.path, env={"RALPH_JIRA_TOKEN": TOKEN})
    assert "✓ tracker: jira (project PROJ, Project); readable" in doctor.stdout
    assert "✓ jira statuses" in doctor.stdout


def test_init_in_process_on_the_fake(project, clock):
    fake = FakeJira(clock=clock)
    fake.add_account(EMAIL, TOKEN, "ralph")
    fake.add_project("OPS", "Operations")
    result = init_project(
        project.path,
        services={"jira": "OPS"},
        transports={"jira": fake},
        env={**ENV, "RALPH_JIRA_URL": "https://acme.atlassian.net"},
    )
    assert result.config.tracker == "jira"
    assert result.created_config
    # Jira's own statuses only: what Ralph's states lack is said, and mapped in the file.
    assert result.notes[0] == "Jira project OPS Operations at https://acme.atlassian.net"
    assert "no status for Backlog, Research Needed" in result.notes[1]
    assert "[jira.statuses]" in result.notes[1]
    written = tomllib.loads((project.path / "ralph.toml").read_text())
    assert written["jira"]["statuses"]["Backlog"] == "Backlog"


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"RALPH_JIRA_TOKEN": TOKEN, "RALPH_JIRA_EMAIL": EMAIL}, "--jira-url"),
        ({"RALPH_JIRA_TOKEN": TOKEN, "RALPH_JIRA_URL": "https://a.atlassian.net"}, "--jira-email"),
        (
            {"RALPH_JIRA_EMAIL": EMAIL, "RALPH_JIRA_URL": "https://a.atlassian.net"},
            "RALPH_JIRA_TOKEN",
        ),
    ],
)
def test_what_init_lacks_is_said_before_anything_is_asked_or_written(project, env, says):
    with pytest.raises(ConfigError, match=says):
        init_project(project.path, services={"jira": "PROJ"}, env=env)
    assert not (project.path / "ralph.toml").exists()


def test_an_unreachable_site_is_one_line_with_the_fix_and_nothing_written(project):
    url = f"http://127.0.0.1:{_closed_port()}"
    made = ralph_process("init", "--jira", "PROJ", "--jira-url", url, cwd=project.path, env=ENV)
    assert made.returncode != 0
    assert made.stderr.strip().splitlines() == [made.stderr.strip()], made.stderr
    assert f"cannot reach Jira at {url}" in made.stderr
    assert "Traceback" not in made.stderr
    assert not (project.path / "ralph.toml").exists()


def test_a_refused_token_says_where_to_make_one_and_changes_nothing(served, project):
    made = ralph_process(
        "init",
        "--jira",
        "PROJ",
        "--jira-url",
        served,
        cwd=project.path,
        env={**ENV, "RALPH_JIRA_TOKEN": "wrong-token-123"},
    )
    assert made.returncode != 0
    assert made.stderr.strip().splitlines() == [made.stderr.strip()], made.stderr
    assert "Jira refused ralph@example.com with the API token in RALPH_JIRA_TOKEN" in made.stderr
    assert "wrong-token-123" not in made.stderr
    assert not (project.path / "ralph.toml").exists()


def test_a_project_jira_does_not_have_is_said_and_nothing_written(served, project):
    made = ralph_process("init", "--jira", "NOPE", "--jira-url", served, cwd=project.path, env=ENV)
    assert made.returncode != 0
    assert "no Jira project NOPE" in made.stderr
    assert not (project.path / "ralph.toml").exists()


def test_init_again_keeps_the_file_and_refuses_another_project(project, clock):
    fake = FakeJira(clock=clock)
    fake.add_account(EMAIL, TOKEN, "ralph")
    fake.add_project("OPS", "Operations", ralph_statuses())
    env = {**ENV, "RALPH_JIRA_URL": "https://acme.atlassian.net"}
    init_project(project.path, services={"jira": "OPS"}, transports={"jira": fake}, env=env)
    written = (project.path / "ralph.toml").read_text()
    again = init_project(project.path, services={"jira": "ops"}, transports={"jira": fake}, env=env)
    assert not again.created_config
    with pytest.raises(ConfigError, match='does not name this project; set tracker = "jira"'):
        init_project(project.path, services={"jira": "WEB"}, transports={"jira": fake}, env=env)
    assert (project.path / "ralph.toml").read_text() == written


def test_text_from_jira_reaches_the_terminal_without_control_characters(project, clock):
    fake = FakeJira(clock=clock)
    fake.add_account(EMAIL, TOKEN, "ralph")
    fake.add_project("OPS", "Ops\x1b]0;owned\x07\x1b[2J\nteam")
    result = init_project(
        project.path,
        services={"jira": "OPS"},
        transports={"jira": fake},
        env={**ENV, "RALPH_JIRA_URL": "https://acme.atlassian.net"},
    )
    assert result.notes[0].startswith("Jira project OPS Ops")
    for note in result.notes:
        assert not {"\x1b", "\x07", "\n"} & set(note), note


def test_init_waits_each_answer_briefly_and_not_out_a_long_rate_limit(project, monkeypatch):
    import ralph.jira
    from ralph.jira import JiraRateLimited

    fake = FakeJira()
    fake.add_account(EMAIL, TOKEN, "ralph")
    fake.add_project("OPS", "Operations", ralph_statuses())
    timeouts: list[float] = []

    class Https:
        def __init__(self, url: str, email: str, token: str, *, timeout: float = 30.0) -> None:
            timeouts.append(timeout)

        def send(self, request):
            return fake.send(request)

        def close(self) -> None:
            return None

    monkeypatch.setattr(ralph.jira, "HttpsTransport", Https)
    env = {**ENV, "RALPH_JIRA_URL": "https://acme.atlassian.net"}
    fake.faults.append(ScriptedFault.rate_limited("GET /rest/api/3/project", retry_after=900))
    with pytest.raises(JiraRateLimited, match="900 s wait"):
        init_project(project.path, services={"jira": "OPS"}, env=env)
    assert timeouts == [10.0]
    assert not (project.path / "ralph.toml").exists()
