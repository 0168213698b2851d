"""``ralph debug collate`` on every tracker: one ``debug-auto`` issue per error
signature, an ``## Occurrence Report`` for occurrences after the last one reported,
nothing twice, and nothing at all in a dry run."""

from __future__ import annotations

from ralph.debug import DEBUG_LABEL, LogRead, collate
from ralph.tracker import IssueQuery, Tracker


def not_found(number: int, second: int) -> dict[str, object]:
    return {
        "ts": f"2026-02-20T12:00:{second:02d}.000Z",
        "cat": "tool",
        "tool": "get_issue",
        "params": {"number": number},
        "ok": False,
        "error": f"Issue {number} not found",
        "session": "1-abcd",
    }


def refused(second: int) -> dict[str, object]:
    return {
        "ts": f"2026-02-20T12:00:{second:02d}.000Z",
        "cat": "hook",
        "hook": "PreToolUse",
        "blocked": True,
        "error": "write outside worktrees/GH-7/",
        "session": "2-abcd",
    }


def read(*events: dict[str, object]) -> LogRead:
    return LogRead("2026-02-20T00:00:00.000Z", events, len({e["session"] for e in events}))


def filed(tracker: Tracker):
    return tracker.list_issues(IssueQuery(labels=(DEBUG_LABEL,)))


def test_each_signature_becomes_one_labelled_issue_with_the_originals_report(tracker):
    result = collate(read(not_found(42, 1), not_found(99, 2), refused(3)), tracker)
    assert (result.created, result.updated) == (2, 0)
    issues = {issue.title: issue for issue in filed(tracker)}
    assert set(issues) == {"[debug-auto] get_issue error", "[debug-auto] PreToolUse blocked"}
    body = issues["[debug-auto] get_issue error"].body
    group = next(f.group for f in result.filed if f.group.name == "get_issue")
    assert body.startswith("## Debug Auto-Report")
    assert f"**Hash**: `{group.hash}`" in body
    assert "**Signature**: `tool:get_issue:error:Issue <N> not found`" in body
    assert "**Occurrences**: 2" in body
    assert "**First seen**: 2026-02-20T12:00:01.000Z" in body
    assert "**Last seen**: 2026-02-20T12:00:02.000Z" in body
    assert "### Sample Error" in body
    assert '"error": "Issue 42 not found"' in body
    assert result.to_dict()["totalOccurrences"] == 3


def test_a_rerun_reports_only_what_is_new_and_posts_nothing_twice(tracker):
    collate(read(not_found(42, 1)), tracker)
    again = collate(read(not_found(42, 1)), tracker)
    assert [f.action for f in again.filed] == ["unchanged"]
    later = collate(read(not_found(42, 1), not_found(7, 5), not_found(8, 9)), tracker)
    [issue] = filed(tracker)
    assert [(f.action, f.issue, f.group.count) for f in later.filed] == [
        ("updated", issue.number, 2)
    ]
    reports = [c.body for c in tracker.get_issue(issue.number).comments if "Occurrence" in c.body]
    assert len(reports) == 1
    assert reports[0].startswith("## Occurrence Report\n\n- Count: 2\n")
    assert "- Period: 2026-02-20T12:00:05.000Z — 2026-02-20T12:00:09.000Z" in reports[0]
    assert "- Signature: `tool:get_issue:error:Issue <N> not found`" in reports[0]
    assert [f.action for f in collate(read(not_found(8, 9)), tracker).filed] == ["unchanged"]


def test_a_closed_report_is_filed_again(tracker):
    [first] = collate(read(not_found(1, 1)), tracker).filed
    assert first.issue is not None
    tracker.close_issue(first.issue)
    [second] = collate(read(not_found(1, 2)), tracker).filed
    assert second.action == "created"
    assert second.issue != first.issue


def test_a_dry_run_files_nothing(tracker):
    result = collate(read(not_found(42, 1), refused(2)), tracker, dry_run=True)
    assert [f.action for f in result.filed] == ["dry-run", "dry-run"]
    assert result.to_dict()["issuesCreated"] == 0
    assert filed(tracker) == []


def test_no_errors_is_said_and_files_nothing(tracker):
    ok = {"ts": "2026-02-20T12:00:00.000Z", "cat": "tool", "tool": "x", "ok": True, "session": "s"}
    result = collate(read(ok), tracker)
    assert result.to_dict() == {
        "message": "No errors found in the specified time window.",
        "sessionsAnalyzed": 1,
        "since": "2026-02-20T00:00:00.000Z",
    }
    assert filed(tracker) == []
