"""The pipeline dashboard: issues per workflow state, health warnings and archive
statistics, as data, JSON, Markdown or text bars; and the filters of the original's
list tools (profiles, date math). Pure: no I/O."""

from __future__ import annotations

from ralph.dashboard._ascii import format_ascii
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
from ralph.dashboard._date_math import parse_date_math
from ralph.dashboard._filters import (
    FIELD_NAMES,
    FILTER_PROFILES,
    FilterFields,
    ItemFilter,
    expand_profile,
)
from ralph.dashboard._markdown import format_markdown

__all__ = [
    "DAY_SECONDS",
    "FIELD_NAMES",
    "FILTER_PROFILES",
    "Dashboard",
    "DashboardItem",
    "FilterFields",
    "HealthConfig",
    "HealthWarning",
    "IssueSnapshot",
    "ItemFilter",
    "PhaseSnapshot",
    "Severity",
    "WarningType",
    "aggregate_by_phase",
    "build_dashboard",
    "detect_health_issues",
    "expand_profile",
    "format_ascii",
    "format_markdown",
    "parse_date_math",
]
