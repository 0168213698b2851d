"""Several boards in one dashboard (``ralph status --projects``): a breakdown per board
and the original's unbalanced-workload warning (active work more than three times
another board's)."""

from __future__ import annotations

import pytest

from ralph.dashboard import (
    DashboardItem,
    Severity,
    WarningType,
    build_dashboard,
    detect_cross_project_health,
    format_markdown,
)

NOW = 1_771_588_800.0


def item(number, state, project, title=""):
    return DashboardItem(
        number=number,
        title=f"Issue {number}",
        updated_at=NOW - 3600,
        workflow_state=state,
        project_number=project,
        project_title=title,
    )


def on(project, count, state="Research Needed", start=1):
    return [item(start + n, state, project) for n in range(count)]


def unbalanced(dashboard):
    return [w for w in dashboard.warnings if w.type is WarningType.UNBALANCED_WORKLOAD]


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ({3: 4, 5: 1}, "Unbalanced workload: project 3 has 4 active items vs project 5 with 1"),
        ({3: 1, 5: 7}, "Unbalanced workload: project 5 has 7 active items vs project 3 with 1"),
        ({3: 3, 5: 1}, None),  # three times is still in balance
        ({3: 4, 5: 0}, None),  # a board without active work is not compared
        ({3: 9}, None),
        (
            {3: 2, 5: 7, 8: 2},
            "Unbalanced workload: project 5 has 7 active items vs project 3 with 2",
        ),
    ],
)
def test_the_busiest_board_against_the_idlest(counts, message):
    items = []
    for project, count in counts.items():
        items += on(project, count, start=project * 100)
    found = unbalanced(build_dashboard(items, now=NOW))
    assert [w.message for w in found] == ([message] if message else [])
    if found:
        assert found[0].severity is Severity.WARNING


def test_backlog_done_and_canceled_are_not_active_work():
    items = on(3, 9, "Backlog") + on(3, 1, start=50) + on(5, 5, "Done", 60) + on(5, 1, start=70)
    assert unbalanced(build_dashboard(items, now=NOW)) == []


def test_a_breakdown_per_board_by_number_when_items_come_from_two_boards():
    items = [*on(5, 1, "In Review", 10), item(1, "Backlog", 3, "Web"), *on(3, 2, start=20)]
    dashboard = build_dashboard(items, now=NOW)
    assert [(p.number, p.title, p.active) for p in dashboard.projects] == [
        (3, "Web", 2),
        (5, "Project 5", 1),
    ]
    assert dashboard.total_issues == 4
    assert dashboard.to_dict()["projectBreakdowns"]["3"]["projectTitle"] == "Web"
    assert build_dashboard(on(3, 2), now=NOW).projects == ()
    assert "projectBreakdowns" not in build_dashboard(on(3, 2), now=NOW).to_dict()


def test_the_markdown_has_a_per_project_section():
    text = format_markdown(build_dashboard(on(3, 2) + on(5, 1, "Done", 10), now=NOW))
    assert "## Per-Project Breakdown\n\n### Project 3\n\n| Phase | Count |\n|---|---|\n" in text
    assert "| Research Needed | 2 |" in text
    assert "### Project 5\n\n| Phase | Count |\n|---|---|\n| Done | 1 |" in text


def test_a_board_whose_items_all_left_the_done_window_shows_no_active_items():
    old = DashboardItem(
        number=9, title="Old", updated_at=NOW - 30 * 86400, workflow_state="Done", project_number=5
    )
    text = format_markdown(build_dashboard([*on(3, 1), old], now=NOW))
    assert "### Project 5\n\n_No active items_" in text
    assert detect_cross_project_health(build_dashboard([*on(3, 1), old], now=NOW).projects) == ()
