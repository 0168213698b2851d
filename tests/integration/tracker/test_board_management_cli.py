"""``ralph hygiene``, ``ralph report``, ``ralph route``, ``ralph issue archive`` and
``ralph status --projects`` on the local tracker in a real repository: what they print,
what they keep, and mistakes refused in one line with exit 2 and nothing written."""

from __future__ import annotations

import json

import pytest

from ..snapshots import files, tables


@pytest.fixture
def board(project, monkeypatch, ralph_cli):
    monkeypatch.chdir(project.path)
    code, _, err = ralph_cli("init")
    assert code == 0, err
    for title in ("Add caching to API layer", "Add caching to API layers", "Ship it"):
        assert ralph_cli("issue", "new", title)[0] == 0
    # #3 canceled and closed: done with, so an archive candidate at --archive-days 0.
    assert ralph_cli("issue", "move", "3", "Canceled")[0] == 0
    assert ralph_cli("issue", "close", "3", "--reason", "not_planned")[0] == 0
    return ralph_cli


def written(project):
    return tables(project.path / ".ralph" / "ralph.db"), files(project.path)


def refused(board, project, *args, says):
    before = written(project)
    code, out, err = board(*args)
    assert (code, out) == (2, "")
    assert err.startswith("ralph: error: ")
    assert err.count("\n") == 1
    assert says in err
    assert written(project) == before


def test_hygiene_prints_the_report_and_json(board):
    code, out, err = board("hygiene")
    assert code == 0, err
    assert out.startswith("# Project Hygiene Report\n")
    assert "- Duplicate candidates: 1\n" in out
    assert "| #1 | Add caching to API layer | #2 | Add caching to API layers | 0.95 |" in out
    code, out, _ = board("hygiene", "--format", "json", "--similarity", "1")
    assert json.loads(out)["summary"]["duplicateCandidateCount"] == 0


def test_hygiene_archive_takes_old_finished_issues_off_the_lists(board, project):
    before = written(project)
    code, out, _ = board("hygiene", "--archive", "--dry-run", "--archive-days", "0")
    assert code == 0
    assert "Would archive 1 issue(s) done or canceled more than 0 days ago:" in out
    assert "#3 Ship it (Canceled" in out
    assert written(project) == before
    code, out, _ = board("hygiene", "--archive")
    assert "Nothing to archive: no issue done or canceled more than 14 days ago." in out
    code, out, _ = board("hygiene", "--archive", "--archive-days", "0")
    assert "Archived 1 issue(s)" in out
    code, out, _ = board("issue", "list", "--all", "--json")
    assert [i["number"] for i in json.loads(out)] == [1, 2]
    code, out, _ = board("status", "--json")
    assert json.loads(out)["totalIssues"] == 2
    code, out, _ = board("status", "--json", "--archived")
    assert json.loads(out)["totalIssues"] == 3
    code, out, _ = board("issue", "list", "--all", "--archived")
    assert "Ship it (closed, archived)" in out
    assert board("issue", "archive", "3", "--undo") == (0, "#3 back on the board\n", "")
    code, out, _ = board("issue", "list", "--all", "--json")
    assert [i["number"] for i in json.loads(out)] == [1, 2, 3]


def test_report_keeps_its_status_updates_on_the_local_board(board, project):
    before = written(project)
    code, out, _ = board("report", "--dry-run")
    assert code == 0
    assert "## Status: ON_TRACK" in out
    assert written(project) == before
    code, out, _ = board("report", "--status", "OFF_TRACK", "--json")
    posted = json.loads(out)
    assert posted["report"]["status"] == "OFF_TRACK"
    assert posted["statusUpdate"]["id"] == "1"
    code, out, _ = board("report")
    assert "Posted status update 2 (ON_TRACK)." in out
    code, out, _ = board("report", "list", "--json")
    assert [(u["id"], u["status"]) for u in json.loads(out)] == [
        ("2", "ON_TRACK"),
        ("1", "OFF_TRACK"),
    ]
    assert json.loads(out)[1]["body"].endswith("Manually set to OFF_TRACK.\n")
    code, out, _ = board("report", "list", "--limit", "1")
    assert "ON_TRACK" in out
    assert "OFF_TRACK" not in out


ROUTES = """\
version: 1
rules:
  - name: caching work
    match:
      repo: "proj*"
    action:
      workflowState: Research Needed
      labels: [perf]
      projectNumber: 4
"""


def test_route_says_where_an_issue_goes_and_applies_it(board, project):
    (project.path / ".ralph-routing.yml").write_text(ROUTES)
    before = written(project)
    code, out, err = board("route", "1")
    assert code == 0, err
    assert 'Matches rule 1 "caching work"' in out
    assert "would set state Research Needed" in out
    assert written(project) == before
    code, out, _ = board("route", "1", "--apply")
    assert "project #4: skipped: the local tracker has one board" in out
    assert "state Research Needed: moved from Backlog" in out
    assert "labels perf: added" in out
    code, out, _ = board("issue", "show", "1", "--json")
    shown = json.loads(out)
    assert (shown["workflowState"], shown["labels"]) == ("Research Needed", ["perf"])
    code, out, _ = board("route", "1", "--json")
    assert json.loads(out)["matchedRules"][0]["rule"] == "caching work"


def test_a_rule_that_matches_nothing_does_nothing(board, project):
    (project.path / ".ralph-routing.yml").write_text(ROUTES.replace("proj*", "other/*"))
    code, out, _ = board("route", "2", "--apply")
    assert code == 0
    assert "No rule matches it: nothing to do." in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("hygiene", "--similarity", "1.5"), "--similarity 1.5 is outside 0..1"),
        (("hygiene", "--stale-days", "-2"), "--stale-days -2.0 is not a number of days"),
        (("hygiene", "--dry-run"), "--dry-run goes with --archive"),
        (("report", "--window", "0"), "--window 0.0 is not a number of days"),
        (("issue", "archive", "42"), "#42 not found"),
        (("route", "1"), "no routing file .ralph-routing.yml"),
        (("status", "--projects", "3,5"), "the local tracker has one board"),
        (("status", "--projects", "3,,5"), "'' is not a project number"),
    ],
)
def test_mistakes_are_one_line_with_exit_2_and_nothing_written(board, project, args, says):
    refused(board, project, *args, says=says)


def test_routing_file_mistakes_name_the_line_and_column(board, project):
    rules = project.path / ".ralph-routing.yml"
    rules.write_text("version: 1\nrules:\n  - match: {labels: {any: [bug]}\n    action: {}\n")
    refused(board, project, "route", "1", "--apply", says=".ralph-routing.yml line 4, column 5")
    rules.write_text(ROUTES.replace("Research Needed", "Researching"))
    refused(
        board,
        project,
        "route",
        "1",
        "--apply",
        says="line 7, column 22: rules[0].action.workflowState: Unknown workflow state",
    )
    rules.write_text(ROUTES)
    refused(board, project, "route", "99", "--apply", says="#99 not found")
    refused(
        board, project, "route", "1", "--file", "missing.yml", says="no routing file missing.yml"
    )


def test_a_routed_state_the_issue_cannot_reach_refuses_everything(board, project):
    (project.path / ".ralph-routing.yml").write_text(
        ROUTES.replace("Research Needed", "In Review").replace("proj*", "**")
    )
    refused(board, project, "route", "1", "--apply", says="#1 cannot be routed to In Review")
