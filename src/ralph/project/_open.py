"""From a configuration to live adapters: the database, the task store, the tracker and
code host it names (``_backends``), and the project they serve; or the store or the
database alone."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ralph._debuglog import DEBUG_LOG_DIR, debug_log_dir, disable_debug_log, enable_debug_log
from ralph._secrets import register_url
from ralph.config import Config
from ralph.db import Database, migrate, open_database
from ralph.git import GitRepo
from ralph.notify import Notifier, notifier_for
from ralph.project._backends import CODE_HOSTS, TRACKERS
from ralph.project._guarded import settle_settings
from ralph.project._on_use import OnUse, StoreOnUse
from ralph.tasks import TASK_STORE_MIGRATIONS
from ralph.tracker import LOCAL_TRACKER_MIGRATIONS, Issue, PullRequest, Tracker
from ralph.workflow import SettingsVerdict

if TYPE_CHECKING:
    from ralph.notify import CommandSandbox
    from ralph.tasks import TaskStore
    from ralph.tracker import CodeHost

__all__ = [
    "Project",
    "migrate_database",
    "notify_sandbox",
    "open_database_alone",
    "open_project",
    "open_store_alone",
    "open_tracker",
]


def migrate_database(db: Database) -> list[int]:
    """Bring every table of ``db`` up to date (the task store's and the local
    tracker's, whichever tracker the project uses); returns the versions applied now."""
    return migrate(db, TASK_STORE_MIGRATIONS, LOCAL_TRACKER_MIGRATIONS)


def _store_url(config: Config | None, store_url: str | None) -> str:
    """``store_url`` (``--store``), else the configured store, else the default one
    (outside a project)."""
    if store_url:
        url = store_url
    elif config is not None:
        url = config.resolved_store_url
    else:
        from ralph.tasks import DEFAULT_STORE_URL  # outside a project only: it loads the store

        url = DEFAULT_STORE_URL
    register_url(url)  # its password never reaches a log, a comment or the store
    return url


def open_store_alone(config: Config | None, *, store_url: str | None = None) -> TaskStore:
    """The task store without the rest of the project (``ralph runs``, ``tasks``, ``db
    reap``): it must exist, and is brought up to the current schema."""
    from ralph.tasks import open_store

    return open_store(_store_url(config, store_url), create=False)


def open_database_alone(config: Config | None, *, store_url: str | None = None) -> Database:
    """The store's database, created when missing (``ralph db migrate``, which brings it
    up to date with ``migrate_database``)."""
    return open_database(_store_url(config, store_url))


def notify_sandbox(config: Config) -> CommandSandbox:
    """How the notify command runs: the test command's environment (its allow-list and
    ``sandbox_env``), confined as it is."""
    from ralph.notify import CommandSandbox  # here: most commands notify nothing
    from ralph.runtimes import environment_for_tests

    env = environment_for_tests(os.environ, config.sandbox_env)
    return CommandSandbox(env, allow_unsandboxed=config.allow_unsandboxed)


@dataclass(frozen=True)
class Project:
    """Everything a phase works with: the configuration, the tracker (issues), the code
    host (pull requests), the task store (issue locks, checkpoints) and the repository."""

    config: Config
    tracker: Tracker
    code_host: CodeHost
    store: TaskStore
    git: GitRepo
    #: Files Ralph itself writes while agents run (``ralph serve``'s status file): the
    #: check of what an agent wrote leaves them out when they are in the checkout.
    live_files: list[Path] = field(default_factory=list, compare=False)
    #: Where a word to a person goes (``[notify]``): an escalation, a run's end.
    notifier: Notifier = field(default_factory=Notifier, compare=False)
    #: ralph.toml's guarded settings against the accepted ones: what to record and say
    #: (``config`` holds those in force).
    settings: SettingsVerdict = field(
        default_factory=lambda: SettingsVerdict({}, None, ()), compare=False
    )

    @property
    def repo_name(self) -> str:
        """The store's name for the repository: issue locks, merge keys, batches and
        rejections are kept under it (``repo`` in ralph.toml, else the checkout's folder)."""
        return self.config.repo or self.git.path.name

    def pull_requests_of(self, issue: Issue) -> list[PullRequest]:
        """The pull requests that close ``issue``, whole. Where the tracker is the code
        host's own service its issue names them (read one by one); a tracker on another
        service (Linear) knows none, so the code host is asked (a scan on GitHub)."""
        if self.config.code_host_kind == self.config.tracker:
            return [self.code_host.get_pull_request(n) for n in issue.pull_requests]
        listed = self.code_host.list_pull_requests(issue=issue.number)
        return [self.code_host.get_pull_request(pr.number) for pr in listed]


@contextmanager
def open_tracker(config: Config, *, store_url: str | None = None) -> Iterator[Tracker]:
    """The configured tracker, open for the ``with`` block (``store_url`` overrides the
    configured store, as ``--store`` does)."""
    with open_project(config, store_url=store_url) as project:
        yield project.tracker


@contextmanager
def open_project(
    config: Config, *, store_url: str | None = None, on_use: bool = False
) -> Iterator[Project]:
    """The configured project's adapters, open for the ``with`` block. The store must
    exist (``ralph init`` makes it): a missing one is an error, never a new empty board.
    ``on_use``: the code host and the task store open when first asked (a command that
    reads issues pays for neither); otherwise now, so a run that needs a code host and
    cannot have it (no token) stops before any agent works, not at its pull request."""
    url = _store_url(config, store_url)
    # Restored on the way out: a process (a test) that opens several projects logs each
    # one's events to its own folder only while it is open.
    before = debug_log_dir()
    if config.debug.enabled:
        enable_debug_log(config.root / DEBUG_LOG_DIR)
    try:
        with _open_adapters(config, url, on_use) as project:
            yield project
    finally:
        if before is None:
            disable_debug_log()
        else:
            enable_debug_log(before)


@contextmanager
def _open_adapters(config: Config, url: str, on_use: bool) -> Iterator[Project]:
    db = open_database(url, create=False)
    store = StoreOnUse(db, lambda: _task_store(db))
    notifier: Notifier | None = None
    try:
        if not on_use:
            store.opened()
        git = GitRepo(config.root)
        # Before anything reads them: the guarded settings a person accepted.
        config, settings = settle_settings(config, cast("TaskStore", store), git)
        # Without a target nothing is sent, so nothing needs the sandbox to send it.
        sandbox = notify_sandbox(config) if config.notify.configured else None
        notifier = notifier_for(config.notify, cwd=config.root, sandbox=sandbox)
        with ExitStack() as opened:  # closed last opened first: the code host, the tracker
            tracker = opened.enter_context(TRACKERS[config.tracker](config, db, git))
            open_host = CODE_HOSTS[config.code_host_kind]
            host = OnUse(
                "code host", lambda: opened.enter_context(open_host(config, db, git, tracker))
            )
            opened.callback(host.close)  # none opened once the block has ended
            code_host = host if on_use else host.opened()
            yield Project(
                config,
                tracker,
                cast("CodeHost", code_host),
                cast("TaskStore", store),
                git,
                notifier=notifier,
                settings=settings,
            )
    finally:
        if notifier is not None:
            notifier.close()  # bounded: what is still queued gets a few seconds
        store.close()
        db.close()


def _task_store(db: Database) -> TaskStore:
    from ralph.tasks import TaskStore  # here: a command that only reads issues needs none

    return TaskStore(db)
