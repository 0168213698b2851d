"""``ralph hygiene``: the original's Project Hygiene Report of the board, and archiving
what has been done or canceled for long."""

from __future__ import annotations

import enum
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated

import typer

from ralph.cli._console import Console
from ralph.cli._echo import echo
from ralph.cli._markdown import print_markdown
from ralph.cli._project import project_tracker
from ralph.errors import InvalidInput

if TYPE_CHECKING:
    from ralph.board import ArchiveResult

__all__ = ["hygiene_command"]


class HygieneFormat(enum.StrEnum):
    MARKDOWN = "markdown"
    JSON = "json"


def _days(value: float) -> str:
    return f"{value:g}"


def _say_archived(result: ArchiveResult, days: float) -> None:
    console = Console(highlight=False)
    if not result.items and not result.errors:
        console.print(
            f"Nothing to archive: no issue done or canceled more than {_days(days)} days ago.",
            markup=False,
        )
        return
    count = len(result.items)
    if result.dry_run:
        head = f"Would archive {count} issue(s) done or canceled more than {_days(days)} days ago"
    else:
        head = f"Archived {count} issue(s) done or canceled more than {_days(days)} days ago"
    console.print(head + (":" if count else "."), markup=False)
    for item in result.items:
        console.print(
            f"  #{item.number} {item.title} ({item.workflow_state}, "
            f"{item.age_days:g} days since its last update)",
            markup=False,
        )
    for number, error in result.errors:
        console.print(f"  could not archive #{number}: {error}", style="red", markup=False)
    if result.dry_run:
        console.print("Dry run: nothing was archived.", markup=False)


def hygiene_command(
    ctx: typer.Context,
    archive_days: Annotated[
        float,
        typer.Option("--archive-days", help="Done or canceled this many days ago: archive it."),
    ] = 14.0,
    stale_days: Annotated[
        float, typer.Option("--stale-days", help="Open work not updated for this many days.")
    ] = 7.0,
    orphan_days: Annotated[
        float,
        typer.Option("--orphan-days", help="Unassigned Backlog issues this many days old."),
    ] = 14.0,
    similarity: Annotated[
        float,
        typer.Option("--similarity", help="How alike two titles must be (0..1) to be listed."),
    ] = 0.8,
    output: Annotated[
        HygieneFormat | None,
        typer.Option(
            "--format",
            "-f",
            help="markdown or json; unset, Markdown rendered on a terminal, raw when piped.",
            show_default=False,
        ),
    ] = None,
    archive: Annotated[
        bool,
        typer.Option("--archive", help="Archive the archive candidates (off lists and board)."),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="With --archive: say what it would archive.")
    ] = False,
) -> None:
    """The board's hygiene: what to archive, stale and orphaned issues, missing
    estimates and priorities, WIP limits exceeded, likely duplicates by title. With
    --archive, archive the issues done or canceled more than --archive-days ago."""
    from ralph.board import archive_candidates, hygiene_report
    from ralph.dashboard import HygieneConfig, format_hygiene_markdown

    if dry_run and not archive:
        raise InvalidInput("--dry-run goes with --archive (the report alone changes nothing)")
    settings = HygieneConfig(  # refuses a bad threshold before the tracker opens
        archive_days=archive_days,
        stale_days=stale_days,
        orphan_days=orphan_days,
        similarity_threshold=similarity,
    )
    with project_tracker(ctx) as (config, tracker):
        settings = replace(settings, wip_limits=config.wip_limits)
        report = hygiene_report(tracker, settings)
        result = archive_candidates(tracker, report, dry_run=dry_run) if archive else None
    if result is not None:
        if output is HygieneFormat.JSON:
            echo(json.dumps(result.to_dict(), indent=2))
        else:
            _say_archived(result, archive_days)
        if result.errors:
            raise typer.Exit(1)
    elif output is HygieneFormat.JSON:
        echo(json.dumps(report.to_dict(), indent=2))
    else:
        print_markdown(format_hygiene_markdown(report), raw=output is HygieneFormat.MARKDOWN)
