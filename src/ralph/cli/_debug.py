"""``ralph debug stats`` and ``ralph debug collate``: the debug log (``RALPH_DEBUG=1``)
read back, thin over :mod:`ralph.debug`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from ralph.cli._console import Console
from ralph.cli._echo import echo
from ralph.cli._project import open_project_of, project_config
from ralph.debug import GroupBy

if TYPE_CHECKING:
    from ralph.debug import CollateResult, LogRead, Stats

__all__ = ["debug_app"]

debug_app = typer.Typer(
    name="debug",
    help="The debug log (RALPH_DEBUG=1, or [debug] enabled in ralph.toml): statistics, "
    "and recurring errors filed as debug-auto issues.",
    no_args_is_help=True,
)


def _read(since: str) -> LogRead:
    from ralph._debuglog import DEBUG_LOG_DIR
    from ralph.debug import parse_since, read_events

    moment = parse_since(since, datetime.now(UTC))
    return read_events(project_config().root / DEBUG_LOG_DIR, moment)


@debug_app.command("stats")
def stats_command(
    since: Annotated[
        str, typer.Option("--since", help="A span back from now (30m, 24h, 7d, 2w) or a date.")
    ] = "7d",
    group_by: Annotated[
        GroupBy,
        typer.Option(
            "--group-by", help="tool (the tool, operation, hook or phase), category, day."
        ),
    ] = GroupBy.TOOL,
    as_json: Annotated[bool, typer.Option("--json", help="The statistics as JSON.")] = False,
) -> None:
    """Calls, errors and time of the debug log's events, per tool, category or day."""
    from ralph.debug import debug_stats

    read = _read(since)
    stats = debug_stats(read.events, since=read.since, sessions=read.sessions, group_by=group_by)
    if as_json:
        echo(json.dumps(stats.to_dict(), indent=2))
        return
    Console().print(_stats_table(stats))


def _stats_table(stats: Stats) -> Table | str:
    if not stats.groups:
        return f"No events found since {stats.since}."
    table = Table(
        title=f"{stats.total_calls} events, {stats.total_errors} errors "
        f"({stats.error_rate_percent:g}%) from {stats.sessions} process(es) since {stats.since}",
        title_justify="left",
    )
    for column in (stats.group_by.value, "calls", "errors", "error rate", "avg ms", "total ms"):
        table.add_column(column, justify="left" if column == stats.group_by.value else "right")
    for key, group in stats.groups.items():
        table.add_row(
            key,
            str(group.calls),
            str(group.errors),
            f"{group.error_rate:.0%}",
            str(group.avg_duration_ms),
            str(group.total_duration_ms),
        )
    return table


@debug_app.command("collate")
def collate_command(
    ctx: typer.Context,
    since: Annotated[
        str, typer.Option("--since", help="A span back from now (30m, 24h, 7d, 2w) or a date.")
    ] = "24h",
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the error groups; file nothing.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The result as JSON.")] = False,
) -> None:
    """Group the debug log's errors by signature (numbers, hashes, times and paths made
    alike) and file one debug-auto issue per signature: a new one, or an ## Occurrence
    Report on the one filed before (only occurrences it has not reported)."""
    from ralph.debug import collate

    read = _read(since)
    if dry_run:
        result = collate(read, None, dry_run=True)
    else:
        with open_project_of(ctx) as project:
            result = collate(read, project.tracker)
    if as_json:
        echo(json.dumps(result.to_dict(), indent=2))
        return
    _print_collated(result)


def _print_collated(result: CollateResult) -> None:
    console = Console(highlight=False)
    if not result.filed:
        console.print(f"No errors found since {result.since}.", markup=False)
        return
    total = sum(f.group.count for f in result.filed)
    console.print(
        f"{len(result.filed)} error signature(s), {total} occurrence(s) since {result.since}"
        + (" (dry run: nothing filed)" if result.dry_run else ""),
        markup=False,
    )
    for filed in result.filed:
        where = f" #{filed.issue} {filed.action}" if filed.issue is not None else ""
        console.print(
            f"  {filed.group.hash} ×{filed.group.count}{where}: {filed.group.signature}",
            markup=False,
        )
    if not result.dry_run:
        console.print(f"{result.created} issue(s) created, {result.updated} updated.", markup=False)
