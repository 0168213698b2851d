"""The fake Linear's workspace: teams with their workflow states, labels and members,
issues with identifiers (ENG-12), parents, relations and comments. Objects answer
GraphQL directly: graphql-core reads a field's attribute, and calls it (with the field's
arguments) when it is a method, so connections are methods here."""

from __future__ import annotations

import itertools
import re
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "ESTIMATE_SCALES",
    "Comment",
    "Issue",
    "IssueLabel",
    "IssueRelation",
    "LinearFault",
    "Team",
    "User",
    "WorkflowState",
    "Workspace",
    "connection",
    "estimate_scale",
]

MAX_PAGE = 250
DEFAULT_PAGE = 50

#: A team's estimate scale by its ``issueEstimationType``, then the values the extended
#: scale adds (Linear's team settings: t-shirt sizes stand for 1, 2, 3, 5, 8...).
ESTIMATE_SCALES: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "exponential": ((1, 2, 4, 8, 16), (32, 64)),
    "fibonacci": ((1, 2, 3, 5, 8), (13, 21)),
    "linear": ((1, 2, 3, 4, 5), (6, 7)),
    "tShirt": ((1, 2, 3, 5, 8), (13, 21)),
    "notUsed": ((), ()),
}

#: The fake workspace's ``Organization.urlKey``: its issues' urls are under it.
URL_KEY = "acme"

STATE_TYPES = ("triage", "backlog", "unstarted", "started", "completed", "canceled")


class LinearFault(Exception):
    """A refusal in Linear's words: ``extensions.code`` and ``type``, the message, and
    the sentence Linear shows people."""

    def __init__(self, message: str, code: str = "INVALID_INPUT", shown: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.shown = shown or message

    @property
    def type(self) -> str:
        return self.code.lower().replace("_", " ")


def not_found(kind: str) -> LinearFault:
    return LinearFault(f"Entity not found: {kind}", shown=f"Could not find referenced {kind}.")


def estimate_scale(kind: str, *, extended: bool, zero: bool) -> frozenset[int]:
    base, more = ESTIMATE_SCALES[kind]
    values = set(base) | (set(more) if extended else set())
    return frozenset(values | ({0} if zero and base else set()))


def connection(items: Sequence[Any], args: Mapping[str, Any]) -> dict[str, Any]:
    """A Relay page of ``items`` (each with an ``id``, its cursor)."""
    first = args.get("first")
    last = args.get("last")
    for size in (first, last):
        if size is not None and not 0 <= size <= MAX_PAGE:
            raise LinearFault(
                f"Argument Validation Error: first/last must be between 0 and {MAX_PAGE}",
                shown=f"You can request at most {MAX_PAGE} items at a time.",
            )
    start = 0
    if args.get("after"):
        ids = [item.id for item in items]
        if args["after"] not in ids:
            raise LinearFault("Invalid cursor", shown="The pagination cursor is not valid.")
        start = ids.index(args["after"]) + 1
    rest = list(items[start:])
    if last is not None and first is None:
        begin, end = max(len(rest) - last, 0), len(rest)
    else:
        begin, end = 0, min(DEFAULT_PAGE if first is None else first, len(rest))
    page = rest[begin:end]
    return {
        "nodes": page,
        "pageInfo": {
            "hasNextPage": end < len(rest),
            "hasPreviousPage": start + begin > 0,
            "startCursor": page[0].id if page else None,
            "endCursor": page[-1].id if page else None,
        },
    }


def _now_iso(clock: Callable[[], float]) -> str:
    return (
        datetime.fromtimestamp(clock(), UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


@dataclass(eq=False)
class User:
    id: str
    name: str
    displayName: str
    email: str
    active: bool = True


@dataclass(eq=False)
class WorkflowState:
    id: str
    name: str
    type: str
    position: float
    color: str
    team: Team


@dataclass(eq=False)
class IssueLabel:
    id: str
    name: str
    color: str
    team: Team | None


@dataclass(eq=False)
class Team:
    id: str
    key: str
    name: str
    issueEstimationType: str = "tShirt"
    issueEstimationExtended: bool = False
    issueEstimationAllowZero: bool = False
    defaultIssueEstimate: float = 0.0
    state_list: list[WorkflowState] = field(default_factory=list)
    label_list: list[IssueLabel] = field(default_factory=list)
    member_list: list[User] = field(default_factory=list)
    issue_list: list[Issue] = field(default_factory=list)
    counter: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    #: The workspace's url key (``Organization.urlKey``), in its issues' urls.
    url_key: str = URL_KEY

    def estimates(self) -> frozenset[int]:
        return estimate_scale(
            self.issueEstimationType,
            extended=self.issueEstimationExtended,
            zero=self.issueEstimationAllowZero,
        )

    def states(self, info: Any, **args: Any) -> dict[str, Any]:
        return connection(self.state_list, args)

    def labels(self, info: Any, **args: Any) -> dict[str, Any]:
        return connection(self.label_list, args)

    def members(self, info: Any, **args: Any) -> dict[str, Any]:
        return connection(self.member_list, args)

    def issues(self, info: Any, **args: Any) -> dict[str, Any]:
        from ralph.linear.fake._filters import issues_matching

        return connection(issues_matching(self.issue_list, args), args)


@dataclass(eq=False)
class Comment:
    id: str
    body: str
    issue: Issue
    user: User | None
    createdAt: str
    updatedAt: str


@dataclass(eq=False)
class IssueRelation:
    id: str
    type: str
    issue: Issue
    relatedIssue: Issue


@dataclass(eq=False)
class Issue:
    id: str
    team: Team
    number: int
    title: str
    state: WorkflowState
    createdAt: str
    updatedAt: str
    description: str | None = None
    estimate: float | None = None
    priority: float = 0
    parent: Issue | None = None
    assignee: User | None = None
    archivedAt: str | None = None
    label_list: list[IssueLabel] = field(default_factory=list)
    child_list: list[Issue] = field(default_factory=list)
    relation_list: list[IssueRelation] = field(default_factory=list)
    inverse_list: list[IssueRelation] = field(default_factory=list)
    comment_list: list[Comment] = field(default_factory=list)

    @property
    def identifier(self) -> str:
        return f"{self.team.key}-{self.number}"

    @property
    def url(self) -> str:
        """Linear's form: the workspace's url key, the identifier, the title's slug
        (https://linear.app/acme/issue/ENG-12/fix-the-login)."""
        slug = re.sub(r"[^a-z0-9]+", "-", self.title.lower())[:60].strip("-")
        return f"https://linear.app/{self.team.url_key}/issue/{self.identifier}/{slug}"

    def children(self, info: Any, **args: Any) -> dict[str, Any]:
        from ralph.linear.fake._filters import issues_matching

        return connection(issues_matching(self.child_list, args), args)

    def labels(self, info: Any, **args: Any) -> dict[str, Any]:
        return connection(self.label_list, args)

    def relations(self, info: Any, **args: Any) -> dict[str, Any]:
        return connection(self.relation_list, args)

    def inverseRelations(self, info: Any, **args: Any) -> dict[str, Any]:
        return connection(self.inverse_list, args)

    def comments(self, info: Any, **args: Any) -> dict[str, Any]:
        from ralph.linear.fake._filters import comments_matching

        return connection(comments_matching(self.comment_list, args), args)


class Workspace:
    """Everything the fake holds, behind one lock (requests run one at a time)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.lock = threading.RLock()
        self.teams: list[Team] = []
        self.users: list[User] = []
        self.labels: list[IssueLabel] = []  # the workspace's labels (no team)
        self.issues: dict[str, Issue] = {}
        self.comments: dict[str, Comment] = {}
        self.relations: dict[str, IssueRelation] = {}
        #: Every id in use, whatever it names (a client-made id may not be reused).
        self.ids: set[str] = set()

    def now(self) -> str:
        return _now_iso(self.clock)

    def new_id(self, wanted: str | None = None) -> str:
        """``wanted`` (a client-made UUID) if it is one and free, else a fresh UUID."""
        if wanted is None:
            made = str(uuid.uuid4())
        else:
            try:
                made = str(uuid.UUID(wanted))
            except ValueError:
                raise LinearFault(
                    "Argument Validation Error: id must be a UUID", shown="The id is not valid."
                ) from None
            if made in self.ids:
                raise LinearFault(
                    "Entity already exists", shown="An entity with this id already exists."
                )
        self.ids.add(made)
        return made

    # -- lookups that answer as Linear does ----------------------------------------------

    def team(self, ref: str) -> Team:
        for team in self.teams:
            if ref in (team.id, team.key):
                return team
        raise not_found("Team")

    def user(self, ref: str) -> User:
        for user in self.users:
            if user.id == ref:
                return user
        raise not_found("User")

    def issue(self, ref: str) -> Issue:
        """By id or identifier (ENG-12), as ``issue(id:)`` takes both."""
        found = self.issues.get(ref)
        if found is not None:
            return found
        key, _, number = ref.rpartition("-")
        for issue in self.issues.values():
            if issue.team.key == key.upper() and str(issue.number) == number:
                return issue
        raise not_found("Issue")

    def state(self, ref: str) -> WorkflowState:
        for team in self.teams:
            for state in team.state_list:
                if state.id == ref:
                    return state
        raise not_found("WorkflowState")

    def label(self, ref: str) -> IssueLabel:
        for label in self.all_labels():
            if label.id == ref:
                return label
        raise not_found("IssueLabel")

    def all_labels(self) -> Iterable[IssueLabel]:
        yield from self.labels
        for team in self.teams:
            yield from team.label_list
