"""``ralph status``: the pipeline dashboard of the project's tracker, and the issues held."""

from __future__ import annotations

import enum
import json
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ralph.cli._bounds import MAX_COUNT
from ralph.cli._console import Console
from ralph.cli._echo import echo
from ralph.cli._issue_text import cut, state_text, title_text
from ralph.cli._project import open_project_of
from ralph.dashboard import Severity, WarningType
from ralph.errors import InvalidInput

if TYPE_CHECKING:
    from ralph.dashboard import Dashboard, IssueSnapshot
    from ralph.tasks import Hold
    from ralph.views import ProviderWaitView

__all__ = ["status_command"]

_SEVERITY_STYLE = {Severity.CRITICAL: "bold red", Severity.WARNING: "yellow", Severity.INFO: "dim"}


class StatusFormat(enum.StrEnum):
    TABLE = "table"
    MARKDOWN = "markdown"
    JSON = "json"


def _issue_line(issue: IssueSnapshot) -> Text:
    line = Text()
    line.append(f"#{issue.number}", style="bold")
    if issue.estimate:
        line.append(f" {issue.estimate}", style="cyan")
    if issue.is_locked:
        line.append(" 🔒")
    if issue.title:
        line.append(" ")
        line.append_text(title_text(issue.title))
    return cut(line)


def render_dashboard(dashboard: Dashboard, issues_per_phase: int) -> RenderableType:
    total = dashboard.total_issues
    title = f"Pipeline — {total} issue{'' if total == 1 else 's'}"
    table = Table(title=title, title_justify="left")
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
    for warning in dashboard.warnings:
        if warning.type is WarningType.PIPELINE_GAP:
            continue  # an empty state while work is in flight is how a pipeline runs
        style = _SEVERITY_STYLE[warning.severity]
        health.append(f"\n  [{warning.severity.value}] ", style=style)
        health.append(warning.message)
    archive = Text(
        f"{dashboard.recently_completed} finished recently; "
        f"{len(dashboard.archive_eligible)} ready to archive (ralph hygiene --archive)",
        style="dim",
    )
    if not dashboard.projects:
        return Group(table, health, archive)
    boards = Table(title="Per project", title_justify="left")
    boards.add_column("Project")
    boards.add_column("Active", justify="right")
    boards.add_column("Issues per state")
    boards.add_column("Warnings", justify="right")
    for project in dashboard.projects:
        counted = ", ".join(f"{p.state} {p.count}" for p in project.phases if p.count)
        noted = [w for w in project.warnings if w.severity is not Severity.INFO]
        boards.add_row(
            f"#{project.number} {project.title}",
            str(project.active),
            counted or "no items",
            str(len(noted)) if noted else "",
        )
    return Group(table, boards, health, archive)


def render_provider_waits(waits: Sequence[ProviderWaitView]) -> Text:
    """A line for each agent whose provider refuses for now: its work waits."""
    return Text("\n".join(f"○ {wait.text}" for wait in waits), style="yellow")


def status_command(
    ctx: typer.Context,
    output: Annotated[
        StatusFormat, typer.Option("--format", "-f", help="table, markdown or json.")
    ] = StatusFormat.TABLE,
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    stuck_hours: Annotated[
        float | None, typer.Option("--stuck-hours", min=0.0, help="When an issue is stuck.")
    ] = None,
    issues_per_phase: Annotated[int, typer.Option("--issues-per-phase", min=1, max=MAX_COUNT)] = 10,
    projects: Annotated[
        str | None,
        typer.Option(
            "--projects",
            help="GitHub project numbers (3,5): their boards together, each broken down, "
            "and a warning when their workloads are out of balance.",
            show_default=False,
        ),
    ] = None,
    archived: Annotated[
        bool, typer.Option("--archived", help="Count archived issues too.")
    ] = False,
) -> None:
    """The pipeline dashboard: issues per state, WIP limits, stuck, blocked and oversized
    issues, lock collisions; only warnings count against health."""
    # Each imported where it is used: most runs show one board with nothing held.
    from ralph.views import load_board, load_provider_waits

    numbers = _project_numbers(projects)
    if numbers and archived:
        raise InvalidInput("--archived counts one board's archive; leave it out with --projects")
    with open_project_of(ctx) as project:
        config, tracker = project.config, project.tracker
        if numbers:
            from ralph.board import projects_dashboard
            from ralph.views import board_health

            health = board_health(config, stuck_hours)
            dashboard = projects_dashboard(tracker, numbers, config=health, now=time.time())
        else:
            board = load_board(
                tracker, config, now=time.time(), stuck_hours=stuck_hours, archived=archived
            )
            dashboard = board.dashboard
        # The store's: a wait another process heard shows here too.
        waits = load_provider_waits(project.store, now=time.time())
        holds = project.store.holds(config.repo)
    if as_json or output is StatusFormat.JSON:
        from ralph.views import hold_document

        document = dashboard.to_dict()
        document["holds"] = [hold_document(h) for h in holds]
        document["providerWaits"] = [wait.to_dict() for wait in waits]
        echo(json.dumps(document, indent=2))
    elif output is StatusFormat.MARKDOWN:
        from ralph.dashboard import format_markdown

        echo(format_markdown(dashboard, issues_per_phase), end="")
        for hold in holds:
            echo(f"- {_hold_line(hold)}")
        for wait in waits:
            echo(f"\n{wait.text}")
    else:
        console = Console()
        console.print(render_dashboard(dashboard, issues_per_phase))
        for hold in holds:  # as typed: a detail may quote what an agent said
            console.print(Text(_hold_line(hold), style="yellow"))
        if waits:
            console.print(render_provider_waits(waits))


def _project_numbers(projects: str | None) -> tuple[int, ...]:
    if projects is None:
        return ()
    from ralph.board import parse_projects

    return parse_projects(projects)


def _hold_line(hold: Hold) -> str:
    # The orchestrator's own words for a hold, imported only when something is held.
    from ralph.orchestrate import hold_line

    return hold_line(hold, hold.number)
