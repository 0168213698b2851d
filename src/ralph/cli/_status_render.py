"""``ralph status`` on a terminal: the dashboard as Rich's tables, each title cut with
"…" at its column's edge. A pipe gets ``_status_plain``'s lines instead, without Rich;
the words both show are that module's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ralph.cli._issue_text import cut, state_text, title_text
from ralph.cli._status_plain import (
    LOCKED,
    archive_line,
    pipeline_title,
    project_cells,
    shown_warnings,
)
from ralph.dashboard import Severity

if TYPE_CHECKING:
    from ralph.dashboard import Dashboard, IssueSnapshot

__all__ = ["render_dashboard", "render_provider_waits"]

_SEVERITY_STYLE = {Severity.CRITICAL: "bold red", Severity.WARNING: "yellow", Severity.INFO: "dim"}


def _issue_line(issue: IssueSnapshot) -> Text:
    line = Text()
    line.append(f"#{issue.number}", style="bold")
    if issue.estimate:
        line.append(f" {issue.estimate}", style="cyan")
    if issue.is_locked:
        line.append(f" {LOCKED}")
    if issue.title:
        line.append(" ")
        line.append_text(title_text(issue.title))
    return cut(line)


def render_dashboard(dashboard: Dashboard, issues_per_phase: int) -> RenderableType:
    table = Table(title=pipeline_title(dashboard), title_justify="left")
    # States and counts are never cut: an issue's title is, with "…", one issue a line
    # (each line its own text, so one long title cannot widen the column past the edge).
    longest = max((len(p.state) for p in dashboard.phases), default=5)
    table.add_column("State", no_wrap=True, min_width=longest)
    table.add_column("Count", justify="right", no_wrap=True, min_width=5)
    table.add_column("Issues")
    for phase in dashboard.phases:
        shown = [_issue_line(i) for i in phase.issues[:issues_per_phase]]
        if phase.count > issues_per_phase:
            shown.append(Text(f"+{phase.count - issues_per_phase} more", style="dim"))
        table.add_row(
            state_text(phase.state),
            str(phase.count) if phase.count else "",
            Group(*shown),
        )
    health = Text()
    if dashboard.ok:
        health.append("Health: all clear", style="bold green")
    else:
        health.append("Health: needs attention", style="bold red")
    for warning in shown_warnings(dashboard):
        style = _SEVERITY_STYLE[warning.severity]
        health.append(f"\n  [{warning.severity.value}] ", style=style)
        health.append(warning.message)
    archive = Text(archive_line(dashboard), style="dim")
    if not dashboard.projects:
        return Group(table, health, archive)
    boards = Table(title="Per project", title_justify="left")
    boards.add_column("Project")
    boards.add_column("Active", justify="right")
    boards.add_column("Issues per state")
    boards.add_column("Warnings", justify="right")
    for project in dashboard.projects:
        boards.add_row(*project_cells(project))
    return Group(table, boards, health, archive)


def render_provider_waits(texts: Sequence[str]) -> Text:
    """A line for each agent whose provider refuses for now: its work waits."""
    return Text("\n".join(f"○ {text}" for text in texts), style="yellow")
