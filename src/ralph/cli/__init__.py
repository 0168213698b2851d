"""The ``ralph`` command line: a thin layer over the library.

An error prints one line on stderr, never a traceback, and exits 2 when it is the
person's to fix (a missing file, bad JSON, an unknown state) or 1 when the operation
failed or something it needs did not answer (``_exits``).
"""

from __future__ import annotations

import inspect
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Annotated

import typer

from ralph._logs import LOG_FORMATS, configure_logging
from ralph._secrets import register_url
from ralph.cli import (
    _by_hand,
    _console,
    _exits,
    _help,
    _hygiene,
    _init,
    _login,
    _mcp,
    _orchestrate,
    _route,
    _run,
    _serve,
    _status,
    _version,
    _web,
)
from ralph.cli._debug import debug_app
from ralph.cli._hook import hook_app
from ralph.cli._idea import idea_app
from ralph.cli._issue import issue_app
from ralph.cli._notify import notify_app
from ralph.cli._pipeline import pipeline_app
from ralph.cli._plugin import plugin_app
from ralph.cli._pr import pr_app
from ralph.cli._prompts import prompts_app
from ralph.cli._status_report import report_app
from ralph.cli._store import db_app, runs_app, store_app, tasks_app
from ralph.cli._sync import sync_app
from ralph.errors import InvalidInput, RalphError

__all__ = ["EXIT_USER_ERROR", "app", "main"]

#: The exit code for input the user has to fix (the same code click uses for usage errors).
EXIT_USER_ERROR = _exits.EXIT_INPUT


#: The root's commands in the panels of ``ralph --help``, grouped as gh groups its own:
#: what a person runs every day first, then the steps a person takes by hand, then the
#: setup and the board's upkeep, and last the plumbing other programs call.
_PANELS: tuple[tuple[str, tuple[typer.Typer | tuple[str, Callable[..., None]], ...]], ...] = (
    (
        "Core commands",
        (
            ("demo", _orchestrate.demo_command),
            ("init", _init.init_command),
            issue_app,
            ("hero", _orchestrate.hero_command),
            ("team", _orchestrate.team_command),
            ("run", _run.run_command),
            ("loop", _orchestrate.loop_command),
            ("serve", _serve.serve_command),
            ("web", _web.web_command),
            ("status", _status.status_command),
            runs_app,
            pr_app,
        ),
    ),
    (
        "By hand",
        (
            idea_app,
            _by_hand.plan_app,
            ("research", _by_hand.research_command),
            ("approve", _run.approve_command),
            ("review", _by_hand.review_command),
            ("implement", _by_hand.implement_command),
            sync_app,
        ),
    ),
    (
        "Setup and upkeep",
        (
            ("doctor", _init.doctor_command),
            ("login", _login.login_command),
            notify_app,
            ("version", _version.version_command),
            plugin_app,
            ("hygiene", _hygiene.hygiene_command),
            report_app,
            ("route", _route.route_command),
            debug_app,
        ),
    ),
    (
        "Plumbing",
        (
            ("worker", _orchestrate.worker_command),
            ("mcp", _mcp.mcp_command),
            hook_app,
            pipeline_app,
            prompts_app,
            tasks_app,
            db_app,
            store_app,
        ),
    ),
)
app = typer.Typer(
    name="ralph",
    help="Ralph drives issues from triage to merge, with coding agents doing each phase.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion, --show-completion
    pretty_exceptions_enable=False,
    cls=_help.listing_in(
        tuple(
            entry[0] if isinstance(entry, tuple) else str(entry.info.name)
            for _, entries in _PANELS
            for entry in entries
        )
    ),
)


def _add_commands() -> None:
    for panel, entries in _PANELS:
        for entry in entries:
            if isinstance(entry, typer.Typer):
                app.add_typer(entry, rich_help_panel=panel)
            else:
                name, command = entry
                app.command(name, rich_help_panel=panel)(command)


_add_commands()


def _unwrap_summaries(typer_app: typer.Typer) -> None:
    """Give every command a one-line summary from its docstring's first paragraph.

    Rich help lists a command by that paragraph but keeps its hard line breaks, so a
    docstring wrapped at 100 columns shows ragged lines in ``ralph --help``.
    """
    for info in typer_app.registered_commands:
        doc = inspect.getdoc(info.callback) if info.callback else None
        if info.short_help is None and info.help is None and doc:
            info.short_help = " ".join(doc.split("\n\n")[0].split())
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _unwrap_summaries(group.typer_instance)


_unwrap_summaries(app)


@app.callback()
def _root(
    ctx: typer.Context,
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            envvar="RALPH_STORE_URL",
            help="Store URL: sqlite:///path, postgresql://..., memory:// "
            "(default: ralph.toml's, else sqlite:///.ralph/ralph.db).",
            show_default=False,
        ),
    ] = None,
    verbose: Annotated[
        int,
        typer.Option(
            "--verbose", "-v", count=True, help="More log output (-vv: debug).", show_default=False
        ),
    ] = 0,
    log_format: Annotated[
        str,
        typer.Option(
            "--log-format",
            envvar="RALPH_LOG_FORMAT",
            help="How log lines look: text (key=value fields) or json (one object per line); "
            "the same for every command, ralph serve and ralph worker included.",
        ),
    ] = "text",
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            is_eager=True,
            callback=_version.show_version,
            help="Print Ralph's version and exit.",
        ),
    ] = False,
) -> None:
    ctx.obj = {"store_url": store}
    if log_format not in LOG_FORMATS:
        raise InvalidInput(f"--log-format {log_format!r} is unknown; use text or json")
    configure_logging(logging.WARNING - 10 * min(verbose, 2), log_format)
    if store:
        register_url(store)


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line; exits with 0, 1 (a failure), 2 (input to fix) or 130."""
    try:
        app(args=list(argv) if argv is not None else None)
    except RalphError as exc:
        _console.echo(f"ralph: error: {exc}", err=True)
        sys.exit(_exits.exit_code(exc))
