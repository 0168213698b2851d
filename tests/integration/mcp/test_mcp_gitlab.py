"""The MCP tools on a GitLab project (the GitLabTracker on FakeGitLab, requests checked
against GitLab's OpenAPI document; its merge requests as the code host), through an
in-process client: every tool on issues, the pipeline and upkeep answers; what GitLab
lacks (a GitHub Projects board, status updates) is refused in one line naming it, and
archiving is Ralph's label."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ralph.config import Config, GitLabSettings
from ralph.git import GitRepo
from ralph.gitlab import GitLabClient
from ralph.gitlab.fake import FakeGitLab
from ralph.project import Project
from ralph.tasks import open_store
from ralph.tracker.gitlab import ARCHIVED, NO_STATUS_UPDATES, GitLabCodeHost, GitLabTracker
from ralph.workflow import Estimate, WorkflowState

from ...conftest import FakeClock
from ..conftest import GitProject
from .test_mcp_board_tools import EVERY_TOOL, call, one, refused
from .test_mcp_linear import GITHUBS

pytestmark = pytest.mark.timeout(120)

TOKEN = "glpat-mcp-token"
#: What GitLab has not: status updates on a project.
GITLABS_GAPS = [
    ("create_status_update", {"status": "ON_TRACK", "body": "Fine."}),
    ("update_status_update", {"statusUpdateId": "SU_1", "body": "Fine."}),
    ("delete_status_update", {"statusUpdateId": "SU_1"}),
]


@pytest.fixture
def fake(clock: FakeClock, project: GitProject) -> FakeGitLab:
    fake = FakeGitLab(clock=clock)
    fake.add_token(TOKEN, "ada")
    fake.add_project("acme/app", repository=project.path)
    return fake


@pytest.fixture
def gitlab(fake: FakeGitLab, clock: FakeClock, project: GitProject) -> Iterator[Project]:
    client = GitLabClient(fake, TOKEN, clock=clock, sleep=clock.advance)
    tracker = GitLabTracker(client, "acme/app", clock=clock)
    host = GitLabCodeHost.of(tracker)
    settings = GitLabSettings(project="acme/app")
    config = Config(root=project.path, repo="app", tracker="gitlab", services={"gitlab": settings})
    yield Project(config, tracker, host, open_store("memory://"), GitRepo(project.path))
    assert fake.internal_errors == []
    assert fake.refused == []


def test_every_tool_answers_or_refuses_in_one_line_what_gitlab_lacks(gitlab: Project) -> None:
    gitlab.tracker.create_issue("One", state=WorkflowState.BACKLOG)
    gitlab.tracker.create_issue("Two", state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.XS)
    names = list(EVERY_TOOL)
    answers = call(gitlab, *((name, EVERY_TOOL[name]) for name in names))
    wrong = []
    for name, (failed, answer) in zip(names, answers, strict=True):
        if failed != (name in GITHUBS):
            wrong.append((name, answer))
        elif failed:
            error = answer["error"]
            assert "\n" not in error, name
            said = "managing a project board is GitHub's (Projects V2), not the GitLab project "
            assert said in error, (name, error)
    assert wrong == []


def test_the_scope_is_the_project_and_health_names_gitlab(gitlab: Project) -> None:
    gitlab.tracker.create_issue("One", state=WorkflowState.BACKLOG)
    got, health = call(gitlab, ("get_issue", {"number": 1}), ("health_check", {}))
    assert not got[0]
    assert got[1]["title"] == "One"
    assert not health[0]
    assert health[1]["status"] == "ok", health
    assert health[1]["config"]["tracker"] == "gitlab"


@pytest.mark.parametrize(("name", "arguments"), GITLABS_GAPS)
def test_status_updates_are_refused_in_one_line(
    gitlab: Project, name: str, arguments: dict[str, object]
) -> None:
    said = refused(gitlab, name, **arguments)
    assert NO_STATUS_UPDATES in said
    assert "\n" not in said


def test_archiving_marks_the_issue_and_lists_leave_it_out(
    gitlab: Project, fake: FakeGitLab
) -> None:
    done = gitlab.tracker.create_issue("Done one", state=WorkflowState.DONE)
    gitlab.tracker.close_issue(done.number)
    gitlab.tracker.create_issue("Open", state=WorkflowState.BACKLOG, estimate=Estimate.S)
    bulk = one(gitlab, "bulk_archive", workflowStates=["Done"])
    assert bulk["archivedCount"] == 1, bulk
    stored = fake.state.project("acme/app")
    assert stored is not None
    assert ARCHIVED in stored.issues[done.number].labels
    assert [i["number"] for i in one(gitlab, "list_issues")["items"]] == [2]


def test_hygiene_and_the_dashboard_work_on_the_project(gitlab: Project) -> None:
    done = gitlab.tracker.create_issue("Done one", state=WorkflowState.DONE, estimate=Estimate.XS)
    gitlab.tracker.close_issue(done.number)
    gitlab.tracker.create_issue("Open", state=WorkflowState.BACKLOG, estimate=Estimate.S)
    assert one(gitlab, "project_hygiene")["totalItems"] == 2
    assert one(gitlab, "pipeline_dashboard", format="markdown")["totalIssues"] == 2
    assert [i["number"] for i in one(gitlab, "list_issues")["items"]] == [2]
