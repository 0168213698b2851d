"""The board's numbers: issues per workflow state, health warnings and archive
statistics (one board or several), the hygiene report, velocity, risk and the project's
status with its status report, as data, JSON, Markdown or text bars; and the filters of
the original's list tools (profiles, date math). Pure: no I/O."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.dashboard._ascii import format_ascii
    from ralph.dashboard._build import (
        DAY_SECONDS,
        Dashboard,
        DashboardItem,
        HealthConfig,
        HealthWarning,
        IssueSnapshot,
        PhaseSnapshot,
        ProjectBreakdown,
        Severity,
        WarningType,
        aggregate_by_phase,
        build_dashboard,
        detect_cross_project_health,
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
    from ralph.dashboard._hygiene import (
        MAX_DUPLICATES,
        DuplicateCandidate,
        HygieneConfig,
        HygieneItem,
        HygieneReport,
        WipViolation,
        build_hygiene_report,
        format_hygiene_markdown,
        normalize_title,
        title_similarity,
    )
    from ralph.dashboard._markdown import format_markdown
    from ralph.dashboard._metrics import (
        Highlights,
        Metrics,
        MetricsConfig,
        ProjectStatus,
        calculate_metrics,
        calculate_risk_score,
        calculate_velocity,
        determine_status,
        extract_highlights,
        format_status_report,
    )
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "DAY_SECONDS",
    "FIELD_NAMES",
    "FILTER_PROFILES",
    "MAX_DUPLICATES",
    "Dashboard",
    "DashboardItem",
    "DuplicateCandidate",
    "FilterFields",
    "HealthConfig",
    "HealthWarning",
    "Highlights",
    "HygieneConfig",
    "HygieneItem",
    "HygieneReport",
    "IssueSnapshot",
    "ItemFilter",
    "Metrics",
    "MetricsConfig",
    "PhaseSnapshot",
    "ProjectBreakdown",
    "ProjectStatus",
    "Severity",
    "WarningType",
    "WipViolation",
    "aggregate_by_phase",
    "build_dashboard",
    "build_hygiene_report",
    "calculate_metrics",
    "calculate_risk_score",
    "calculate_velocity",
    "detect_cross_project_health",
    "detect_health_issues",
    "determine_status",
    "expand_profile",
    "extract_highlights",
    "format_ascii",
    "format_hygiene_markdown",
    "format_markdown",
    "format_status_report",
    "normalize_title",
    "parse_date_math",
    "title_similarity",
]
