"""``ralph --version``, ``ralph -V`` and ``ralph version``: the installed distribution's
version, from its metadata (``ralph.__version__``)."""

from __future__ import annotations

import typer

from ralph.cli._echo import echo

__all__ = ["show_version", "version_command"]


def show_version(wanted: bool) -> None:
    """The eager ``--version`` option: print the version and stop before any command."""
    from ralph._distribution import version_line

    if wanted:
        echo(version_line())
        raise typer.Exit()


def version_command() -> None:
    """Print Ralph's version."""
    from ralph._distribution import version_line

    echo(version_line())
