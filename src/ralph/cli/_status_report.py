"""``ralph report``: the project status report (velocity, risk, ON_TRACK / AT_RISK /
OFF_TRACK by the original's formulas) posted as the board's status update, and
``ralph report list`` for the updates posted so far."""

from __future__ import annotations

import enum
import json
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from ralph.cli._bounds import MAX_COUNT
from ralph.cli._console import Console
from ralph.cli._echo import echo
from ralph.cli._markdown import print_markdown
from ralph.cli._project import project_tracker
from ralph.dashboard import ProjectStatus

if TYPE_CHECKING:
    from ralph.tracker import StatusUpdate

__all__ = ["report_app"]

report_app = typer.Typer(
    name="report",
    help="The project status report, posted as the board's status update.",
    invoke_without_command=True,
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]


class ReportFormat(enum.StrEnum):
    MARKDOWN = "markdown"
    JSON = "json"


def _update_dict(update: StatusUpdate) -> dict[str, Any]:
    from ralph.tracker import iso

    return {
        "id": update.id,
        "status": update.status.value if update.status else None,
        "body": update.body,
        "startDate": update.start_date,
        "targetDate": update.target_date,
        "author": update.author,
        "createdAt": iso(update.created_at),
        "updatedAt": iso(update.updated_at),
    }


@report_app.callback()
def report_command(
    ctx: typer.Context,
    window: Annotated[
        float, typer.Option("--window", help="Days back for velocity and what was done.")
    ] = 7.0,
    status: Annotated[
        ProjectStatus | None,
        typer.Option("--status", help="Post this status instead of the one the risk gives."),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print it; post nothing.")] = False,
    as_json: JsonOpt = False,
    output: Annotated[
        ReportFormat | None,
        typer.Option(
            "--format",
            "-f",
            help="markdown or json; unset, Markdown rendered on a terminal, raw when piped.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """The project status report: the pipeline, velocity over --window days, health
    warnings, highlights and the status (ON_TRACK, AT_RISK, OFF_TRACK from the risk
    score, or --status), posted as a status update on the board (GitHub Projects';
    the local tracker keeps them: ralph report list)."""
    from ralph.board import post_status_report, status_report
    from ralph.dashboard import HealthConfig, MetricsConfig

    if ctx.invoked_subcommand is not None:
        return
    MetricsConfig(velocity_window_days=window)  # a bad window is refused before anything
    with project_tracker(ctx) as (config, tracker):
        stuck = config.stuck_threshold_hours
        health = HealthConfig(
            stuck_threshold_hours=stuck,
            critical_stuck_hours=2 * stuck,
            wip_limits=config.wip_limits,
        )
        report = status_report(tracker, window_days=window, status=status, health=health)
        posted = None if dry_run else post_status_report(tracker, report)
    if as_json or output is ReportFormat.JSON:
        found: dict[str, Any] = {"report": report.to_dict(), "dryRun": dry_run}
        if posted is not None:
            found["statusUpdate"] = _update_dict(posted)
        echo(json.dumps(found, indent=2))
        return
    print_markdown(report.body, raw=output is ReportFormat.MARKDOWN)
    if posted is None:
        echo(f"Dry run: no status update posted (the status would be {report.status.value}).")
    else:
        echo(f"Posted status update {posted.id} ({report.status.value}).")


@report_app.command("list")
def report_list(
    ctx: typer.Context,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, max=MAX_COUNT, help="The newest N.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """The board's status updates, newest first."""
    from ralph.tracker import iso

    with project_tracker(ctx) as (_, tracker):
        updates = tracker.list_status_updates()
    updates = updates[:limit] if limit is not None else updates
    if as_json:
        echo(json.dumps([_update_dict(u) for u in updates], indent=2))
        return
    if not updates:
        Console(highlight=False).print("No status updates yet: ralph report posts one.")
        return
    table = Table(title="Status updates", title_justify="left")
    for column in ("Id", "Status", "Posted", "By", "Velocity"):
        table.add_column(column)
    for update in updates:
        velocity = next(
            (line for line in update.body.splitlines() if "issues completed in the last" in line),
            "",
        )
        table.add_row(
            update.id,
            update.status.value if update.status else "",
            iso(update.created_at) or "",
            update.author,
            velocity,
        )
    Console().print(table)
