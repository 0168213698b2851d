"""What Ralph's wiring knows of a tracker or code host: one :class:`Backend` record per
kind, registered in ``project/_backends.py``; its settings are ``config``'s record of
the same name (``config/_services.py``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.config import Config
from ralph.db import Database
from ralph.git import GitRepo

if TYPE_CHECKING:
    from ralph.tracker import BoardSetup, Check, CodeHost, Tracker
    from ralph.tracker.linear import TeamSetup

__all__ = ["Backend", "InitAsk", "OpenCodeHost", "OpenTracker", "ServiceSetUp"]

#: Opens a tracker: the settings, the project's database and its git repository.
OpenTracker = Callable[[Config, Database, GitRepo], AbstractContextManager["Tracker"]]
#: Opens a code host: the same, and the tracker whose issues its merges close.
OpenCodeHost = Callable[[Config, Database, GitRepo, "Tracker"], AbstractContextManager["CodeHost"]]


@dataclass(frozen=True, kw_only=True)
class InitAsk:
    """What ``ralph init --NAME VALUE`` asks of one service."""

    #: The option's value (OWNER/REPO, a team key).
    value: str
    #: Whether it holds the issues (else only the pull requests, beside that tracker).
    tracker: bool
    #: The title of the service holding the issues ("Linear").
    tracker_title: str
    #: An existing ralph.toml: never rewritten, so it must already agree.
    existing: Path | None
    env: Mapping[str, str]
    #: Replaces HTTPS (tests): the service's own transport type.
    transport: object | None = None
    #: ``--project``: a board's number, for a service with boards.
    project: int | None = None


@dataclass(frozen=True, kw_only=True)
class ServiceSetUp:
    """What a service's ``set_up`` found or made."""

    #: Its ``[NAME]`` table for a new ralph.toml (a ``config.SERVICES`` settings class).
    settings: object
    #: The repository name issues are numbered under, when it names one.
    repo: str = ""
    #: Its repository's default branch, when it holds one.
    default_branch: str = ""
    #: GitHub's board, Linear's team: what ``ralph init`` reports of each.
    board: BoardSetup | None = None
    team: TeamSetup | None = None
    #: Lines ``ralph init`` prints of what it found or made (a service's own report).
    notes: tuple[str, ...] = ()


def _no_checks(config: Config) -> list[Check]:
    return []


def _nothing_to_check(ask: InitAsk) -> None:
    pass


@dataclass(frozen=True, kw_only=True)
class Backend:
    """A tracker and/or code host as a project opens, sets up and checks it."""

    #: Its kind in ralph.toml (``config.SERVICES`` has the same name, "local" aside).
    name: str
    open_tracker: OpenTracker | None = None
    open_code_host: OpenCodeHost | None = None
    #: ``ralph init --NAME``: what can be checked before anything is read or written
    #: (the option's value, an existing ralph.toml), then the set-up itself.
    init_check: Callable[[InitAsk], None] = _nothing_to_check
    set_up: Callable[[InitAsk], ServiceSetUp] | None = None
    #: What ``ralph doctor`` checks of it as the code host beside another tracker (as
    #: the tracker, ``Tracker.check()`` answers).
    checks: Callable[[Config], list[Check]] = _no_checks
    #: Whether it has a board ``ralph init --project`` and ``--actions`` apply to.
    boards: bool = False
    #: Where it keeps a project's pull requests, for ``ralph init`` to say ("GitHub
    #: acme/shop") when they are not where the issues are.
    pull_requests_at: Callable[[Config], str] = lambda config: ""
    #: The number ``ralph init``'s closing hint gives the first issue ("N": the service
    #: numbers it).
    first_issue: str = "N"
