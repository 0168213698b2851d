"""The dashboard's golden cases (DB1-DB13 in docs/compatibility.md) and its formats."""

from __future__ import annotations

import pytest

from ralph.dashboard import (
    DAY_SECONDS,
    DashboardItem,
    HealthConfig,
    Severity,
    WarningType,
    build_dashboard,
    format_markdown,
)

NOW = 1_771_588_800.0  # 2026-02-20T12:00:00Z
HOUR = 3600.0


def item(number, state="Backlog", *, hours_ago=1.0, **fields):
    return DashboardItem(
        number=number,
        title=f"Issue {number}",
        updated_at=NOW - hours_ago * HOUR,
        workflow_state=state,
        **fields,
    )


def board(*items, **config):
    return build_dashboard(list(items), now=NOW, config=HealthConfig(**config))


def numbers(dashboard, state):
    return [i.number for i in dashboard.phase(state).issues]


def kinds(dashboard):
    return [(w.type, w.severity) for w in dashboard.warnings]


def test_db1_issues_in_a_phase_are_ordered_by_priority():
    dashboard = board(
        item(1, priority="P3"), item(2, priority="P0"), item(3, priority="P1"), item(4)
    )
    assert numbers(dashboard, "Backlog") == [2, 3, 1, 4]


def test_db2_age_is_hours_since_the_last_update():
    dashboard = board(item(1, hours_ago=24))
    assert dashboard.phase("Backlog").issues[0].age_hours == pytest.approx(24.0)


def test_db3_done_counts_only_the_recent_window_preferring_closed_at():
    dashboard = board(
        item(1, "Done", hours_ago=1, closed_at=NOW - 3 * DAY_SECONDS),
        item(2, "Done", hours_ago=1, closed_at=NOW - 10 * DAY_SECONDS),
        item(3, "Canceled", hours_ago=10 * 24),
        item(4, "Canceled", hours_ago=2 * 24),
    )
    assert numbers(dashboard, "Done") == [1]
    assert numbers(dashboard, "Canceled") == [4]


def test_db4_issues_without_a_state_get_an_unknown_bucket_after_canceled():
    dashboard = board(DashboardItem(number=1, updated_at=NOW, workflow_state=None))
    assert [p.state for p in dashboard.phases][-2:] == ["Canceled", "Unknown"]
    assert numbers(dashboard, "Unknown") == [1]


def test_db5_an_empty_board_has_eleven_empty_phases():
    dashboard = board()
    assert len(dashboard.phases) == 11
    assert all(p.count == 0 and p.issues == () for p in dashboard.phases)


def test_db6_lock_states_mark_issues_locked():
    dashboard = board(item(1, "In Progress"), item(2, "Backlog"))
    assert dashboard.phase("In Progress").issues[0].is_locked is True
    assert dashboard.phase("Backlog").issues[0].is_locked is False


def test_db7_wip_limits():
    over = board(
        *(item(n, "Research Needed") for n in (1, 2, 3, 4)), wip_limits={"Research Needed": 3}
    )
    [wip] = [w for w in over.warnings if w.type is WarningType.WIP_EXCEEDED]
    assert wip.issues == (1, 2, 3, 4)
    assert wip.message == "Research Needed: 4 issues (WIP limit: 3)"


def test_a_wip_warning_counts_one_issue_in_the_singular():
    over = board(item(1, "Research Needed"), wip_limits={"Research Needed": 0})
    [wip] = [w for w in over.warnings if w.type is WarningType.WIP_EXCEEDED]
    assert wip.message == "Research Needed: 1 issue (WIP limit: 0)"
    at_limit = board(
        *(item(n, "Research Needed") for n in (1, 2, 3)), wip_limits={"Research Needed": 3}
    )
    assert not [w for w in at_limit.warnings if w.type is WarningType.WIP_EXCEEDED]


def test_db8_stuck_issues_warn_then_turn_critical_but_not_in_human_or_final_states():
    warning = board(item(1, "Research Needed", hours_ago=60))
    assert (WarningType.STUCK_ISSUE, Severity.WARNING) in kinds(warning)
    critical = board(item(1, "Research Needed", hours_ago=100))
    [stuck] = [w for w in critical.warnings if w.type is WarningType.STUCK_ISSUE]
    assert stuck.severity is Severity.CRITICAL
    assert stuck.message == "#1 stuck in Research Needed for 100h (critical threshold: 96h)"
    for state in ("Done", "Human Needed", "Plan in Review"):
        dashboard = board(item(1, state, hours_ago=100, closed_at=NOW))
        assert WarningType.STUCK_ISSUE not in [w.type for w in dashboard.warnings]


@pytest.mark.parametrize(
    ("blocker_state", "warned"), [("In Progress", True), ("Done", False), ("Canceled", False)]
)
def test_db9_open_blockers_warn(blocker_state, warned):
    dashboard = board(item(1, "Ready for Plan", blocked_by=((5, blocker_state),)))
    blocked = [w for w in dashboard.warnings if w.type is WarningType.BLOCKED]
    assert bool(blocked) is warned
    if warned:
        assert "#5" in blocked[0].message


def test_db10_empty_mid_pipeline_phases_are_info_gaps_but_not_backlog_or_human_needed():
    dashboard = board(item(1, "In Progress"))
    gaps = {w.message for w in dashboard.warnings if w.type is WarningType.PIPELINE_GAP}
    assert "Ready for Plan: empty (pipeline gap)" in gaps
    assert not any(m.startswith(("Backlog", "Human Needed")) for m in gaps)
    assert all(
        w.severity is Severity.INFO
        for w in dashboard.warnings
        if w.type is WarningType.PIPELINE_GAP
    )


def test_db11_two_issues_in_one_lock_state_collide():
    dashboard = board(item(1, "Plan in Progress"), item(2, "Plan in Progress"))
    [collision] = [w for w in dashboard.warnings if w.type is WarningType.LOCK_COLLISION]
    assert collision.severity is Severity.CRITICAL
    assert collision.issues == (1, 2)


def test_db12_oversized_issues_in_the_pipeline_warn():
    assert WarningType.OVERSIZED_IN_PIPELINE in [
        w.type for w in board(item(1, "Research Needed", estimate="M")).warnings
    ]
    assert WarningType.OVERSIZED_IN_PIPELINE not in [
        w.type for w in board(item(1, "Backlog", estimate="M")).warnings
    ]
    assert WarningType.OVERSIZED_IN_PIPELINE not in [
        w.type for w in board(item(1, "In Progress", estimate="XS")).warnings
    ]


def test_db13_warnings_are_sorted_critical_then_warning_then_info():
    dashboard = board(
        item(1, "Plan in Progress"),
        item(2, "Plan in Progress"),
        item(3, "Research Needed", estimate="L"),
    )
    ranks = [w.severity.rank for w in dashboard.warnings]
    assert ranks == sorted(ranks)
    assert dashboard.warnings[0].severity is Severity.CRITICAL
    assert dashboard.warnings[-1].severity is Severity.INFO


def test_info_gaps_alone_leave_the_board_healthy__ralph():
    dashboard = board(item(1, "In Progress"))
    assert dashboard.warnings
    assert dashboard.ok is True
    assert board(item(1, "Research Needed", hours_ago=60)).ok is False


def test_archive_statistics():
    dashboard = board(
        item(1, "Done", closed_at=NOW - 20 * DAY_SECONDS),
        item(2, "Canceled", closed_at=NOW - 30 * DAY_SECONDS),
        item(3, "Done", closed_at=NOW - 2 * DAY_SECONDS),
    )
    assert [(n, d) for n, _, _, d in dashboard.archive_eligible] == [(2, 30), (1, 20)]
    assert dashboard.recently_completed == 1
    assert dashboard.to_dict()["archive"]["eligibleForArchive"] == 2


def test_markdown_and_json():
    dashboard = board(item(1, "In Progress", priority="P1", estimate="S"))
    text = format_markdown(dashboard)
    assert text.startswith("# Pipeline Status\n")
    assert "| In Progress | 1 | #1, P1, S |" in text
    assert "**Health**: All clear" in text
    assert "- [INFO] Ready for Plan: empty (pipeline gap)" in text
    data = dashboard.to_dict()
    assert data["health"]["ok"] is True
    assert data["phases"][6]["state"] == "In Progress"
    assert data["totalIssues"] == 1


def test_markdown_truncates_long_phases():
    dashboard = board(*(item(n) for n in range(1, 14)))
    assert "; ... +3 more |" in format_markdown(dashboard)


# -- what a person should see (ux-review M5, m8, m23) -----------------------------------


def test_an_issue_in_human_needed_is_a_warning_with_its_reason():
    dashboard = board(
        item(1, "Human Needed", escalation_reason="the plan's tests fail on main"),
        item(2, "Human Needed"),
    )
    waiting = [w for w in dashboard.warnings if w.type is WarningType.NEEDS_A_PERSON]
    assert [(w.severity, w.message, w.issues) for w in waiting] == [
        (Severity.WARNING, "#1 needs a person: the plan's tests fail on main", (1,)),
        (Severity.WARNING, "#2 needs a person: no reason recorded", (2,)),
    ]
    assert dashboard.ok is False
    assert dashboard.to_dict()["health"]["ok"] is False


def test_a_board_with_everything_done_lists_no_pipeline_gaps():
    dashboard = board(item(1, "Done", closed_at=NOW), item(2, "Canceled", closed_at=NOW))
    assert dashboard.warnings == ()
    waiting = board(item(1, "Backlog"), item(2, "Human Needed"))
    assert WarningType.PIPELINE_GAP not in [w.type for w in waiting.warnings]


def test_sub_issues_of_one_parent_implemented_together_hold_one_lock():
    # The demo's shape: an M epic split into three sub-issues, implemented as a group.
    dashboard = board(
        item(1, "In Progress", parent=9),
        item(2, "In Progress", parent=9),
        item(3, "In Progress", parent=9),
    )
    assert WarningType.LOCK_COLLISION not in [w.type for w in dashboard.warnings]
    assert dashboard.ok is True


def test_two_groups_in_one_lock_state_still_collide():
    dashboard = board(
        item(1, "In Progress", parent=9),
        item(2, "In Progress", parent=9),
        item(3, "In Progress", parent=8),
    )
    [collision] = [w for w in dashboard.warnings if w.type is WarningType.LOCK_COLLISION]
    assert (
        collision.message == "In Progress: 3 issues in 2 groups in lock state (expected at most 1)"
    )
