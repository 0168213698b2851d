"""The project a command runs in: its ralph.toml, store and tracker, honouring ``--store``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer

from ralph.config import Config, Project, find_config, load_config, open_project, open_tracker
from ralph.tasks import DEFAULT_STORE_URL
from ralph.tracker import Tracker

__all__ = ["open_project_of", "project_config", "project_tracker", "store_url"]


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
def open_project_of(ctx: typer.Context, *, working: bool = False) -> Iterator[Project]:
    """The project of the working directory: its configuration, tracker, store and git.
    ``working``: a command that runs phases, which first puts back any checkout a crashed
    run left half-updated (before anything else can read or commit it)."""
    with open_project(project_config(), store_url=_explicit_store(ctx)) as project:
        if working:
            project.git.recover_interrupted()
        yield project
