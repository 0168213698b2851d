"""The fake GitLab's data: users and their tokens, projects (with an optional real git
repository for the merge-request side), labels, issues (``iid`` numbered per project),
notes and issue links. Everything is guarded by ``State.lock``, which the fake holds
while a handler runs, so handlers read and write freely."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["Issue", "IssueLink", "Label", "Note", "Project", "State", "User", "iso"]


def iso(seconds: float) -> str:
    """GitLab's timestamps: ISO 8601, milliseconds, ``Z``."""
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass
class User:
    id: int
    username: str
    name: str

    def json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "username": self.username,
            "name": self.name,
            "state": "active",
            "locked": False,
            "avatar_url": None,
            "web_url": f"https://gitlab.example.com/{self.username}",
        }


@dataclass
class Label:
    id: int
    name: str
    color: str = "#6699cc"
    description: str | None = None
    priority: int | None = None

    @property
    def scope(self) -> str | None:
        """A scoped label's key (``ralph`` of ``ralph::Done``; the part before the last
        ``::``), None for a plain label."""
        return self.name.rsplit("::", 1)[0] if "::" in self.name else None


@dataclass
class Note:
    id: int
    body: str
    author: User
    created_at: float
    updated_at: float
    system: bool = False
    internal: bool = False


@dataclass
class Issue:
    id: int
    iid: int
    project: Project
    title: str
    description: str
    author: User
    created_at: float
    updated_at: float
    state: str = "opened"
    closed_at: float | None = None
    closed_by: User | None = None
    labels: list[str] = field(default_factory=list)
    weight: int | None = None
    issue_type: str = "issue"
    confidential: bool = False
    notes: list[Note] = field(default_factory=list)


@dataclass
class IssueLink:
    id: int
    source: Issue
    target: Issue
    #: From the source's side: ``relates_to``, ``blocks`` or ``is_blocked_by``.
    link_type: str
    created_at: float


@dataclass
class Project:
    id: int
    path_with_namespace: str
    name: str
    default_branch: str = "main"
    #: A real git repository the merge-request side merges in (None: no repository).
    repository: Path | None = None
    labels: dict[str, Label] = field(default_factory=dict)
    issues: dict[int, Issue] = field(default_factory=dict)
    next_iid: int = 1
    #: Users who may see and write it (its members); every user when empty (public).
    members: list[User] = field(default_factory=list)
    #: Room for other modules' records (merge requests, pipelines...), by name.
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def namespace(self) -> str:
        return self.path_with_namespace.rsplit("/", 1)[0] if "/" in self.path_with_namespace else ""


class State:
    """All of the fake's records, one lock over them."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.lock = threading.RLock()
        self.users: list[User] = []
        self.tokens: dict[str, User] = {}
        self.projects: dict[int, Project] = {}
        self.links: list[IssueLink] = []
        self._ids = 0

    def new_id(self) -> int:
        self._ids += 1
        return self._ids

    def project(self, id_or_path: str) -> Project | None:
        """The project a URL's ``{id}`` names: its number or its path (decoded)."""
        if id_or_path.isdigit():
            return self.projects.get(int(id_or_path))
        wanted = id_or_path.strip("/").lower()
        return next(
            (p for p in self.projects.values() if p.path_with_namespace.lower() == wanted), None
        )

    def issue_by_id(self, issue_id: int) -> Issue | None:
        for project in self.projects.values():
            for issue in project.issues.values():
                if issue.id == issue_id:
                    return issue
        return None
