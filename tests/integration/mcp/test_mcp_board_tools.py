"""The original's board-management tools through an in-process MCP client, on the local
tracker (SQLite) and on the fake GitHub (our GraphQL against GitHub's schema): what each
board has works, and what the local board lacks is a tool error saying what to use."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import TextContent

from ralph.config import Config, GitHubSettings
from ralph.db import SqliteDatabase
from ralph.git import GitRepo
from ralph.github.fake import FakeGitHub
from ralph.mcp import build_server
from ralph.project import Project
from ralph.tasks import open_store
from ralph.tracker import GitHubCodeHost, GitHubTracker, LocalCodeHost, LocalTracker
from ralph.workflow import Estimate, Priority, WorkflowState

from ..conftest import GitProject
from ..tracker.conftest import github_tracker


@pytest.fixture(params=["local", "github"])
def board(request, project: GitProject, clock, tmp_path: Path) -> Iterator[Project]:
    """A project on the local tracker or on a fake GitHub board (acme/project #1)."""
    git = GitRepo(project.path)
    if request.param == "local":
        db = SqliteDatabase(tmp_path / "ralph.db")
        tracker: Any = LocalTracker(db, repo="project", clock=clock)
        host = LocalCodeHost(db, repo="project", tracker=tracker, git=git, clock=clock)
        config = Config(root=project.path, repo="project")
        yield Project(config, tracker, host, open_store("memory://"), git)
        db.close()
        return
    tracker = github_tracker(project.path, clock)
    settings = GitHubSettings(owner="acme", repo="project", project=tracker.project_number)
    config = Config(root=project.path, repo="project", tracker="github", github=settings)
    yield Project(config, tracker, GitHubCodeHost.of(tracker), open_store("memory://"), git)
    fake = tracker.client.transport
    assert isinstance(fake, FakeGitHub)
    assert fake.internal_errors == []


def call(project: Project, *requests: tuple[str, dict[str, Any]]) -> list[tuple[bool, Any]]:
    """Each request answered in one session: (is_error, decoded JSON)."""

    async def main() -> list[tuple[bool, Any]]:
        answers = []
        async with Client(build_server(project)) as client:
            for name, arguments in requests:
                result = await client.call_tool(f"ralph_hero__{name}", arguments)
                content = result.content[0]
                assert isinstance(content, TextContent)
                answers.append((bool(result.is_error), json.loads(content.text)))
        return answers

    return anyio.run(main)


def one(project: Project, name: str, **arguments: Any) -> Any:
    ((failed, answer),) = call(project, (name, arguments))
    assert not failed, answer
    return answer


def refused(project: Project, name: str, **arguments: Any) -> str:
    ((failed, answer),) = call(project, (name, arguments))
    assert failed, answer
    error = answer["error"]
    assert error.startswith("Failed to ")
    assert "\n" not in error
    assert "Recovery:" in error
    return str(error)


def fake_of(project: Project) -> FakeGitHub:
    tracker = project.tracker
    assert isinstance(tracker, GitHubTracker)
    transport = tracker.client.transport
    assert isinstance(transport, FakeGitHub)
    return transport


def test_the_board_is_read_and_updated(board):
    got = one(board, "get_project")
    assert {"Workflow State", "Priority", "Estimate"} <= {f["name"] for f in got["fields"]}
    states = next(f for f in got["fields"] if f["name"] == "Workflow State")
    assert [o["name"] for o in states["options"]][:2] == ["Backlog", "Research Needed"]
    updated = one(board, "update_project", title="Shop work", shortDescription="What ships next")
    assert (updated["title"], updated["shortDescription"]) == ("Shop work", "What ships next")
    listed = one(board, "list_projects", state="all")
    assert "Shop work" in [p["title"] for p in listed["projects"]]
    closed = one(board, "update_project", closed=True)
    assert closed["closed"] is True
    assert one(board, "list_projects")["projects"] == []
    assert "at least one" in refused(board, "update_project")


def test_items_are_listed_in_board_order_filtered_and_reordered(board):
    tracker = board.tracker
    tracker.create_issue("One", state=WorkflowState.BACKLOG, priority=Priority.P1)
    tracker.create_issue("Two", state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.XS)
    tracker.create_issue("Three", state=WorkflowState.BACKLOG)
    every = one(board, "list_project_items")
    assert [i["number"] for i in every["items"]] == [1, 2, 3]
    assert one(board, "reorder_item", number=3) == {"number": 3, "position": "top"}
    assert one(board, "reorder_item", number=1, afterNumber=2)["position"] == "after #2"
    assert [i["number"] for i in one(board, "list_project_items")["items"]] == [3, 2, 1]
    triage = one(board, "list_project_items", profile="analyst-triage")
    assert sorted(i["number"] for i in triage["items"]) == [1, 3]
    missing = one(board, "list_project_items", no=["priority"], excludeWorkflowStates=["Backlog"])
    assert [i["number"] for i in missing["items"]] == [2]
    recent = one(board, "list_project_items", updatedSince="@today-1d", itemType="ISSUE")
    assert recent["filteredCount"] == 3
    assert "Invalid date expression" in refused(board, "list_project_items", updatedSince="soon")
    assert "not found" in refused(board, "reorder_item", number=99)


def test_drafts_are_made_with_their_fields(board):
    made = one(board, "create_draft_issue", title="Idea", body="Maybe", priority="P2", estimate="S")
    assert made["fieldsSet"] == ["priority", "estimate"]
    items = one(board, "list_project_items")["items"]
    (draft,) = [i for i in items if i["itemId"] == made["projectItemId"]]
    assert (draft["title"], draft["priority"], draft["estimate"]) == ("Idea", "P2", "S")
    if board.tracker.kind == "local":  # a draft is a Backlog issue here
        assert draft["type"] == "ISSUE"
        assert draft["workflowState"] == "Backlog"
        assert "update_issue" in refused(board, "update_draft_issue", draftIssueId="x", title="No")
        assert "already an issue" in refused(
            board, "convert_draft_issue", projectItemId=made["projectItemId"]
        )
        return
    assert draft["type"] == "DRAFT_ISSUE"
    renamed = one(board, "update_draft_issue", draftIssueId=made["draftIssueId"], title="Plan")
    assert renamed["title"] == "Plan"
    converted = one(board, "convert_draft_issue", projectItemId=made["projectItemId"])
    issue = board.tracker.get_issue(converted["number"])
    assert (issue.title, issue.body) == ("Plan", "Maybe")
    assert issue.priority is Priority.P2


def test_fields_are_cleared_but_the_workflow_state_only_moves_through_the_workflow(board):
    board.tracker.create_issue("One", state=WorkflowState.BACKLOG, estimate=Estimate.S)
    assert one(board, "clear_field", number=1, field="Estimate")["cleared"] is True
    assert board.tracker.get_issue(1).estimate is None
    assert "update_workflow_state" in refused(
        board, "clear_field", number=1, field="Workflow State"
    )
    assert "Nope" in refused(board, "clear_field", number=1, field="Nope")


def test_views_repositories_and_links(board):
    if board.tracker.kind == "github":
        fake = fake_of(board)
        fake.add_view(
            fake.world.accounts["acme"].projects[0], "Ralph Kanban", layout="BOARD_LAYOUT"
        )
        fake.add_repository("acme/docs")
    views = one(board, "list_views")["views"]
    expected = "Ralph Kanban" if board.tracker.kind == "github" else "analyst-triage"
    assert views[0]["name"] == expected
    assert (
        one(board, "list_project_repos")["repos"][0]["nameWithOwner"]
        == "acme/project"[0 if board.tracker.kind == "github" else len("acme/") :]
    )
    linked = one(board, "link_repository", repoToLink="docs")
    assert linked["changed"] is True
    assert one(board, "link_repository", repoToLink="docs")["changed"] is False
    repos = [r["repo"] for r in one(board, "list_project_repos")["repos"]]
    assert "docs" in repos
    assert one(board, "link_repository", repoToLink="docs", unlink=True)["changed"] is True
    assert "this server serves project" in refused(board, "list_views", number=99)


def test_batch_update_checks_every_value_first_then_moves_what_it_may(board):
    for title in ("One", "Two", "Three"):
        board.tracker.create_issue(title, state=WorkflowState.BACKLOG)
    board.tracker.set_state(3, "Research Needed")
    bad = refused(
        board,
        "batch_update",
        issues=[1, 2],
        operations=[{"field": "estimate", "value": "XXL"}],
    )
    assert "XXL" in bad
    assert board.tracker.get_issue(1).estimate is None
    done = one(
        board,
        "batch_update",
        issues=[1, 2, 3, 42],
        operations=[
            {"field": "workflow_state", "value": "Research Needed"},
            {"field": "estimate", "value": "XS"},
        ],
        skipIfAtOrPast=True,
    )
    assert [s["number"] for s in done["succeeded"]] == [1, 2]
    assert done["skipped"] == [{"number": 3, "reason": "Already at target state"}]
    assert done["errors"][0]["number"] == 42
    assert done["summary"] == {"total": 4, "succeeded": 2, "skipped": 1, "errors": 1}
    issue = board.tracker.get_issue(1)
    assert (issue.workflow_state, issue.estimate) == (WorkflowState.RESEARCH_NEEDED, Estimate.XS)
    assert "ralph_human" in issue.comments[-1].body  # audited like every move


def test_the_original_list_issues_filters(board):
    tracker = board.tracker
    tracker.create_issue("Login", state=WorkflowState.BACKLOG, priority=Priority.P0, labels=["ui"])
    tracker.create_issue("Logout", state=WorkflowState.BACKLOG, labels=["ui", "later"])
    tracker.create_issue("Cache", state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.S)
    tracker.close_issue(3)
    answers = call(
        board,
        ("list_issues", {"profile": "analyst-triage", "priority": "P0"}),
        ("list_issues", {"has": ["labels"], "excludeLabels": ["later"]}),
        ("list_issues", {"state": "CLOSED", "reason": "completed"}),
        ("list_issues", {"no": ["priority", "estimate"]}),
        ("list_issues", {"updatedSince": "@now-1h", "updatedBefore": "@now+1h"}),
        ("list_issues", {"profile": "nobody"}),
        ("list_issues", {"updatedBefore": "2026-13-45"}),
        ("list_issues", {"priority": "P9"}),
    )
    numbers = [[i["number"] for i in a["items"]] for _, a in answers[:5]]
    assert numbers == [[1], [1], [3], [2], [1, 2]]
    assert answers[2][1]["items"][0]["stateReason"] == "COMPLETED"
    assert all(failed for failed, _ in answers[5:])
    assert "Valid profiles" in answers[5][1]["error"]
    assert "Invalid date expression" in answers[6][1]["error"]
    assert "P9" in answers[7][1]["error"]


def test_what_only_github_has_is_refused_locally_with_what_to_use(board):
    requests: list[tuple[str, dict[str, Any]]] = [
        ("setup_project", {"owner": "acme"}),
        ("copy_project", {"sourceProjectNumber": 1, "title": "Copy"}),
        ("update_field_options", {"fieldName": "Size", "options": [{"name": "Big"}]}),
        ("delete_field", {"field": "Size", "confirm": True}),
        ("update_collaborators", {"collaborators": [{"username": "bob", "role": "READER"}]}),
        ("link_team", {"teamSlug": "core"}),
        ("sync_across_projects", {"number": 1, "workflowState": "Done"}),
    ]
    board.tracker.create_issue("One", state=WorkflowState.BACKLOG)
    answers = call(board, *requests)
    if board.tracker.kind == "local":
        for (name, _), (failed, answer) in zip(requests, answers, strict=True):
            assert failed, name
            assert "not available on the local tracker: " in answer["error"], name
        assert "close it" in refused(board, "remove_from_project", number=1)
        return
    # GitHub has them all: setup finds the board, the others act or name GitHub's refusal.
    (_, setup), (_, copied) = answers[0], answers[1]
    assert setup["project"]["title"] == "Ralph Workflow"
    assert copied["project"]["title"] == "Copy"


def test_github_fields_collaborators_teams_and_removal(board):
    if board.tracker.kind != "github":
        pytest.skip("GitHub's own")
    fake = fake_of(board)
    project_node = fake.world.accounts["acme"].projects[0]
    from ralph.github.fake._model import Field as FakeField

    project_node.field_list.append(FakeField(project_node, "Size", [{"name": "Small"}]))
    replaced = one(
        board,
        "update_field_options",
        fieldName="Size",
        options=[{"name": "Big", "color": "RED", "description": "Large"}],
    )
    assert [o["name"] for o in replaced["options"]] == ["Big"]
    assert "clear it on every item" in refused(
        board, "update_field_options", fieldName="Workflow State", options=[{"name": "X"}]
    )
    assert one(board, "delete_field", field="Size")["dryRun"] is True
    assert one(board, "delete_field", field="Size", confirm=True)["deleted"] is True
    assert "Size" not in [f.name for f in project_node.field_list]
    assert "cannot be deleted" in refused(board, "delete_field", field="Estimate", confirm=True)
    fake.world.account("bob")
    assert one(
        board, "update_collaborators", collaborators=[{"username": "bob", "role": "writer"}]
    ) == {"updated": 1}
    assert project_node.collaborators == {"bob": "WRITER"}
    assert "no GitHub user" in refused(
        board, "update_collaborators", collaborators=[{"username": "nobody", "role": "READER"}]
    )
    assert "teams belong to organisations" in refused(board, "link_team", teamSlug="core")
    board.tracker.create_issue("One")
    added = one(board, "add_to_project", number=1)
    assert one(board, "remove_from_project", number=1)["removed"] is True
    assert all(item.id != added["projectItemId"] for item in project_node.item_list)
    assert "Either number or projectItemId" in refused(board, "remove_from_project")


def test_sync_across_projects_sets_the_state_on_every_other_board(board):
    if board.tracker.kind != "github":
        pytest.skip("one board locally")
    from ralph.tracker import set_up_board

    tracker = board.tracker
    assert isinstance(tracker, GitHubTracker)
    tracker.create_issue("One", state=WorkflowState.IN_PROGRESS)
    other = set_up_board(tracker.client, "acme/project", title="Roadmap").board
    fake = fake_of(board)
    node = fake.world.nodes[tracker.board().project_id]
    assert node is not None
    one(board, "add_to_project", number=1)  # already there: nothing changes
    from ralph.github import queries as q

    issue_id = next(i.id for i in fake.repository("acme/project").issue_list if i.number == 1)
    tracker.client.mutate(
        q.ADD_PROJECT_ITEM, q.input_of(projectId=other.project_id, contentId=issue_id)
    )
    dry = one(board, "sync_across_projects", number=1, workflowState="In Progress", dryRun=True)
    assert dry["syncedCount"] == 1
    assert dry["synced"][0]["dryRun"] is True
    done = one(board, "sync_across_projects", number=1, workflowState="In Progress")
    assert done["synced"][0]["projectNumber"] == other.number
    assert {s["reason"] for s in done["skipped"]} == {"this_board"}
    assert done["auditCommentAdded"] is True
    again = one(board, "sync_across_projects", number=1, workflowState="In Progress")
    assert again["syncedCount"] == 0
    assert again["auditCommentAdded"] is False
    comments = [c.body for c in tracker.get_issue(1).comments]
    assert sum("Cross-project sync" in c for c in comments) == 1


def test_health_check_and_the_debug_log(board):
    health = one(board, "health_check")
    assert health["status"] == "ok", health
    assert set(health["checks"]) == {"auth", "repoAccess", "projectAccess", "requiredFields"}
    assert one(board, "debug_stats")["sessionsAnalyzed"] == 0
    collated = one(board, "collate_debug", dryRun=True)
    assert collated["sessionsAnalyzed"] == 0
    assert "not valid" in refused(board, "debug_stats", since="yesterday")
    assert "groupBy" in refused(board, "debug_stats", groupBy="week")


#: One valid call of every tool of the original's that works on an issue or the board
#: (the task store's are the same on every tracker: test_mcp_tools.py).
EVERY_TOOL: dict[str, dict[str, Any]] = {
    "health_check": {},
    "setup_project": {"owner": "acme"},
    "get_project": {},
    "list_projects": {},
    "copy_project": {"sourceProjectNumber": 1, "title": "Copy"},
    "list_project_items": {},
    "list_project_repos": {},
    "list_views": {},
    "update_field_options": {"fieldName": "Size", "options": [{"name": "Big"}]},
    "list_issues": {"profile": "analyst-triage"},
    "get_issue": {"number": 1},
    "create_issue": {"title": "Three", "workflowState": "Backlog"},
    "update_issue": {"number": 1, "title": "One again"},
    "update_workflow_state": {"number": 2, "state": "__LOCK__", "command": "ralph_research"},
    "update_estimate": {"number": 1, "estimate": "XS"},
    "update_priority": {"number": 1, "priority": "P1"},
    "create_comment": {"number": 1, "body": "Noted."},
    "detect_pipeline_position": {"number": 1},
    "check_convergence": {"number": 1, "targetState": "Ready for Plan"},
    "pick_actionable_issue": {"workflowState": "Backlog"},
    "add_sub_issue": {"parentNumber": 1, "childNumber": 2},
    "list_sub_issues": {"number": 1},
    "add_dependency": {"blockedNumber": 2, "blockingNumber": 1},
    "remove_dependency": {"blockedNumber": 2, "blockingNumber": 1},
    "list_dependencies": {"number": 2},
    "detect_group": {"number": 1},
    "detect_work_streams": {"issues": [{"number": 1, "files": ["a"], "blockedBy": []}]},
    "advance_children": {"number": 1, "targetState": "Research Needed"},
    "advance_parent": {"number": 2},
    "pipeline_dashboard": {"format": "ascii"},
    "detect_stream_positions": {
        "issues": [{"number": 1, "files": ["a"], "blockedBy": []}],
        "issueStates": [{"number": 1, "title": "One", "workflowState": "Backlog"}],
    },
    "batch_update": {"issues": [1], "operations": [{"field": "priority", "value": "P2"}]},
    "remove_from_project": {"number": 2},
    "add_to_project": {"number": 1},
    "link_repository": {"repoToLink": "project"},
    "clear_field": {"number": 1, "field": "Priority"},
    "create_draft_issue": {"title": "Draft"},
    "update_draft_issue": {"draftIssueId": "DI_none", "title": "x"},
    "convert_draft_issue": {"projectItemId": "PVTI_none"},
    "reorder_item": {"number": 2},
    "update_project": {"readme": "Read me."},
    "delete_field": {"field": "Size"},
    "update_collaborators": {"collaborators": [{"username": "acme", "role": "ADMIN"}]},
    "link_team": {"teamSlug": "core"},
    "sync_across_projects": {"number": 1, "workflowState": "Backlog", "dryRun": True},
    "collate_debug": {"dryRun": True},
    "debug_stats": {},
}
#: What the local board does not have: each answers "not available on the local tracker".
GITHUB_ONLY = {
    "setup_project",
    "copy_project",
    "update_field_options",
    "remove_from_project",
    "update_draft_issue",
    "convert_draft_issue",
    "delete_field",
    "update_collaborators",
    "link_team",
    "sync_across_projects",
}
#: Calls above that GitHub refuses in its own words (no such draft, team or field).
REFUSED_ON_GITHUB = {
    "update_draft_issue",
    "convert_draft_issue",
    "link_team",
    "update_field_options",
    "delete_field",
}


def test_every_tool_answers_on_both_trackers(board):
    board.tracker.create_issue("One", state=WorkflowState.BACKLOG)
    board.tracker.create_issue("Two", state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.XS)
    names = list(EVERY_TOOL)
    answers = call(board, *((name, EVERY_TOOL[name]) for name in names))
    for name, (failed, answer) in zip(names, answers, strict=True):
        local = board.tracker.kind == "local"
        if local and name in GITHUB_ONLY:
            assert failed, name
            assert "not available on the local tracker: " in answer["error"], (name, answer)
        elif not local and name in REFUSED_ON_GITHUB:
            assert failed, name
            assert "Recovery:" in answer["error"], (name, answer)
        else:
            assert not failed, (name, answer)
        if failed:
            assert "\n" not in answer["error"], name


MARKED = "[wip] Fix [/] the [bold]thing"


def test_titles_and_bodies_in_markup_are_kept_and_read_back_as_written(board):
    made = one(board, "create_issue", title=MARKED, body=f"[debug-auto] {MARKED}")
    number = made["number"]
    got = one(board, "get_issue", number=number)
    assert (got["title"], got["body"]) == (MARKED, f"[debug-auto] {MARKED}")
    listed = one(board, "list_issues")["items"]
    assert [i["title"] for i in listed if i["number"] == number] == [MARKED]
    updated = one(board, "update_issue", number=number, title=f"{MARKED} [link=x]y[/link]")
    assert updated["title"] == f"{MARKED} [link=x]y[/link]"
    draft = one(board, "create_draft_issue", title=f"[draft] {MARKED}")
    items = one(board, "list_project_items")["items"]
    assert [i["title"] for i in items if i["itemId"] == draft["projectItemId"]] == [
        f"[draft] {MARKED}"
    ]
