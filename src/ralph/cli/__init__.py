"""The ``ralph`` command line: a thin layer over the library.

An error prints one line on stderr, never a traceback, and exits 2 when it is the
person's to fix (a missing file, bad JSON, an unknown state) or 1 when the operation
failed or something it needs did not answer (``_exits``).
"""

from __future__ import annotations

import inspect
import logging
import sys
from collections.abc import Sequence
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


app = typer.Typer(
    name="ralph",
    help="Ralph drives issues from triage to merge, with coding agents doing each phase.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=_help.HelpAsWritten,
)
for sub_app in (
    issue_app,
    pr_app,
    pipeline_app,
    prompts_app,
    runs_app,
    tasks_app,
    store_app,
    db_app,
):
    app.add_typer(sub_app)
# The workflows a person drives by hand.
for sub_app in (idea_app, _by_hand.plan_app):
    app.add_typer(sub_app)
# The debug log read back.
app.add_typer(debug_app)
# What people did outside Ralph, brought into the workflow.
app.add_typer(sync_app)
# The Claude Code plugin's hooks and folder.
for sub_app in (hook_app, plugin_app):
    app.add_typer(sub_app)
app.command("init")(_init.init_command)
app.command("doctor")(_init.doctor_command)
app.command("login")(_login.login_command)
app.command("status")(_status.status_command)
# The board kept tidy and reported on.
app.command("hygiene")(_hygiene.hygiene_command)
app.add_typer(report_app)
app.command("route")(_route.route_command)
app.command("run")(_run.run_command)
app.command("approve")(_run.approve_command)
app.command("research")(_by_hand.research_command)
app.command("review")(_by_hand.review_command)
app.command("implement")(_by_hand.implement_command)
app.command("mcp")(_mcp.mcp_command)
app.command("hero")(_orchestrate.hero_command)
app.command("team")(_orchestrate.team_command)
app.command("loop")(_orchestrate.loop_command)
app.command("serve")(_serve.serve_command)
app.command("worker")(_orchestrate.worker_command)
app.command("web")(_web.web_command)
app.command("demo")(_orchestrate.demo_command)
app.command("version")(_version.version_command)


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
        int, typer.Option("--verbose", "-v", count=True, help="More log output (-vv: debug).")
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
