"""The original's upkeep tools through an in-process MCP client, on the local tracker and
the fake GitHub: archiving, the hygiene report, the board's status updates and editing
the routing rules, each with the original's arguments and answers."""

from __future__ import annotations

import yaml

from ralph.workflow import WorkflowState

from .test_mcp_board_tools import board, one, refused

__all__ = ["board"]  # the fixture, shared with the board tools' tests

DAY = 86_400.0


def test_an_item_is_archived_off_the_lists_and_back(board):
    kept = board.tracker.create_issue("Kept", state=WorkflowState.BACKLOG)
    gone = board.tracker.create_issue("Gone", state=WorkflowState.DONE)
    archived = one(board, "archive_item", number=gone.number)
    assert archived == {"number": gone.number, "archived": True, "title": "Gone"}
    listed = one(board, "list_issues")
    assert [i["number"] for i in listed["items"]] == [kept.number]
    one(board, "archive_item", number=gone.number, unarchive=True)
    listed = one(board, "list_issues")
    assert sorted(i["number"] for i in listed["items"]) == [kept.number, gone.number]
    assert "Either number or projectItemId" in refused(board, "archive_item")
    assert "not both" in refused(board, "archive_item", number=1, projectItemId="x")
    assert "no issue on the board" in refused(board, "archive_item", projectItemId="nope")


def test_bulk_archive_takes_the_states_asked_and_dry_run_changes_nothing(board, clock):
    done = [board.tracker.create_issue(f"Done {i}", state=WorkflowState.DONE) for i in range(3)]
    board.tracker.create_issue("Open", state=WorkflowState.BACKLOG)
    clock.advance(30 * DAY)
    late = board.tracker.create_issue("Done late", state=WorkflowState.DONE)

    dry = one(board, "bulk_archive", workflowStates=["Done"], dryRun=True, maxItems=2)
    assert (dry["dryRun"], dry["wouldArchive"]) == (True, 2)
    assert [i["number"] for i in dry["items"]] == [done[0].number, done[1].number]
    assert len(one(board, "list_issues")["items"]) == 5  # nothing archived

    before = "1970-01-25T00:00:00Z"  # after the first three, before the late one
    real = one(board, "bulk_archive", workflowStates=["Done"], updatedBefore=before)
    assert (real["dryRun"], real["archivedCount"], real["errors"]) == (False, 3, [])
    left = [i["number"] for i in one(board, "list_issues")["items"]]
    assert sorted(left) == sorted([late.number, done[-1].number + 1])
    assert "Invalid updatedBefore date" in refused(
        board, "bulk_archive", workflowStates=["Done"], updatedBefore="soon"
    )
    assert "Nowhere" in refused(board, "bulk_archive", workflowStates=["Nowhere"])
    refused(board, "bulk_archive", workflowStates=[])


def test_the_hygiene_report_as_json_and_markdown(board, clock):
    board.tracker.create_issue("Add caching to API layer", state=WorkflowState.BACKLOG)
    board.tracker.create_issue("Add caching to API layers", state=WorkflowState.BACKLOG)
    board.tracker.create_issue("Shipped", state=WorkflowState.DONE)
    clock.advance(20 * DAY)
    report = one(board, "project_hygiene")
    assert [i["title"] for i in report["archiveCandidates"]] == ["Shipped"]
    (pair,) = report["duplicateCandidates"]
    assert {i["title"] for i in pair["items"]} == {
        "Add caching to API layer",
        "Add caching to API layers",
    }
    assert "formatted" not in report
    markdown = one(board, "project_hygiene", format="markdown", archiveDays=30)
    assert markdown["formatted"].startswith("# Project Hygiene Report")
    assert markdown["archiveCandidates"] == []
    refused(board, "project_hygiene", similarityThreshold=2)


def test_status_updates_are_created_changed_and_deleted(board):
    made = one(
        board,
        "create_status_update",
        status="AT_RISK",
        body="Two blockers.",
        startDate="2026-11-01",
        targetDate="2026-12-01",
    )
    assert (made["status"], made["body"], made["targetDate"]) == (
        "AT_RISK",
        "Two blockers.",
        "2026-12-01",
    )
    changed = one(board, "update_status_update", statusUpdateId=made["id"], status="ON_TRACK")
    assert (changed["status"], changed["body"]) == ("ON_TRACK", "Two blockers.")
    assert [u.status.value for u in board.tracker.list_status_updates() if u.status] == ["ON_TRACK"]
    assert one(board, "delete_status_update", statusUpdateId=made["id"])["deleted"] is True
    assert board.tracker.list_status_updates() == []
    refused(board, "create_status_update", status="FINE")
    assert "date" in refused(board, "create_status_update", status="ON_TRACK", startDate="May 1")
    refused(board, "delete_status_update", statusUpdateId=made["id"])


def test_routing_rules_are_edited_checked_whole_and_dry_run(board):
    routing = board.config.root / ".ralph-routing.yml"
    empty = one(board, "configure_routing", operation="list_rules")
    assert (empty["exists"], empty["rules"]) == (False, [])
    rule = {"match": {"labels": ["bug"]}, "action": {"workflowState": "Research Needed"}}
    added = one(board, "configure_routing", operation="add_rule", rule=rule)
    assert added["rules"] == [
        {
            "index": 0,
            "match": {"labels": {"any": ["bug"]}},
            "action": {"workflowState": "Research Needed"},
        }
    ]
    on_disk = yaml.safe_load(routing.read_text())
    assert on_disk["version"] == 1
    assert on_disk["rules"][0]["match"] == {"labels": {"any": ["bug"]}}

    bug = board.tracker.create_issue("Crash", labels=("bug",), state=WorkflowState.BACKLOG)
    dry = one(board, "configure_routing", operation="dry_run", issueNumber=bug.number)
    assert dry["dryRun"] is True
    (matched,) = dry["matchedRules"]
    assert matched["actions"] == {"workflowState": "Research Needed"}
    assert board.tracker.get_issue(bug.number).workflow_state is WorkflowState.BACKLOG

    text = routing.read_text()
    bad = {"match": {"labels": ["bug"]}, "action": {"workflowState": "Nowhere"}}
    assert "Nowhere" in refused(
        board, "configure_routing", operation="update_rule", ruleIndex=0, rule=bad
    )
    assert routing.read_text() == text  # refused whole: nothing written
    assert "has 1 (0 to 0)" in refused(
        board, "configure_routing", operation="remove_rule", ruleIndex=3
    )
    assert "outside the project" in refused(
        board, "configure_routing", operation="list_rules", configPath="../elsewhere.yml"
    )
    removed = one(board, "configure_routing", operation="remove_rule", ruleIndex=0)
    assert removed["rules"] == []
    assert one(board, "configure_routing", operation="validate_rules")["valid"] is True
    routing.write_text("version: 1\nrules: [{match: {}}]\n")
    checked = one(board, "configure_routing", operation="validate_rules")
    assert checked["valid"] is False
    assert ".ralph-routing.yml" in checked["errors"][0]
