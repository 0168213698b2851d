"""``ralph init``: set Ralph up in a project's git repository."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ralph.config import init_project

__all__ = ["init_command"]


def init_command(
    path: Annotated[
        Path, typer.Argument(help="A folder inside the project's git repository.")
    ] = Path("."),
) -> None:
    """Set Ralph up in a git repository: ralph.toml and the local database. Safe to re-run."""
    result = init_project(path)
    console = Console(highlight=False)
    verb = "Created" if result.created_config else "Found"
    console.print(f"{verb} {result.config_path}")
    console.print(
        f"Tracker: {result.config.tracker} (repo {result.config.repo}), "
        f"store: {result.config.store_url}"
    )
    if result.migrated:
        console.print(f"Database ready (schema versions {', '.join(map(str, result.migrated))})")
    if result.ignored_store:
        console.print("Added .ralph/ to .gitignore")
    if result.created_config:
        console.print('Next: ralph issue new "My first issue", then ralph status')
