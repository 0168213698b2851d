"""``ralph status`` for a pipe, without Rich: the dashboard as plain lines, as
``_issue_rows`` is the issue list's. A state and its count on a line, then its issues one
a line, indented; the per-project breakdown, health, archive, holds and provider waits
after, in the terminal's order. Titles are whole (nothing is cut on a pipe) and as
written; the wording of what both show is this module's, which the terminal's renderer
(``_status_render``) uses too."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ralph._secrets import redact
from ralph._text import printable

if TYPE_CHECKING:
    from ralph.dashboard import Dashboard, HealthWarning, IssueSnapshot, ProjectBreakdown

__all__ = [
    "archive_line",
    "pipeline_title",
    "plain_dashboard",
    "plain_lines",
    "project_cells",
    "shown_warnings",
]

#: Shown after an issue being worked on (its lock held).
LOCKED = "🔒"


def pipeline_title(dashboard: Dashboard) -> str:
    total = dashboard.total_issues
    return f"Pipeline — {total} issue{'' if total == 1 else 's'}"


def shown_warnings(dashboard: Dashboard) -> list[HealthWarning]:
    """The warnings a person is shown: an empty state while work is in flight is how a
    pipeline runs, so its note stays in the JSON and Markdown only."""
    from ralph.dashboard import WarningType

    return [w for w in dashboard.warnings if w.type is not WarningType.PIPELINE_GAP]


def archive_line(dashboard: Dashboard) -> str:
    return (
        f"{dashboard.recently_completed} finished recently; "
        f"{len(dashboard.archive_eligible)} ready to archive (ralph hygiene --archive)"
    )


def project_cells(project: ProjectBreakdown) -> tuple[str, str, str, str]:
    """A project's breakdown: its name, active items, issues per state and how many
    warnings (not notes) it has, "" for none."""
    from ralph.dashboard import Severity

    counted = ", ".join(f"{p.state} {p.count}" for p in project.phases if p.count)
    noted = [w for w in project.warnings if w.severity is not Severity.INFO]
    return (
        f"#{project.number} {project.title}",
        str(project.active),
        counted or "no items",
        str(len(noted)) if noted else "",
    )


def _line(text: str) -> str:
    """Text from outside (a title, an agent's words) on one line, its control characters
    dropped as the terminal's console drops them, its known secrets masked."""
    # Dropped first, masked after: a secret split by a control character is whole again
    # once it is dropped, and must be seen whole to be masked.
    return " ".join(redact(printable(text, "")).split())


def _issue_line(issue: IssueSnapshot) -> str:
    words = [f"#{issue.number}"]
    if issue.estimate:
        words.append(_line(issue.estimate))
    if issue.is_locked:
        words.append(LOCKED)
    if issue.title:
        words.append(_line(issue.title))
    return " ".join(words)


def plain_dashboard(dashboard: Dashboard, issues_per_phase: int) -> str:
    """The dashboard as ``ralph status`` prints it to a pipe, ending in a line break."""
    lines = [pipeline_title(dashboard)]
    for phase in dashboard.phases:
        lines.append(f"{phase.state}: {phase.count}")
        lines += [f"  {_issue_line(i)}" for i in phase.issues[:issues_per_phase]]
        if phase.count > issues_per_phase:
            lines.append(f"  +{phase.count - issues_per_phase} more")
    if dashboard.projects:
        lines.append("Per project")
        for project in dashboard.projects:
            name, active, counted, warned = project_cells(project)
            warnings = f"; {warned} warning{'' if warned == '1' else 's'}" if warned else ""
            lines.append(f"  {_line(name)}: {active} active; {counted}{warnings}")
    lines.append("Health: all clear" if dashboard.ok else "Health: needs attention")
    lines += [f"  [{w.severity.value}] {_line(w.message)}" for w in shown_warnings(dashboard)]
    lines.append(archive_line(dashboard))
    return "".join(f"{line}\n" for line in lines)


def plain_lines(texts: Iterable[str], prefix: str = "") -> str:
    """Lines from outside (holds, provider waits), one line each, after ``prefix``."""
    return "".join(f"{prefix}{_line(text)}\n" for text in texts)
