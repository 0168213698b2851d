"""Velocity, risk score and the project's status (the original's ``metrics``,
docs/compatibility.md MT cases), and the ``# Project Status Report`` body built from
them. Pure: the caller supplies the issues, the dashboard and the time.

One deliberate change from the original: metrics are computed on the whole dashboard,
not on one cut to ``issuesPerPhase`` with its health stripped.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ralph.dashboard._build import (
    DAY_SECONDS,
    Dashboard,
    DashboardItem,
    HealthWarning,
    WarningType,
)
from ralph.dashboard._inline import inline
from ralph.errors import InvalidInput
from ralph.workflow import WorkflowState

__all__ = [
    "Highlights",
    "Metrics",
    "MetricsConfig",
    "ProjectStatus",
    "calculate_metrics",
    "calculate_risk_score",
    "calculate_velocity",
    "determine_status",
    "extract_highlights",
    "format_status_report",
]


class ProjectStatus(enum.StrEnum):
    """A project's status as GitHub Projects' status updates name it."""

    ON_TRACK = "ON_TRACK"
    AT_RISK = "AT_RISK"
    OFF_TRACK = "OFF_TRACK"
    INACTIVE = "INACTIVE"
    COMPLETE = "COMPLETE"


#: The longest velocity window: ten years.
MAX_WINDOW_DAYS = 3650


@dataclass(frozen=True, kw_only=True)
class MetricsConfig:
    """The window is in days (more than 0); the thresholds are risk scores."""

    velocity_window_days: float = 7.0
    at_risk_threshold: float = 2.0
    off_track_threshold: float = 6.0
    severity_weights: Mapping[str, float] = field(
        default_factory=lambda: {"critical": 3, "warning": 1, "info": 0}
    )

    def __post_init__(self) -> None:
        window = self.velocity_window_days
        if not math.isfinite(window) or window <= 0:
            raise InvalidInput(f"--window {window} is not a number of days; give 1 or more")
        if window > MAX_WINDOW_DAYS:
            raise InvalidInput(f"--window {window:g} is too large; at most {MAX_WINDOW_DAYS} days")


@dataclass(frozen=True)
class Highlights:
    #: (number, title) of the Done items of the window.
    recently_completed: tuple[tuple[int, str], ...]
    #: (number, title) of Backlog items updated within the window (no creation time is
    #: kept on the board: the original's stand-in).
    newly_added: tuple[tuple[int, str], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "recentlyCompleted": [{"number": n, "title": t} for n, t in self.recently_completed],
            "newlyAdded": [{"number": n, "title": t} for n, t in self.newly_added],
        }


@dataclass(frozen=True)
class Metrics:
    velocity: int
    risk_score: float
    status: ProjectStatus
    highlights: Highlights

    def to_dict(self) -> dict[str, Any]:
        return {
            "velocity": self.velocity,
            "riskScore": self.risk_score,
            "status": self.status.value,
            "highlights": self.highlights.to_dict(),
        }


def calculate_velocity(items: Sequence[DashboardItem], window_days: float, now: float) -> int:
    """Items in Done whose close (else last update) is within the window."""
    window = window_days * DAY_SECONDS
    return sum(
        1
        for i in items
        if i.workflow_state == WorkflowState.DONE
        and now - (i.closed_at if i.closed_at is not None else i.updated_at) <= window
    )


def calculate_risk_score(warnings: Sequence[HealthWarning], weights: Mapping[str, float]) -> float:
    """The sum of each warning's severity weight (a severity without one weighs 0)."""
    return sum(weights.get(w.severity.value, 0) for w in warnings)


def determine_status(score: float, config: MetricsConfig) -> ProjectStatus:
    if score >= config.off_track_threshold:
        return ProjectStatus.OFF_TRACK
    if score >= config.at_risk_threshold:
        return ProjectStatus.AT_RISK
    return ProjectStatus.ON_TRACK


def extract_highlights(dashboard: Dashboard, window_days: float) -> Highlights:
    """The dashboard's Done bucket (already cut to its done window) and the Backlog items
    younger than the window."""
    done = dashboard.phase(WorkflowState.DONE).issues
    backlog = dashboard.phase(WorkflowState.BACKLOG).issues
    return Highlights(
        tuple((i.number, i.title) for i in done),
        tuple((i.number, i.title) for i in backlog if i.age_hours < window_days * 24),
    )


def calculate_metrics(
    items: Sequence[DashboardItem], dashboard: Dashboard, config: MetricsConfig, now: float
) -> Metrics:
    score = calculate_risk_score(dashboard.warnings, config.severity_weights)
    status = determine_status(score, config)
    escalated = any(w.type is WarningType.NEEDS_A_PERSON for w in dashboard.warnings)
    if escalated and status is ProjectStatus.ON_TRACK:
        # Work waiting for a person is not on track, however light the rest of the risk.
        status = ProjectStatus.AT_RISK
    return Metrics(
        velocity=calculate_velocity(items, config.velocity_window_days, now),
        risk_score=score,
        status=status,
        highlights=extract_highlights(dashboard, config.velocity_window_days),
    )


def _number(value: float) -> str:
    return f"{value:g}"


def _issues(count: int) -> str:
    return f"{count} issue{'' if count == 1 else 's'}"


def format_status_report(
    dashboard: Dashboard,
    metrics: Metrics,
    *,
    window_days: float,
    status: ProjectStatus | None = None,
) -> str:
    """The original's ``# Project Status Report`` body; ``status`` is a person's choice
    that replaces the one the risk score gives."""
    generated = datetime.fromtimestamp(dashboard.generated_at, UTC).isoformat()
    lines = [
        "# Project Status Report",
        "",
        f"_Generated: {generated.replace('+00:00', 'Z')}_",
        "",
        "## Pipeline Summary",
        "",
        "| Phase | Count |",
        "|---|---|",
        *(f"| {p.state} | {p.count} |" for p in dashboard.phases if p.count),
        "",
        f"**Total**: {_issues(dashboard.total_issues)}",
        "",
        "## Velocity",
        "",
        f"{_issues(metrics.velocity)} completed in the last {_number(window_days)} days.",
        "",
        "## Health Indicators",
        "",
    ]
    if dashboard.ok:
        lines.append("All clear — no health warnings.")
    lines += [f"- [{w.severity.value.upper()}] {inline(w.message)}" for w in dashboard.warnings]
    lines += ["", "## Highlights", ""]
    for title, entries in (
        ("Recently Completed", metrics.highlights.recently_completed),
        ("Newly Added", metrics.highlights.newly_added),
    ):
        lines += [f"### {title}", ""]
        lines += [f"- #{n} {inline(t)}" for n, t in entries] or ["None in this window."]
        lines.append("")
    chosen = status or metrics.status
    lines += [f"## Status: {chosen.value}", ""]
    if status is None:
        lines.append(f"Auto-determined from risk score ({_number(metrics.risk_score)}).")
    else:
        lines.append(f"Manually set to {status.value}.")
    return "\n".join(lines) + "\n"
