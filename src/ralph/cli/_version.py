"""``ralph --version``, ``ralph -V`` and ``ralph version``: the installed distribution's
version, from its metadata (``ralph.__version__``)."""

from __future__ import annotations

import typer

__all__ = ["show_version", "version_command"]


def show_version(wanted: bool) -> None:
    """The eager ``--version`` option: print the version and stop before any command."""
    if wanted:  # asked on every run: it imports nothing unless it prints
        version_command()
        raise typer.Exit()


def version_command() -> None:
    """Print Ralph's version."""
    from ralph._distribution import version_line
    from ralph.cli._echo import echo

    echo(version_line())
