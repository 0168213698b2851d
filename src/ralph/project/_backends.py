"""Which tracker and which code host a project uses: one :class:`Backend` record per
kind (``project/_backend.py``), each opening its tracker and/or code host from the
settings for a ``with`` block, setting it up for ``ralph init`` and checking it for
``ralph doctor``. A new service is one module (``project/_NAME_backend.py``) and one
entry in ``_SERVICE_BACKENDS`` (the module is imported when a project uses the
service); its settings are ``config``'s record of the same name."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING

from ralph.config import SERVICES, Config
from ralph.db import Database
from ralph.errors import ConfigError
from ralph.git import GitRepo
from ralph.project._backend import Backend, OpenCodeHost, OpenTracker
from ralph.tracker import LocalTracker

if TYPE_CHECKING:
    from ralph.tracker import Check, CodeHost, Tracker

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
    from ralph.tracker import LocalCodeHost  # the pull requests: only when asked for

    yield LocalCodeHost(
        db, repo=config.repo, tracker=tracker, git=git, required_checks=required_checks(config)
    )


#: Issues in tables of Ralph's database, numbered from 1; pull requests as branches of
#: this repository.
LOCAL = Backend(
    name="local", open_tracker=_local_tracker, open_code_host=_local_code_host, first_issue="1"
)

#: Each service's backend: the module defining it and its name there, imported when a
#: project uses the service (a local project never loads the others' wiring).
_SERVICE_BACKENDS = {
    "github": ("ralph.project._github_backend", "GITHUB"),
    "linear": ("ralph.project._linear_backend", "LINEAR"),
    "jira": ("ralph.project._jira_backend", "JIRA"),
    "gitlab": ("ralph.project._gitlab_backend", "GITLAB"),
}


class _Backends(Mapping[str, Backend]):
    """Kind -> its backend, each service's imported the first time it is looked up."""

    def __init__(self) -> None:
        self._loaded: dict[str, Backend] = {LOCAL.name: LOCAL}

    def __getitem__(self, name: str) -> Backend:
        if name not in self._loaded:
            module, attribute = _SERVICE_BACKENDS[name]  # KeyError: no such kind
            self._loaded[name] = getattr(importlib.import_module(module), attribute)
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter((LOCAL.name, *_SERVICE_BACKENDS))

    def __len__(self) -> int:
        return 1 + len(_SERVICE_BACKENDS)


def _tracker_opener(name: str) -> OpenTracker:
    def open_tracker(config: Config, db: Database, git: GitRepo) -> AbstractContextManager[Tracker]:
        opener = BACKENDS[name].open_tracker
        assert opener is not None, name  # SERVICES says it holds issues
        return opener(config, db, git)

    return open_tracker


def _code_host_opener(name: str) -> OpenCodeHost:
    def open_code_host(
        config: Config, db: Database, git: GitRepo, tracker: Tracker
    ) -> AbstractContextManager[CodeHost]:
        opener = BACKENDS[name].open_code_host
        assert opener is not None, name  # SERVICES says it holds pull requests
        return opener(config, db, git, tracker)

    return open_code_host


#: Every kind ralph.toml's ``tracker`` and ``code_host`` may name.
BACKENDS: Mapping[str, Backend] = _Backends()
#: The openers, by the kinds the settings accept (``tests/unit/project/test_backends``
#: checks each service's backend opens what its settings say it holds).
TRACKERS: dict[str, OpenTracker] = {
    LOCAL.name: _local_tracker,
    **{name: _tracker_opener(name) for name, service in SERVICES.items() if service.tracker},
}
CODE_HOSTS: dict[str, OpenCodeHost] = {
    LOCAL.name: _local_code_host,
    **{name: _code_host_opener(name) for name, service in SERVICES.items() if service.code_host},
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
