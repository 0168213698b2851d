"""The MCP tools on a Jira project (the JiraTracker on FakeJira, requests checked
against Jira's OpenAPI document; pull requests on the local code host), through an
in-process client: every tool on issues, the pipeline and upkeep answers; what Jira
lacks (a GitHub Projects board, status updates, archiving) is refused in one line
naming it."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from ralph.config import Config, JiraSettings
from ralph.db import SqliteDatabase
from ralph.git import GitRepo
from ralph.jira import JiraClient
from ralph.jira.fake import FakeJira, ScriptedFault, ralph_statuses
from ralph.project import Project, migrate_database
from ralph.tasks import open_store
from ralph.tracker import LocalCodeHost
from ralph.tracker.jira import NO_ARCHIVE, NO_STATUS_UPDATES, JiraTracker
from ralph.workflow import Estimate, WorkflowState

from ...conftest import FakeClock
from ..conftest import GitProject, ralph_environment, ralph_process
from .test_mcp_board_tools import EVERY_TOOL, call, one, refused
from .test_mcp_linear import GITHUBS

pytestmark = pytest.mark.timeout(120)

EMAIL, TOKEN = "ada@example.com", "jira-mcp-token"
#: What Jira has not, and the words that say so: status updates, and archiving (Jira
#: Cloud's is on Premium plans only).
JIRAS_GAPS = [
    ("create_status_update", {"status": "ON_TRACK", "body": "Fine."}, NO_STATUS_UPDATES),
    ("update_status_update", {"statusUpdateId": "SU_1", "body": "Fine."}, NO_STATUS_UPDATES),
    ("delete_status_update", {"statusUpdateId": "SU_1"}, NO_STATUS_UPDATES),
    ("archive_item", {"number": 1}, NO_ARCHIVE),
]
#: What Jira's hierarchy refuses of EVERY_TOOL's calls: a Task under a Task.
HIERARCHY = {"add_sub_issue": "Jira puts a standard issue (a Task) such as PROJ-2 only under"}


@pytest.fixture
def fake(clock: FakeClock) -> FakeJira:
    fake = FakeJira(clock=clock)
    fake.add_account(EMAIL, TOKEN, "Ada Lovelace")
    fake.add_project("PROJ", "Project", ralph_statuses())
    return fake


@pytest.fixture
def jira(
    fake: FakeJira, clock: FakeClock, project: GitProject, tmp_path: Path
) -> Iterator[Project]:
    tracker = JiraTracker(JiraClient(fake, clock=clock, sleep=clock.advance), "PROJ", clock=clock)
    db = SqliteDatabase(tmp_path / "ralph.db")
    migrate_database(db)
    git = GitRepo(project.path)
    host = LocalCodeHost(db, repo="PROJ", tracker=tracker, git=git, clock=clock)
    settings = JiraSettings(url="https://acme.atlassian.net", project="PROJ", email=EMAIL)
    config = Config(root=project.path, repo="PROJ", tracker="jira", services={"jira": settings})
    yield Project(config, tracker, host, open_store("memory://"), git)
    db.close()
    assert fake.internal_errors == []


def test_every_tool_answers_or_refuses_in_one_line_what_jira_lacks(jira: Project) -> None:
    jira.tracker.create_issue("One", state=WorkflowState.BACKLOG)
    jira.tracker.create_issue("Two", state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.XS)
    names = list(EVERY_TOOL)
    answers = call(jira, *((name, EVERY_TOOL[name]) for name in names))
    wrong = []
    for name, (failed, answer) in zip(names, answers, strict=True):
        if failed != (name in GITHUBS or name in HIERARCHY):
            wrong.append((name, answer))
        elif name in HIERARCHY:
            assert HIERARCHY[name] in answer["error"], answer
            assert "\n" not in answer["error"]
        elif failed:
            error = answer["error"]
            assert "\n" not in error, name
            said = "managing a project board is GitHub's (Projects V2), not the Jira project "
            assert said in error, (name, error)
            instead = error.split("not the Jira project PROJ's: ")[1].split(". Recovery:")[0]
            assert instead, (name, error)
    assert wrong == []


def test_the_scope_is_the_project_and_health_names_jira(jira: Project) -> None:
    jira.tracker.create_issue("One", state=WorkflowState.BACKLOG)
    got, health = call(jira, ("get_issue", {"number": 1}), ("health_check", {}))
    assert not got[0]
    assert got[1]["title"] == "One"
    assert not health[0]
    assert health[1]["status"] == "ok", health
    assert health[1]["config"]["tracker"] == "jira"


@pytest.mark.parametrize(("name", "arguments", "said"), JIRAS_GAPS)
def test_what_jira_lacks_is_refused_in_one_line_naming_it(
    jira: Project, name: str, arguments: dict[str, Any], said: str
) -> None:
    done = jira.tracker.create_issue("Done one", state=WorkflowState.DONE)
    jira.tracker.close_issue(done.number)
    assert said in refused(jira, name, **arguments)


def test_bulk_archive_names_each_issue_jira_will_not_archive(jira: Project) -> None:
    done = jira.tracker.create_issue("Done one", state=WorkflowState.DONE)
    jira.tracker.close_issue(done.number)
    bulk = one(jira, "bulk_archive", workflowStates=["Done"])
    assert bulk["archivedCount"] == 0
    assert bulk["errors"] == [f"#1: {NO_ARCHIVE}"]


def test_hygiene_and_the_dashboard_work_on_the_project(jira: Project) -> None:
    done = jira.tracker.create_issue("Done one", state=WorkflowState.DONE, estimate=Estimate.XS)
    jira.tracker.close_issue(done.number)
    jira.tracker.create_issue("Open", state=WorkflowState.BACKLOG, estimate=Estimate.S)
    assert one(jira, "project_hygiene")["totalItems"] == 2
    assert one(jira, "pipeline_dashboard", format="markdown")["totalIssues"] == 2
    assert [i["number"] for i in one(jira, "list_issues")["items"]] == [2]


def test_jira_not_answering_is_a_tool_error_of_one_line(jira: Project, fake: FakeJira) -> None:
    jira.tracker.create_issue("One", state=WorkflowState.BACKLOG)
    fake.faults.extend([ScriptedFault.server_error("GET /rest/api/3/issue/PROJ-1")] * 4)
    error = refused(jira, "get_issue", number=1)
    assert error.startswith("Failed to get issue: Jira did not answer GET /rest/api/3/issue/PROJ-1")
    assert "internal error" not in error
    assert one(jira, "get_issue", number=1)["title"] == "One"


@pytest.mark.slow
def test_ralph_mcp_over_stdio_serves_the_project_and_refuses_a_board_tool(
    project: GitProject,
) -> None:
    """``ralph mcp`` as Claude Code starts it, in a project ``ralph init --jira`` set up,
    reaching FakeJira over HTTP with the token from the environment."""
    served = FakeJira()
    served.add_account(EMAIL, TOKEN, "Ada Lovelace")
    served.add_project("PROJ", "Project", ralph_statuses())
    with served.serve() as url:
        env = {"RALPH_JIRA_TOKEN": TOKEN}
        site = ("--jira-url", url, "--jira-email", EMAIL)
        made = ralph_process("init", "--jira", "PROJ", *site, cwd=project.path, env=env)
        assert made.returncode == 0, made.stderr
        new = ralph_process("issue", "new", "Greet by name", "-e", "XS", cwd=project.path, env=env)
        assert new.returncode == 0, new.stderr
        server = StdioServerParameters(
            command=sys.executable,
            args=["-m", "ralph", "mcp"],
            cwd=str(project.path),
            env=ralph_environment(env),
        )

        async def session() -> list[tuple[bool, Any]]:
            answers = []
            async with Client(server) as client:
                for name, arguments in [("get_issue", {"number": 1}), ("list_project_items", {})]:
                    result = await client.call_tool(f"ralph_hero__{name}", arguments)
                    content = result.content[0]
                    assert isinstance(content, TextContent)
                    answers.append((bool(result.is_error), json.loads(content.text)))
            return answers

        (got_failed, got), (items_failed, items) = anyio.run(session)
    assert not got_failed, got
    assert got["title"] == "Greet by name"
    assert items_failed
    assert "not the Jira project PROJ's: list the project's issues" in items["error"]
    assert served.internal_errors == []
