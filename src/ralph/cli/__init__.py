"""The ``ralph`` command line: a thin layer over the library.

An error prints one line on stderr, never a traceback, and exits 2 when it is the
person's to fix (a missing file, bad JSON, an unknown state) or 1 when the operation
failed or something it needs did not answer (``_exits``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from ralph.cli import _exits, _lazy_root, _slim_help, _version
from ralph.errors import InvalidInput, RalphError

__all__ = ["EXIT_USER_ERROR", "app", "main"]

#: The exit code for input the user has to fix (the same code click uses for usage errors).
EXIT_USER_ERROR = _exits.EXIT_INPUT

#: The root: its commands (``_commands``) are imported and built only when one runs.
app = typer.Typer(
    name="ralph",
    help="Ralph drives issues from triage to merge, with coding agents doing each phase.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion, --show-completion
    pretty_exceptions_enable=False,
    cls=_lazy_root.LazyRoot,
)


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
    # Here, not at the top: ``ralph --help`` and ``--version`` log nothing.
    import logging

    from ralph._logs import LOG_FORMATS, configure_logging
    from ralph._secrets import register_url

    ctx.obj = {"store_url": store}
    if log_format not in LOG_FORMATS:
        raise InvalidInput(f"--log-format {log_format!r} is unknown; use text or json")
    configure_logging(logging.WARNING - 10 * min(verbose, 2), log_format)
    if store:
        register_url(store)


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line; exits with 0, 1 (a failure), 2 (input to fix) or 130."""
    _slim_help.install()
    try:
        app(args=list(argv) if argv is not None else None)
    except RalphError as exc:
        from ralph.cli._echo import echo

        echo(f"ralph: error: {exc}", err=True)
        sys.exit(_exits.exit_code(exc))
