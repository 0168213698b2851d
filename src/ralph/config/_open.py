"""From a configuration to live adapters: the tracker it names, over its store, and the
project they serve."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ralph.config._config import Config
from ralph.errors import ConfigError
from ralph.git import GitRepo
from ralph.tasks import TaskStore, open_store
from ralph.tasks._sql import SqlStore
from ralph.tracker import LocalTracker, Tracker

__all__ = ["Project", "open_project", "open_tracker"]


@dataclass(frozen=True)
class Project:
    """Everything a phase works with: the configuration, the tracker, the task store (issue
    locks, checkpoints) and the repository."""

    config: Config
    tracker: Tracker
    store: TaskStore
    git: GitRepo


@contextmanager
def open_tracker(config: Config, *, store_url: str | None = None) -> Iterator[Tracker]:
    """The configured tracker, open for the ``with`` block (``store_url`` overrides the
    configured store, as ``--store`` does)."""
    with open_project(config, store_url=store_url) as project:
        yield project.tracker


@contextmanager
def open_project(config: Config, *, store_url: str | None = None) -> Iterator[Project]:
    """The configured project's adapters, open for the ``with`` block."""
    if config.tracker != "local":
        raise ConfigError(
            f"the {config.tracker} tracker is not available in this version; "
            'set tracker = "local" in ralph.toml'
        )
    store = open_store(store_url or config.resolved_store_url)
    try:
        if not isinstance(store, SqlStore):
            raise ConfigError(
                "the local tracker keeps its issues in a database; set store to "
                "sqlite:///path or postgresql://... (memory:// forgets them on exit)"
            )
        git = GitRepo(config.root)
        yield Project(config, LocalTracker(store, repo=config.repo, git=git), store, git)
    finally:
        store.close()
