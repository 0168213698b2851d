"""``ralph debug stats`` and ``ralph debug collate`` on a project whose runs kept a debug
log: statistics as a table or JSON, recurring errors filed as debug-auto issues."""

from __future__ import annotations

import json

import pytest

from ralph.config import load_config
from ralph.project import open_project
from ralph.tracker import IssueQuery

from ..cli_project import farewell_project


@pytest.fixture
def logged(tmp_path, ralph_cli, monkeypatch):
    """The demo project after a research run and two refused reviews, with RALPH_DEBUG=1."""
    repo, number = farewell_project(tmp_path / "demo")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("RALPH_DEBUG", "1")
    assert ralph_cli("run", "research", str(number))[0] == 0
    for _ in range(2):
        assert ralph_cli("run", "review", str(number))[0] == 2
    monkeypatch.delenv("RALPH_DEBUG")
    return repo, number


def test_stats_per_tool_category_and_day(logged, ralph_cli):
    code, out, _ = ralph_cli("debug", "stats", "--json")
    assert code == 0
    stats = json.loads(out)
    assert stats["totalErrors"] == 2
    assert stats["groups"]["review"] == {
        "calls": 2,
        "errors": 2,
        "errorRate": 1.0,
        "avgDurationMs": stats["groups"]["review"]["avgDurationMs"],
        "totalDurationMs": stats["groups"]["review"]["totalDurationMs"],
    }
    code, out, _ = ralph_cli("debug", "stats", "--group-by", "category", "--json")
    assert set(json.loads(out)["groups"]) == {"agent", "phase"}
    code, out, _ = ralph_cli("debug", "stats", "--group-by", "day")
    assert code == 0
    assert "errors" in out


def test_collate_files_one_issue_per_signature_and_a_dry_run_files_none(logged, ralph_cli):
    repo, _ = logged
    code, out, _ = ralph_cli("debug", "collate", "--dry-run", "--json")
    assert code == 0
    dry = json.loads(out)
    assert (dry["errorGroups"], dry["totalOccurrences"], dry["dryRun"]) == (1, 2, True)
    code, out, _ = ralph_cli("debug", "collate")
    assert code == 0
    assert "1 issue(s) created, 0 updated." in out
    with open_project(load_config(repo)) as project:
        [issue] = project.tracker.list_issues(IssueQuery(labels=("debug-auto",)))
    assert issue.title == "[debug-auto] review blocked"
    assert "**Occurrences**: 2" in issue.body
    code, out, _ = ralph_cli("debug", "collate", "--json")
    assert json.loads(out)["groups"][0]["action"] == "unchanged"


def test_a_project_without_a_debug_log_says_there_is_nothing(tmp_path, ralph_cli, monkeypatch):
    repo, _ = farewell_project(tmp_path / "demo")
    monkeypatch.chdir(repo)
    code, out, _ = ralph_cli("debug", "stats")
    assert (code, out.split(" since ")[0]) == (0, "No events found")
    code, out, _ = ralph_cli("debug", "collate", "--json")
    assert code == 0
    assert json.loads(out)["message"] == "No errors found in the specified time window."
    assert not (repo / ".ralph" / "logs").exists()


@pytest.mark.parametrize("since", ["yesterday", "0d", "2099-01-01", "-3d"])
def test_a_bad_since_is_one_line_and_exit_2(logged, ralph_cli, since):
    for command in ("stats", "collate"):
        code, out, err = ralph_cli("debug", command, "--since", since)
        assert code == 2
        assert out == ""
        assert err.startswith("ralph: error: --since ")
        assert err.count("\n") == 1
