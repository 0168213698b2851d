"""``ralph debug stats``: calls, errors and durations per tool, category or day."""

from __future__ import annotations

from ralph.debug import GroupBy, debug_stats

EVENTS = [
    {
        "ts": "2026-02-19T10:00:00Z",
        "cat": "tool",
        "tool": "get_issue",
        "ok": True,
        "durationMs": 10,
    },
    {
        "ts": "2026-02-19T11:00:00Z",
        "cat": "tool",
        "tool": "get_issue",
        "ok": False,
        "durationMs": 30,
    },
    {
        "ts": "2026-02-20T09:00:00Z",
        "cat": "graphql",
        "operation": "Issue",
        "ok": True,
        "durationMs": 5,
    },
    {"ts": "2026-02-20T09:30:00Z", "cat": "hook", "hook": "PreToolUse", "blocked": True},
]


def stats(group_by: GroupBy):
    return debug_stats(EVENTS, since="2026-02-13T00:00:00.000Z", sessions=2, group_by=group_by)


def test_per_tool_the_busiest_first_with_rates_and_durations():
    result = stats(GroupBy.TOOL).to_dict()
    assert list(result["groups"]) == ["get_issue", "Issue", "PreToolUse"]
    assert result["groups"]["get_issue"] == {
        "calls": 2,
        "errors": 1,
        "errorRate": 0.5,
        "avgDurationMs": 20,
        "totalDurationMs": 40,
    }
    assert (result["totalCalls"], result["totalErrors"]) == (4, 2)
    assert result["errorRate"] == 50.0  # a percentage, as the original's response had
    assert result["sessionsAnalyzed"] == 2


def test_per_category_and_per_day():
    assert set(stats(GroupBy.CATEGORY).groups) == {"tool", "graphql", "hook"}
    days = stats(GroupBy.DAY).groups
    assert list(days) == ["2026-02-19", "2026-02-20"]
    assert (days["2026-02-20"].calls, days["2026-02-20"].errors) == (2, 1)


def test_an_empty_window_says_so():
    empty = debug_stats([], since="s", sessions=0, group_by=GroupBy.TOOL).to_dict()
    assert empty == {
        "message": "No events found in the specified time window.",
        "sessionsAnalyzed": 0,
        "since": "s",
    }


def test_rates_round_to_two_decimals():
    events = [{"cat": "tool", "tool": "t", "ok": i == 0} for i in range(3)]
    result = debug_stats(events, since="s", sessions=1, group_by=GroupBy.TOOL)
    assert result.error_rate_percent == 66.67
