"""The MCP tools on a Linear team (the LinearTracker on FakeLinear, our GraphQL against
Linear's schema; pull requests on the local code host), through an in-process client.

The scope arguments are the team's (``team``; GitHub's owner, repo and projectNumber are
ignored). Every tool on issues, the pipeline and upkeep works as on the other trackers;
managing a project board is GitHub's, and each such tool refuses in one line saying so
and naming what to use instead; status updates are refused as Linear has none on a
team. Linear not answering is a tool error of one line, never an internal error."""

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

from ralph.config import Config, LinearSettings
from ralph.db import SqliteDatabase
from ralph.git import GitRepo
from ralph.linear import LinearClient
from ralph.linear.fake import FakeLinear, ScriptedFault
from ralph.project import Project, migrate_database
from ralph.tasks import open_store
from ralph.tracker import LocalCodeHost
from ralph.tracker.linear import NO_STATUS_UPDATES, LinearTracker, set_up_team
from ralph.tracker.linear._reads import stamp
from ralph.workflow import Estimate, WorkflowState

from ...conftest import FakeClock
from ..conftest import GitProject, ralph_environment, ralph_process
from .test_mcp_board_tools import EVERY_TOOL, call, one, refused

pytestmark = pytest.mark.timeout(120)

KEY = "lin_api_mcp_key"
#: The tools that manage a project board as a board: GitHub's (Projects V2).
GITHUBS = {
    "setup_project",
    "get_project",
    "list_projects",
    "copy_project",
    "update_project",
    "list_project_items",
    "list_project_repos",
    "list_views",
    "update_field_options",
    "delete_field",
    "add_to_project",
    "remove_from_project",
    "link_repository",
    "clear_field",
    "create_draft_issue",
    "update_draft_issue",
    "convert_draft_issue",
    "reorder_item",
    "update_collaborators",
    "link_team",
    "sync_across_projects",
}


@pytest.fixture
def fake(clock: FakeClock) -> FakeLinear:
    fake = FakeLinear(clock=clock)
    fake.add_token(KEY, "Ada Lovelace")
    fake.add_team("ENG", "Engineering")
    return fake


@pytest.fixture
def team(
    fake: FakeLinear, clock: FakeClock, project: GitProject, tmp_path: Path
) -> Iterator[Project]:
    client = LinearClient(fake, KEY, clock=clock, sleep=clock.advance)
    set_up_team(client, "ENG")
    tracker = LinearTracker(client, "ENG", clock=clock)
    db = SqliteDatabase(tmp_path / "ralph.db")
    migrate_database(db)
    git = GitRepo(project.path)
    host = LocalCodeHost(db, repo="ENG", tracker=tracker, git=git, clock=clock)
    config = Config(
        root=project.path, repo="ENG", tracker="linear", linear=LinearSettings(team="ENG")
    )
    yield Project(config, tracker, host, open_store("memory://"), git)
    db.close()
    assert fake.internal_errors == []


def test_every_tool_answers_and_githubs_own_refuse_naming_what_to_use(team: Project) -> None:
    team.tracker.create_issue("One", state=WorkflowState.BACKLOG)
    team.tracker.create_issue("Two", state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.XS)
    names = list(EVERY_TOOL)
    assert set(names) >= GITHUBS
    answers = call(team, *((name, EVERY_TOOL[name]) for name in names))
    for name, (failed, answer) in zip(names, answers, strict=True):
        if name in GITHUBS:
            assert failed, name
            error = answer["error"]
            assert "\n" not in error, name
            assert "managing a project board is GitHub's (Projects V2), not the Linear " in error
            instead = error.split("not the Linear team ENG's: ")[1].split(". Recovery:")[0]
            assert instead, (name, error)
            assert "internal error" not in error
        else:
            assert not failed, (name, answer)


@pytest.mark.parametrize(
    ("name", "arguments", "instead"),
    [
        ("list_project_items", {}, "list the team's issues with list_issues"),
        ("add_to_project", {"number": 1}, "every issue of the team is on its board"),
        ("create_draft_issue", {"title": "Draft"}, "create an issue with create_issue"),
        ("reorder_item", {"number": 1}, "order the team's issues in Linear's own views"),
        ("link_repository", {"repoToLink": "acme/greet"}, "the code host in ralph.toml"),
        ("setup_project", {"owner": "acme"}, "`ralph init --linear TEAM`"),
        ("sync_across_projects", {"number": 1, "workflowState": "Backlog"}, "update_workflow"),
    ],
)
def test_a_board_tool_names_the_tool_to_use_instead(
    team: Project, name: str, arguments: dict[str, Any], instead: str
) -> None:
    team.tracker.create_issue("One", state=WorkflowState.BACKLOG)
    assert instead in refused(team, name, **arguments)


def test_the_scope_is_the_team_and_githubs_arguments_are_ignored(team: Project) -> None:
    team.tracker.create_issue("One", state=WorkflowState.BACKLOG)
    right, wrong, github, health = call(
        team,
        ("get_issue", {"number": 1, "team": "ENG"}),
        ("get_issue", {"number": 1, "team": "OPS"}),
        ("get_issue", {"number": 1, "owner": "acme", "repo": "greet", "projectNumber": 3}),
        ("health_check", {}),
    )
    assert not right[0]
    assert right[1]["title"] == "One"
    assert wrong[0]
    assert "team 'OPS' is not this server's ('ENG')" in wrong[1]["error"]
    assert not github[0]
    assert not health[0]
    assert health[1]["status"] == "ok", health
    assert health[1]["config"]["team"] == "ENG"
    assert health[1]["config"]["tracker"] == "linear"


def test_status_updates_are_refused_as_a_team_has_none(team: Project) -> None:
    for name, arguments in [
        ("create_status_update", {"status": "ON_TRACK", "body": "Fine."}),
        ("update_status_update", {"statusUpdateId": "SU_1", "body": "Fine."}),
        ("delete_status_update", {"statusUpdateId": "SU_1"}),
    ]:
        assert NO_STATUS_UPDATES in refused(team, name, **arguments)


def test_archiving_and_hygiene_work_on_the_team(team: Project, fake: FakeLinear) -> None:
    for title in ("Done one", "Done two"):
        done = team.tracker.create_issue(title, state=WorkflowState.DONE, estimate=Estimate.XS)
        team.tracker.close_issue(done.number)
    team.tracker.create_issue("Open", state=WorkflowState.BACKLOG, estimate=Estimate.S)
    hygiene = one(team, "project_hygiene")
    assert hygiene["totalItems"] == 3
    assert one(team, "archive_item", number=1) == {
        "number": 1,
        "archived": True,
        "title": "Done one",
    }
    bulk = one(team, "bulk_archive", workflowStates=["Done"])
    assert [i["number"] for i in bulk["items"]] == [2]
    archived = {i.number for i in fake.workspace.team("ENG").issue_list if i.archivedAt}
    assert archived == {1, 2}
    listed = one(team, "list_issues")["items"]
    assert [i["number"] for i in listed] == [3]
    dashboard = one(team, "pipeline_dashboard", format="markdown")
    assert dashboard["totalIssues"] == 1


def test_linear_not_answering_is_a_tool_error_of_one_line(team: Project, fake: FakeLinear) -> None:
    team.tracker.create_issue("One", state=WorkflowState.BACKLOG)
    fake.script(*[ScriptedFault.server_error("IssueWithComments")] * 4)
    error = refused(team, "get_issue", number=1)
    assert error.startswith("Failed to get issue: Linear did not answer IssueWithComments")
    assert "internal error" not in error
    assert one(team, "get_issue", number=1)["title"] == "One"


@pytest.mark.slow
def test_ralph_mcp_over_stdio_serves_the_team_and_refuses_a_board_tool(
    project: GitProject,
) -> None:
    """``ralph mcp`` as Claude Code starts it, in a project ``ralph init --linear`` set
    up, reaching FakeLinear over HTTP with the key from the environment."""
    served = FakeLinear()
    served.add_token(KEY, "Ada Lovelace")
    served.add_team("ENG", "Engineering")
    with served.serve() as url:
        env = {"RALPH_LINEAR_API_URL": url, "RALPH_LINEAR_TOKEN": KEY}
        made = ralph_process("init", "--linear", "ENG", cwd=project.path, env=env)
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
                for name, arguments in [
                    ("get_issue", {"number": 1, "team": "ENG"}),
                    ("list_project_items", {}),
                ]:
                    result = await client.call_tool(f"ralph_hero__{name}", arguments)
                    content = result.content[0]
                    assert isinstance(content, TextContent)
                    answers.append((bool(result.is_error), json.loads(content.text)))
            return answers

        (got_failed, got), (items_failed, items) = anyio.run(session)
    assert not got_failed, got
    assert got["title"] == "Greet by name"
    assert items_failed
    assert "managing a project board is GitHub's (Projects V2)" in items["error"]
    assert "list_issues" in items["error"]
    assert served.internal_errors == []


def test_list_issues_of_every_state_has_the_issues_closed_long_ago(
    team: Project, fake: FakeLinear, clock: FakeClock
) -> None:
    old = team.tracker.create_issue("Old", state=WorkflowState.DONE, estimate=Estimate.XS)
    team.tracker.close_issue(old.number)
    team.tracker.create_issue("Open", state=WorkflowState.BACKLOG)
    clock.advance(90 * 86400)
    fake.workspace.issue(f"ENG-{old.number}").updatedAt = stamp(clock() - 90 * 86400)
    every = one(team, "list_issues", state="ALL")
    assert {i["number"] for i in every["items"]} == {1, 2}
    assert every["totalCount"] == 2
    closed = one(team, "list_issues", state="CLOSED")
    assert [i["number"] for i in closed["items"]] == [old.number]
