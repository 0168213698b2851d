"""The dashboard as Markdown, in the original's layout (docs/compatibility.md, DB cases)."""

from __future__ import annotations

from datetime import UTC, datetime

from ralph.dashboard._build import Dashboard, IssueSnapshot
from ralph.dashboard._inline import inline

__all__ = ["format_markdown"]


def _issue(issue: IssueSnapshot) -> str:
    return f"#{issue.number}, {issue.priority or 'P?'}, {issue.estimate or 'E?'}"


def format_markdown(dashboard: Dashboard, issues_per_phase: int = 10) -> str:
    generated = datetime.fromtimestamp(dashboard.generated_at, UTC).isoformat()
    lines = [
        "# Pipeline Status",
        "",
        f"_Generated: {generated}_",
        "",
        f"**Total issues**: {dashboard.total_issues}",
        "",
        "| Phase | Count | Issues |",
        "|---|---|---|",
    ]
    for phase in dashboard.phases:
        shown = "; ".join(_issue(i) for i in phase.issues[:issues_per_phase])
        if phase.count > issues_per_phase:
            shown += f"; ... +{phase.count - issues_per_phase} more"
        lines.append(f"| {phase.state} | {phase.count} | {shown} |")
    lines.append("")
    # Info notes (empty phases) are listed but do not spoil "All clear".
    lines.append("**Health**: All clear" if dashboard.ok else "**Health Warnings**:")
    lines += [f"- [{w.severity.value.upper()}] {inline(w.message)}" for w in dashboard.warnings]
    if dashboard.archive_eligible:
        lines += [
            "",
            "## Archive Eligibility",
            "",
            f"{len(dashboard.archive_eligible)} item(s) done or canceled more than "
            f"{dashboard.archive_threshold_days:g} days ago.",
            "",
            "| # | Title | State | Stale Days |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| #{n} | {inline(t)} | {s} | {d} |" for n, t, s, d in dashboard.archive_eligible
        ]
    if dashboard.projects:
        lines += ["", "## Per-Project Breakdown"]
        for project in dashboard.projects:
            lines += ["", f"### {project.title}", ""]
            counted = [p for p in project.phases if p.count]
            if not counted:
                lines.append("_No active items_")
                continue
            lines += ["| Phase | Count |", "|---|---|"]
            lines += [f"| {p.state} | {p.count} |" for p in counted]
    return "\n".join(lines) + "\n"
