"""The ``ralph`` command line: a thin layer over the library.

Errors that are the user's to fix (a missing file, bad JSON, an unknown state) print one
line on stderr and exit 2; they never show a traceback.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from ralph.cli._pipeline import pipeline_app
from ralph.errors import RalphError

__all__ = ["EXIT_USER_ERROR", "app", "main"]

#: The exit code for input the user has to fix (the same code click uses for usage errors).
EXIT_USER_ERROR = 2


app = typer.Typer(
    name="ralph",
    help="Ralph drives issues from triage to merge, with coding agents doing each phase.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(pipeline_app)


@app.callback()
def _root(
    verbose: Annotated[
        int, typer.Option("--verbose", "-v", count=True, help="More log output (-vv: debug).")
    ] = 0,
) -> None:
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s %(message)s")


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line; exits with 0, 1 (a failure), or 2 (input to fix)."""
    try:
        app(args=list(argv) if argv is not None else None)
    except RalphError as exc:
        print(f"ralph: error: {exc}", file=sys.stderr)
        sys.exit(EXIT_USER_ERROR)
