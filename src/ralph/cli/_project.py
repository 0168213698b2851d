"""The project a command runs in: its ralph.toml, store and tracker, honouring
``--store``; and the warnings a run gives about it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from ralph.config import (
    Config,
    Project,
    find_config,
    load_config,
    open_project,
    open_tracker,
    untested_warning,
)
from ralph.tasks import DEFAULT_STORE_URL
from ralph.tracker import Tracker

__all__ = [
    "open_project_of",
    "project_config",
    "project_tracker",
    "store_url",
    "warn",
    "warn_if_untested",
]


def _explicit_store(ctx: typer.Context) -> str | None:
    root = ctx.find_root()
    return root.obj.get("store_url") if root.obj else None


def project_config() -> Config:
    return load_config(Path.cwd())


def store_url(ctx: typer.Context) -> str:
    """``--store``/RALPH_STORE_URL, else the project's store, else the default."""
    explicit = _explicit_store(ctx)
    if explicit:
        return explicit
    if find_config(Path.cwd()) is not None:
        return project_config().resolved_store_url
    return DEFAULT_STORE_URL


@contextmanager
def project_tracker(ctx: typer.Context) -> Iterator[tuple[Config, Tracker]]:
    config = project_config()
    with open_tracker(config, store_url=_explicit_store(ctx)) as tracker:
        yield config, tracker


@contextmanager
def open_project_of(ctx: typer.Context) -> Iterator[Project]:
    """The project of the working directory: its configuration, tracker, store and git."""
    with open_project(project_config(), store_url=_explicit_store(ctx)) as project:
        yield project


def warn(text: str) -> None:
    """A warning a person must not miss: bold, on stderr."""
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"[bold yellow]Warning:[/] {escape(text)}"
    )


def warn_if_untested(config: Config) -> None:
    """Once per run: a project without a test command gets its implementations untested."""
    warning = untested_warning(config)
    if warning is not None:
        warn(warning)
