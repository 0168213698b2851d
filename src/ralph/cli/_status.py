"""``ralph status``: the pipeline dashboard of the project's tracker, and the issues held: Rich's
tables on a terminal (``_status_render``), plain lines without Rich on a pipe
(``_status_plain``), or Markdown or JSON when asked for."""

from __future__ import annotations

import enum
import json
import time
from typing import TYPE_CHECKING, Annotated

import typer

from ralph.cli._bounds import MAX_COUNT
from ralph.cli._echo import echo, styled
from ralph.cli._project import open_project_of
from ralph.errors import InvalidInput

if TYPE_CHECKING:
    from ralph.tasks import Hold

__all__ = ["status_command"]


class StatusFormat(enum.StrEnum):
    TABLE = "table"
    MARKDOWN = "markdown"
    JSON = "json"


def status_command(
    ctx: typer.Context,
    output: Annotated[
        StatusFormat,
        typer.Option("--format", "-f", help="table (plain lines when piped), markdown or json."),
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
    elif not styled():
        # A pipe gets plain lines, without Rich (its console would print no styles there).
        from ralph.cli._status_plain import plain_dashboard, plain_lines

        echo(plain_dashboard(dashboard, issues_per_phase), end="")
        echo(plain_lines(_hold_line(h) for h in holds), end="")
        echo(plain_lines((wait.text for wait in waits), "○ "), end="")
    else:
        from rich.text import Text

        from ralph.cli._console import Console
        from ralph.cli._status_render import render_dashboard, render_provider_waits

        console = Console()
        console.print(render_dashboard(dashboard, issues_per_phase))
        for hold in holds:  # as typed: a detail may quote what an agent said
            console.print(Text(_hold_line(hold), style="yellow"))
        if waits:
            console.print(render_provider_waits([wait.text for wait in waits]))


def _project_numbers(projects: str | None) -> tuple[int, ...]:
    if projects is None:
        return ()
    from ralph.board import parse_projects

    return parse_projects(projects)


def _hold_line(hold: Hold) -> str:
    # The orchestrator's own words for a hold, imported only when something is held.
    from ralph.orchestrate import hold_line

    return hold_line(hold, hold.number)
