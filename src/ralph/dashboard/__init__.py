"""The pipeline dashboard: issues per workflow state, health warnings and archive
statistics, as data, JSON or Markdown. Pure: no I/O."""

from __future__ import annotations

from ralph.dashboard._build import (
    DAY_SECONDS,
    Dashboard,
    DashboardItem,
    HealthConfig,
    HealthWarning,
    IssueSnapshot,
    PhaseSnapshot,
    Severity,
    WarningType,
    aggregate_by_phase,
    build_dashboard,
    detect_health_issues,
)
from ralph.dashboard._markdown import format_markdown

__all__ = [
    "DAY_SECONDS",
    "Dashboard",
    "DashboardItem",
    "HealthConfig",
    "HealthWarning",
    "IssueSnapshot",
    "PhaseSnapshot",
    "Severity",
    "WarningType",
    "aggregate_by_phase",
    "build_dashboard",
    "detect_health_issues",
    "format_markdown",
]
