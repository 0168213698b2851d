"""The project status report of a tracker's board (``ralph report``): the dashboard, its
metrics, the status they give (or a person's), the body; and posting it as the board's
status update."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ralph._secrets import redact
from ralph.dashboard import (
    Dashboard,
    HealthConfig,
    Metrics,
    MetricsConfig,
    ProjectStatus,
    build_dashboard,
    calculate_metrics,
    format_status_report,
)
from ralph.tracker import StatusUpdate, Tracker, dashboard_items

__all__ = ["StatusReport", "post_status_report", "status_report"]


@dataclass(frozen=True)
class StatusReport:
    dashboard: Dashboard
    metrics: Metrics
    #: The status to post: the person's, else the one the risk score gives.
    status: ProjectStatus
    #: Whether a person chose the status.
    manual: bool
    window_days: float
    body: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "manual": self.manual,
            "windowDays": self.window_days,
            "metrics": self.metrics.to_dict(),
            "body": self.body,
        }


def status_report(
    tracker: Tracker,
    *,
    window_days: float = 7.0,
    status: ProjectStatus | None = None,
    health: HealthConfig | None = None,
    now: float | None = None,
) -> StatusReport:
    """The report over the last ``window_days`` (velocity and the Done column both use
    the window); ``health`` supplies the stuck thresholds and WIP limits."""
    metrics_config = MetricsConfig(velocity_window_days=window_days)  # refuses a bad window
    when = tracker.now() if now is None else now
    items = dashboard_items(tracker)
    config = replace(health or HealthConfig(), done_window_days=window_days)
    dashboard = build_dashboard(items, now=when, config=config)
    metrics = calculate_metrics(items, dashboard, metrics_config, when)
    body = format_status_report(dashboard, metrics, window_days=window_days, status=status)
    return StatusReport(
        dashboard=dashboard,
        metrics=metrics,
        status=status or metrics.status,
        manual=status is not None,
        window_days=window_days,
        body=body,
    )


def post_status_report(tracker: Tracker, report: StatusReport) -> StatusUpdate:
    """The report as the board's status update (GitHub Projects'; the local tracker
    keeps it)."""
    return tracker.create_status_update(report.status, redact(report.body))
