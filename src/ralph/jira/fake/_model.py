"""The fake Jira's site in memory: accounts, projects with statuses and a workflow,
issue types, fields, priorities, issues with their comments and links (plain data, one
lock; the routes in ``_jira`` read and write it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ralph.workflow import WorkflowState

__all__ = [
    "DEFAULT_STATUSES",
    "ESTIMATE_FIELDS",
    "ISSUE_TYPES",
    "PRIORITIES",
    "RESOLUTIONS",
    "Account",
    "Comment",
    "Issue",
    "IssueType",
    "Link",
    "Project",
    "Site",
    "Status",
    "ralph_statuses",
    "stamp",
]

#: A new project's statuses (name, status category key), as Jira's Scrum template has
#: them; Ralph's set-up adds its own.
DEFAULT_STATUSES = (("To Do", "new"), ("In Progress", "indeterminate"), ("Done", "done"))


def ralph_statuses() -> tuple[tuple[str, str], ...]:
    """Jira's To Do and a status for each of Ralph's states in the category it needs
    (Backlog waiting, Done and Canceled done, the rest in progress)."""
    closed = (WorkflowState.DONE, WorkflowState.CANCELED)
    return (
        ("To Do", "new"),
        *(
            (
                state.value,
                "done"
                if state in closed
                else "new"
                if state is WorkflowState.BACKLOG
                else "indeterminate",
            )
            for state in WorkflowState
        ),
    )


CATEGORY_NAMES = {"new": "To Do", "indeterminate": "In Progress", "done": "Done"}
CATEGORY_IDS = {"new": 2, "indeterminate": 4, "done": 3}
#: Jira Cloud's default priorities, highest first; new issues get Medium.
PRIORITIES = ("Highest", "High", "Medium", "Low", "Lowest")
DEFAULT_PRIORITY = "Medium"
RESOLUTIONS = ("Done", "Won't Do", "Duplicate", "Cannot Reproduce")


@dataclass(frozen=True)
class IssueType:
    id: str
    name: str
    hierarchy_level: int

    @property
    def subtask(self) -> bool:
        return self.hierarchy_level < 0

    def json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "subtask": self.subtask,
            "hierarchyLevel": self.hierarchy_level,
        }


ISSUE_TYPES = (
    IssueType("10000", "Epic", 1),
    IssueType("10001", "Story", 0),
    IssueType("10002", "Task", 0),
    IssueType("10003", "Subtask", -1),
)

#: The estimate fields a Jira Cloud site has: Jira Software's story points (a number)
#: and a T-shirt size select list (a custom field a site adds; here from the start).
ESTIMATE_FIELDS = {
    "customfield_10016": ("Story point estimate", "number"),
    "customfield_10020": ("T-shirt size", "option"),
}
T_SHIRT_OPTIONS = {"XS": "10100", "S": "10101", "M": "10102", "L": "10103", "XL": "10104"}


def stamp(seconds: float) -> str:
    """Jira's time format: ``2026-12-06T22:35:53.123+0000``."""
    moment = datetime.fromtimestamp(round(seconds, 3), UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}+0000"


@dataclass
class Account:
    account_id: str
    email: str
    display_name: str
    token: str
    #: JQL's absolute dates are read in this zone (an IANA name), as Jira does.
    time_zone: str = "UTC"

    def json(self) -> dict[str, Any]:
        return {
            "accountId": self.account_id,
            "displayName": self.display_name,
            "emailAddress": self.email,
            "active": True,
            "accountType": "atlassian",
        }


@dataclass(frozen=True)
class Status:
    id: str
    name: str
    category: str

    def json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "statusCategory": {
                "id": CATEGORY_IDS[self.category],
                "key": self.category,
                "name": CATEGORY_NAMES[self.category],
            },
        }


@dataclass
class Project:
    id: str
    key: str
    name: str
    statuses: list[Status] = field(default_factory=list)
    #: Transitions the workflow lacks: (issue type id or "*", from status id or "*", to
    #: status id).
    missing: set[tuple[str, str, str]] = field(default_factory=set)
    #: The fields on the screen of the transitions to a status (by its id); a transition
    #: without one takes no field (Jira's default Done transition has none).
    screens: dict[str, frozenset[str]] = field(default_factory=dict)
    counter: int = 0

    def status(self, name_or_id: str) -> Status | None:
        for status in self.statuses:
            if (
                name_or_id in (status.id, status.name)
                or status.name.casefold() == name_or_id.casefold()
            ):
                return status
        return None

    def transitions_from(self, current: str, issue_type: str) -> list[Status]:
        """The statuses an issue of ``issue_type`` (its id) in ``current`` may move to:
        every other one (a global transition to each), less those its workflow lacks."""
        return [
            s
            for s in self.statuses
            if s.id != current
            and not {(k, o, s.id) for k in ("*", issue_type) for o in ("*", current)} & self.missing
        ]

    def json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "key": self.key,
            "name": self.name,
            "projectTypeKey": "software",
            "simplified": False,
            "style": "classic",
            "issueTypes": [t.json() for t in ISSUE_TYPES],
        }


@dataclass
class Comment:
    id: int
    author: Account
    body: Any
    created: float

    def json(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "author": self.author.json(),
            "updateAuthor": self.author.json(),
            "body": self.body,
            "created": stamp(self.created),
            "updated": stamp(self.created),
            "jsdPublic": True,
        }


@dataclass
class Link:
    id: str
    #: ``outward`` blocks ``inward`` (Jira's "Blocks": outward "blocks", inward "is
    #: blocked by"; the outward issue is the link's "from" issue).
    outward: str
    inward: str


@dataclass
class Issue:
    id: str
    key: str
    project: Project
    issue_type: IssueType
    status: Status
    reporter: Account
    created: float
    updated: float
    summary: str = ""
    description: Any = None
    priority: str | None = DEFAULT_PRIORITY
    labels: list[str] = field(default_factory=list)
    parent: str | None = None
    resolution: str | None = None
    resolved: float | None = None
    custom: dict[str, Any] = field(default_factory=dict)
    comments: list[Comment] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)

    @property
    def number(self) -> int:
        return int(self.key.rpartition("-")[2])


class Site:
    """Everything one fake Jira site holds."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.lock = threading.RLock()
        self.accounts: list[Account] = []
        self.projects: dict[str, Project] = {}
        self.issues: dict[str, Issue] = {}
        self.links: dict[str, Link] = {}
        #: Where the site is served ("" until it is): the start of an issue's ``self``.
        self.url = ""
        #: Seconds before a new issue reaches search (Jira's index lags behind writes).
        self.search_lag = 0.0
        self._ids = 10000

    def new_id(self) -> str:
        self._ids += 1
        return str(self._ids)

    def project(self, key_or_id: str) -> Project | None:
        for project in self.projects.values():
            if key_or_id in (project.key, project.id) or project.key == key_or_id.upper():
                return project
        return None

    def issue(self, key_or_id: str) -> Issue | None:
        found = self.issues.get(key_or_id)
        if found is not None:
            return found
        wanted = key_or_id.upper()
        return next((i for i in self.issues.values() if i.key == wanted), None)

    def children(self, issue: Issue) -> list[Issue]:
        return [i for i in self.issues.values() if i.parent == issue.id]
