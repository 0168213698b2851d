"""From a configuration to live adapters: the database, the task store and the tracker
it names, and the project they serve; or the store or the database alone."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ralph._debuglog import DEBUG_LOG_DIR, debug_log_dir, disable_debug_log, enable_debug_log
from ralph._secrets import register_url
from ralph.config import Config
from ralph.db import Database, migrate, open_database
from ralph.errors import ConfigError
from ralph.git import GitRepo
from ralph.notify import Notifier, notifier_for
from ralph.tasks import DEFAULT_STORE_URL, TASK_STORE_MIGRATIONS, TaskStore, open_store
from ralph.tracker import LOCAL_TRACKER_MIGRATIONS, LocalTracker, Tracker

if TYPE_CHECKING:
    from ralph.tracker import GitHubTracker

__all__ = [
    "TEST_CHECK",
    "Project",
    "github_tracker",
    "migrate_database",
    "open_database_alone",
    "open_project",
    "open_store_alone",
    "open_tracker",
    "required_checks",
]

#: The local tracker's one required check: the project's test command, run on what a
#: pull request would merge (``phases.run_required_check``).
TEST_CHECK = "test"


def required_checks(config: Config) -> tuple[str, ...]:
    """The checks a local pull request must pass: none while nothing is tested."""
    return (TEST_CHECK,) if config.test_command.strip() else ()


def migrate_database(db: Database) -> list[int]:
    """Bring every table of ``db`` up to date (the task store's and the local
    tracker's, whichever tracker the project uses); returns the versions applied now."""
    return migrate(db, TASK_STORE_MIGRATIONS, LOCAL_TRACKER_MIGRATIONS)


def _store_url(config: Config | None, store_url: str | None) -> str:
    """``store_url`` (``--store``), else the configured store, else the default one
    (outside a project)."""
    url = store_url or (config.resolved_store_url if config is not None else DEFAULT_STORE_URL)
    register_url(url)  # its password never reaches a log, a comment or the store
    return url


def open_store_alone(config: Config | None, *, store_url: str | None = None) -> TaskStore:
    """The task store without the rest of the project (``ralph runs``, ``tasks``, ``db
    reap``): it must exist, and is brought up to the current schema."""
    return open_store(_store_url(config, store_url), create=False)


def open_database_alone(config: Config | None, *, store_url: str | None = None) -> Database:
    """The store's database, created when missing (``ralph db migrate``, which brings it
    up to date with ``migrate_database``)."""
    return open_database(_store_url(config, store_url))


@dataclass(frozen=True)
class Project:
    """Everything a phase works with: the configuration, the tracker, the task store (issue
    locks, checkpoints) and the repository."""

    config: Config
    tracker: Tracker
    store: TaskStore
    git: GitRepo
    #: Files Ralph itself writes while agents run (``ralph serve``'s status file): the
    #: check of what an agent wrote leaves them out when they are in the checkout.
    live_files: list[Path] = field(default_factory=list, compare=False)
    #: Where a word to a person goes (``[notify]``): an escalation, a run's end.
    notifier: Notifier = field(default_factory=Notifier, compare=False)


@contextmanager
def open_tracker(config: Config, *, store_url: str | None = None) -> Iterator[Tracker]:
    """The configured tracker, open for the ``with`` block (``store_url`` overrides the
    configured store, as ``--store`` does)."""
    with open_project(config, store_url=store_url) as project:
        yield project.tracker


def github_tracker(config: Config, env: Mapping[str, str] | None = None) -> GitHubTracker:
    """The GitHub tracker ``config`` names, over HTTPS with the environment's tokens."""
    # Here, not above: a project on the local tracker never loads the GitHub client.
    from ralph.github import ALL_ISSUE_FEATURES
    from ralph.project._github import github_client
    from ralph.tracker import GitHubTracker

    settings = config.github
    client = github_client(settings, os.environ if env is None else env)
    return GitHubTracker(
        client,
        owner=settings.owner,
        repo=settings.repo,
        project=settings.project,
        project_owner=settings.project_owner,
        # GitHub Enterprise Server may lack sub-issues or dependencies: ask it once.
        features=None if settings.api_url else ALL_ISSUE_FEATURES,
    )


@contextmanager
def open_project(config: Config, *, store_url: str | None = None) -> Iterator[Project]:
    """The configured project's adapters, open for the ``with`` block. The store must
    exist (``ralph init`` makes it): a missing one is an error, never a new empty board."""
    url = _store_url(config, store_url)
    # Restored on the way out: a process (a test) that opens several projects logs each
    # one's events to its own folder only while it is open.
    before = debug_log_dir()
    if config.debug.enabled:
        enable_debug_log(config.root / DEBUG_LOG_DIR)
    notifier = notifier_for(config.notify, cwd=config.root)
    try:
        with _open_adapters(config, url, notifier) as project:
            yield project
    finally:
        notifier.close()  # bounded: what is still queued gets a few seconds
        if before is None:
            disable_debug_log()
        else:
            enable_debug_log(before)


@contextmanager
def _open_adapters(config: Config, url: str, notifier: Notifier) -> Iterator[Project]:
    db = open_database(url, create=False)
    try:
        store = TaskStore(db)
    except BaseException:
        db.close()
        raise
    try:
        git = GitRepo(config.root)
        if config.tracker == "github":
            tracker = github_tracker(config)
            try:
                yield Project(config, tracker, store, git, notifier=notifier)
            finally:
                tracker.close()
            return
        if db.in_memory:
            raise ConfigError(
                "the local tracker keeps its issues in the database; set store to "
                "sqlite:///path or postgresql://... (memory:// forgets them on exit)"
            )
        local = LocalTracker(db, repo=config.repo, git=git, required_checks=required_checks(config))
        yield Project(config, local, store, git, notifier=notifier)
    finally:
        store.close()
