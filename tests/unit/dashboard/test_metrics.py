"""Velocity, risk score and status (MT1-MT3 in docs/compatibility.md), the highlights
and the ``# Project Status Report`` body."""

from __future__ import annotations

import pytest

from ralph.dashboard import (
    DAY_SECONDS,
    DashboardItem,
    HealthConfig,
    HealthWarning,
    MetricsConfig,
    ProjectStatus,
    Severity,
    WarningType,
    build_dashboard,
    calculate_metrics,
    calculate_risk_score,
    calculate_velocity,
    determine_status,
    format_status_report,
)
from ralph.errors import InvalidInput

NOW = 1_771_588_800.0  # 2026-02-20T12:00:00Z
HOUR = 3600.0
WEIGHTS = MetricsConfig().severity_weights


def item(number, state="Backlog", *, hours_ago=1.0, closed_days_ago=None, **fields):
    return DashboardItem(
        number=number,
        title=f"Issue {number}",
        updated_at=NOW - hours_ago * HOUR,
        closed_at=None if closed_days_ago is None else NOW - closed_days_ago * DAY_SECONDS,
        workflow_state=state,
        **fields,
    )


def warning(severity):
    return HealthWarning(WarningType.STUCK_ISSUE, severity, "x")


def test_mt1_velocity_counts_done_items_closed_within_the_window():
    items = [
        item(1, "Done", closed_days_ago=1),
        item(2, "Done", closed_days_ago=6.9),
        item(3, "Done", closed_days_ago=8),
        item(4, "Done", hours_ago=24),  # no close time: its last update counts
        item(5, "Canceled", closed_days_ago=1),
        item(6, "In Review", hours_ago=1),
    ]
    assert calculate_velocity(items, 7, NOW) == 3
    assert calculate_velocity(items, 0.5, NOW) == 0
    assert calculate_velocity([item(1, "Done", closed_days_ago=7)], 7, NOW) == 1  # inclusive


@pytest.mark.parametrize(
    ("severities", "score"),
    [
        ([Severity.CRITICAL, Severity.CRITICAL, Severity.WARNING], 7),
        ([Severity.INFO, Severity.INFO], 0),
        ([], 0),
        ([Severity.WARNING], 1),
    ],
)
def test_mt2_the_risk_score_sums_the_severity_weights(severities, score):
    assert calculate_risk_score([warning(s) for s in severities], WEIGHTS) == score


def test_mt2_a_severity_without_a_weight_weighs_nothing():
    assert calculate_risk_score([warning(Severity.CRITICAL)], {"warning": 1}) == 0


@pytest.mark.parametrize(
    ("score", "status"),
    [
        (0, ProjectStatus.ON_TRACK),
        (1, ProjectStatus.ON_TRACK),
        (2, ProjectStatus.AT_RISK),
        (5, ProjectStatus.AT_RISK),
        (6, ProjectStatus.OFF_TRACK),
        (10, ProjectStatus.OFF_TRACK),
    ],
)
def test_mt3_the_status_follows_the_risk_score_thresholds(score, status):
    assert determine_status(score, MetricsConfig()) is status


def test_mt3_thresholds_are_configurable():
    config = MetricsConfig(at_risk_threshold=1, off_track_threshold=3)
    assert determine_status(1, config) is ProjectStatus.AT_RISK
    assert determine_status(3, config) is ProjectStatus.OFF_TRACK


@pytest.mark.parametrize("window", [0, -1, float("nan"), float("inf")])
def test_a_window_that_is_not_a_positive_number_of_days_is_refused(window):
    with pytest.raises(InvalidInput, match="--window"):
        MetricsConfig(velocity_window_days=window)


def board_and_metrics(items, window=7):
    dashboard = build_dashboard(items, now=NOW, config=HealthConfig(done_window_days=window))
    config = MetricsConfig(velocity_window_days=window)
    return dashboard, calculate_metrics(items, dashboard, config, NOW)


def test_highlights_are_the_done_column_and_backlog_items_younger_than_the_window():
    items = [
        item(1, "Done", closed_days_ago=2),
        item(2, "Done", closed_days_ago=9),
        item(3, "Backlog", hours_ago=24),
        item(4, "Backlog", hours_ago=24 * 8),
    ]
    _, metrics = board_and_metrics(items)
    assert metrics.highlights.recently_completed == ((1, "Issue 1"),)
    assert metrics.highlights.newly_added == ((3, "Issue 3"),)
    assert metrics.velocity == 1


def test_metrics_count_every_warning_of_the_dashboard():
    # A lock collision (critical 3) and two stuck issues (critical 3 each, > 96 h).
    items = [item(n, "Plan in Progress", hours_ago=100) for n in (1, 2)]
    _, metrics = board_and_metrics(items)
    assert metrics.risk_score == 9
    assert metrics.status is ProjectStatus.OFF_TRACK
    assert metrics.to_dict()["status"] == "OFF_TRACK"


def test_the_report_body_has_the_original_sections():
    items = [
        item(1, "Done", closed_days_ago=2),
        item(2, "In Progress", hours_ago=60),  # stuck: one warning
        item(3, "Backlog", hours_ago=2),
    ]
    dashboard, metrics = board_and_metrics(items)
    body = format_status_report(dashboard, metrics, window_days=7)
    assert body.startswith("# Project Status Report\n\n_Generated: 2026-02-20T12:00:00Z_\n")
    assert (
        "## Pipeline Summary\n\n| Phase | Count |\n|---|---|\n| Backlog | 1 |\n"
        "| In Progress | 1 |\n| Done | 1 |\n\n**Total**: 3 issues\n"
    ) in body
    assert "## Velocity\n\n1 issue completed in the last 7 days.\n" in body
    assert "## Health Indicators\n\n- [WARNING] #2 stuck in In Progress for 60h" in body
    assert "All clear" not in body
    assert "### Recently Completed\n\n- #1 Issue 1\n\n### Newly Added\n\n- #3 Issue 3\n" in body
    assert body.endswith(
        f"## Status: {metrics.status.value}\n\n"
        f"Auto-determined from risk score ({metrics.risk_score:g}).\n"
    )


def test_a_quiet_board_is_all_clear_and_a_persons_status_replaces_the_score():
    dashboard, metrics = board_and_metrics([])
    body = format_status_report(dashboard, metrics, window_days=14, status=ProjectStatus.AT_RISK)
    assert "All clear — no health warnings." in body
    assert "0 issues completed in the last 14 days." in body
    assert "### Recently Completed\n\nNone in this window.\n" in body
    assert body.endswith("## Status: AT_RISK\n\nManually set to AT_RISK.\n")


def test_an_issue_waiting_for_a_person_makes_the_project_at_least_at_risk():
    items = [item(1, "Human Needed", escalation_reason="review rejected twice"), item(2, "Done")]
    dashboard = build_dashboard(items, now=NOW, config=HealthConfig())
    metrics = calculate_metrics(items, dashboard, MetricsConfig(), NOW)
    assert metrics.risk_score == 1  # one warning: below the AT_RISK threshold alone
    assert metrics.status is ProjectStatus.AT_RISK
    body = format_status_report(dashboard, metrics, window_days=7)
    assert "- [WARNING] #1 needs a person: review rejected twice" in body
    assert "## Status: AT_RISK" in body
