"""From a configuration to live adapters: the tracker it names, over its store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ralph.config._config import Config
from ralph.errors import ConfigError
from ralph.git import GitRepo
from ralph.tasks import open_store
from ralph.tasks._sql import SqlStore
from ralph.tracker import LocalTracker, Tracker

__all__ = ["open_tracker"]


@contextmanager
def open_tracker(config: Config, *, store_url: str | None = None) -> Iterator[Tracker]:
    """The configured tracker, open for the ``with`` block (``store_url`` overrides the
    configured store, as ``--store`` does)."""
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
        yield LocalTracker(store, repo=config.repo, git=GitRepo(config.root))
    finally:
        store.close()
