"""Which tracker and which code host a project uses: one :class:`Backend` record per
kind (``project/_backend.py``), each opening its tracker and/or code host from the
settings for a ``with`` block, setting it up for ``ralph init`` and checking it for
``ralph doctor``. A new service is one module (``project/_NAME_backend.py``) and one
entry in ``BACKENDS``; its settings are ``config``'s record of the same name."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ralph.config import Config
from ralph.db import Database
from ralph.errors import ConfigError
from ralph.git import GitRepo
from ralph.project._backend import Backend, OpenCodeHost, OpenTracker
from ralph.project._github_backend import GITHUB
from ralph.project._gitlab_backend import GITLAB
from ralph.project._jira_backend import JIRA
from ralph.project._linear_backend import LINEAR
from ralph.tracker import CodeHost, LocalCodeHost, LocalTracker, Tracker

if TYPE_CHECKING:
    from ralph.tracker import Check

__all__ = [
    "BACKENDS",
    "CODE_HOSTS",
    "TEST_CHECK",
    "TRACKERS",
    "code_host_checks",
    "first_issue",
    "pull_requests_elsewhere",
    "required_checks",
]

#: The local code host's one required check: the project's test command, run on what a
#: pull request would merge (``phases.run_required_check``).
TEST_CHECK = "test"


def required_checks(config: Config) -> tuple[str, ...]:
    """The checks a local pull request must pass: none while nothing is tested."""
    return (TEST_CHECK,) if config.test_command.strip() else ()


@contextmanager
def _local_tracker(config: Config, db: Database, git: GitRepo) -> Iterator[Tracker]:
    if db.in_memory:
        raise ConfigError(
            "the local tracker keeps its issues in the database; set store to "
            "sqlite:///path or postgresql://... (memory:// forgets them on exit)"
        )
    yield LocalTracker(db, repo=config.repo)


@contextmanager
def _local_code_host(
    config: Config, db: Database, git: GitRepo, tracker: Tracker
) -> Iterator[CodeHost]:
    if db.in_memory:
        raise ConfigError(
            "the local code host keeps its pull requests in the database; set store to "
            "sqlite:///path or postgresql://... (memory:// forgets them on exit)"
        )
    yield LocalCodeHost(
        db, repo=config.repo, tracker=tracker, git=git, required_checks=required_checks(config)
    )


#: Issues in tables of Ralph's database, numbered from 1; pull requests as branches of
#: this repository.
LOCAL = Backend(
    name="local", open_tracker=_local_tracker, open_code_host=_local_code_host, first_issue="1"
)

#: Every kind ralph.toml's ``tracker`` and ``code_host`` may name.
BACKENDS: dict[str, Backend] = {b.name: b for b in (LOCAL, GITHUB, LINEAR, JIRA, GITLAB)}
TRACKERS: dict[str, OpenTracker] = {
    name: b.open_tracker for name, b in BACKENDS.items() if b.open_tracker
}
CODE_HOSTS: dict[str, OpenCodeHost] = {
    name: b.open_code_host for name, b in BACKENDS.items() if b.open_code_host
}


def code_host_checks(config: Config) -> list[Check]:
    """What ``ralph doctor`` checks of the code host beside another tracker (a tracker
    that is also the code host checks both in ``Tracker.check()``)."""
    if config.code_host_kind == config.tracker:
        return []
    return BACKENDS[config.code_host_kind].checks(config)


def first_issue(config: Config) -> str:
    """The number ``ralph init``'s closing hint gives the first issue ("N": unknown)."""
    return BACKENDS[config.tracker].first_issue


def pull_requests_elsewhere(config: Config) -> str:
    """Where pull requests go when that is another service than the issues' ("GitHub
    acme/shop"); empty otherwise."""
    if config.code_host_kind == config.tracker:
        return ""
    return BACKENDS[config.code_host_kind].pull_requests_at(config)
