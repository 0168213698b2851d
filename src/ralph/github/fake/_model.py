"""The in-memory GitHub the fake serves: accounts, repositories, issues, comments, labels,
sub-issues, dependencies, Projects V2 (fields, options, items) and pull requests.

Objects expose their GraphQL fields under the schema's own names (camelCase), as
attributes or as methods taking the field's arguments, so graphql-core's default
resolver executes real documents against them. ``typename`` tells the executor which
object type an interface or union value is.
"""

from __future__ import annotations

import base64
import itertools
import re
import secrets
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ralph.github._tokens import TokenKind
from ralph.github.fake._rules import BranchProtection, CheckPlan, Mergeability

__all__ = ["GraphQLFault", "World"]

_STATUS_OPTIONS = ("Todo", "In Progress", "Done")


class GraphQLFault(Exception):
    """An error GitHub reports in ``errors`` with a ``type`` (NOT_FOUND, FORBIDDEN...)."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(message)


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:{index}".encode()).decode()


def _index(cursor: str | None) -> int | None:
    if cursor is None:
        return None
    try:
        return int(base64.b64decode(cursor).decode().split(":")[1])
    except (ValueError, IndexError):
        raise GraphQLFault(
            "INVALID_CURSOR_ARGUMENTS", f"`{cursor}` does not appear to be a valid cursor."
        ) from None


def connection(
    items: Sequence[Any],
    *,
    first: int | None = None,
    after: str | None = None,
    last: int | None = None,
    before: str | None = None,
    **_: Any,
) -> dict[str, Any]:
    """A GitHub connection over ``items`` (GitHub demands first or last, 1..100)."""
    if first is None and last is None:
        raise GraphQLFault(
            "MISSING_PAGINATION_BOUNDARIES",
            "You must provide a `first` or `last` value to properly paginate the connection.",
        )
    for name, value in (("first", first), ("last", last)):
        if value is not None and not 0 <= value <= 100:
            raise GraphQLFault(
                "EXCESSIVE_PAGINATION",
                f"Requesting {value} records on the connection exceeds the `{name}` "
                "limit of 100 records.",
            )
    indexed = list(enumerate(items))
    start = _index(after)
    end = _index(before)
    if start is not None:
        indexed = [(i, x) for i, x in indexed if i > start]
    if end is not None:
        indexed = [(i, x) for i, x in indexed if i < end]
    window = indexed
    if first is not None:
        window = window[:first]
    if last is not None:
        window = window[-last:] if last else []
    nodes = [x for _, x in window]
    has_next = bool(window) and window[-1][0] < (indexed[-1][0] if indexed else -1)
    has_previous = bool(window) and window[0][0] > (indexed[0][0] if indexed else 0)
    return {
        "nodes": nodes,
        "edges": [{"node": x, "cursor": _cursor(i)} for i, x in window],
        "totalCount": len(items),
        "pageInfo": {
            "hasNextPage": has_next,
            "hasPreviousPage": has_previous,
            "startCursor": _cursor(window[0][0]) if window else None,
            "endCursor": _cursor(window[-1][0]) if window else None,
        },
    }


class Node:
    typename = ""

    def __init__(self, world: World, prefix: str) -> None:
        self.world = world
        self.id = world.new_id(prefix)
        world.nodes[self.id] = self


class Account(Node):
    """A user or an organisation: it owns repositories and projects."""

    def __init__(self, world: World, login: str, *, organization: bool = False) -> None:
        super().__init__(world, "O_" if organization else "U_")
        self.typename = "Organization" if organization else "User"
        self.login = login
        self.name = login
        self.projects: list[ProjectV2] = []
        #: An organisation's teams (``FakeGitHub.add_team``).
        self.team_list: list[Any] = []

    def team(self, info: Any, slug: str) -> Any:
        return next((t for t in self.team_list if t.slug == slug), None)

    def _hidden_from(self, info: Any) -> bool:
        """GitHub shows a user's boards to no fine-grained or installation token, and
        answers as if there were none (no permission error)."""
        kind: TokenKind = info.context["kind"]
        return self.typename == "User" and not kind.reaches_user_boards

    def projectV2(self, info: Any, number: int) -> ProjectV2 | None:
        self.world.need_scope(info, "read:project", "project")
        found = next((p for p in self.projects if p.number == number), None)
        if self._hidden_from(info):
            found = None
        if found is None:
            raise GraphQLFault(
                "NOT_FOUND", f"Could not resolve to a ProjectV2 with the number {number}."
            )
        return found

    def projectsV2(
        self,
        info: Any,
        query: str | None = None,
        orderBy: dict[str, str] | None = None,
        **page: Any,
    ) -> dict[str, Any]:
        self.world.need_scope(info, "read:project", "project")
        found = [p for p in self.projects if not query or query.lower() in p.title.lower()]
        key = (orderBy or {}).get("field", "NUMBER")
        if key == "TITLE":
            found.sort(key=lambda p: (p.title.lower(), p.number))
        else:  # GitHub's default: NUMBER, newest first
            found.sort(key=lambda p: p.number, reverse=(orderBy or {}).get("direction") != "ASC")
        return connection([] if self._hidden_from(info) else found, **page)


class Label(Node):
    typename = "Label"

    def __init__(self, world: World, name: str, color: str = "ededed") -> None:
        super().__init__(world, "LA_")
        self.name = name
        self.color = color


class Comment(Node):
    typename = "IssueComment"

    def __init__(self, world: World, author: str, body: str) -> None:
        super().__init__(world, "IC_")
        self.databaseId = next(world.database_ids)
        self.author = {"__typename": "User", "login": author}
        self.body = body
        self.createdAt = _iso(world.clock())


class Issue(Node):
    typename = "Issue"

    def __init__(
        self, repository: Repository, number: int, title: str, body: str, author: str
    ) -> None:
        super().__init__(repository.world, "I_")
        self.repository = repository
        self.number = number
        self.title = title
        self.body = body
        self.author = {"__typename": "User", "login": author}
        self.state = "OPEN"
        self.stateReason: str | None = None
        now = _iso(repository.world.clock())
        self.createdAt = self.updatedAt = now
        self.closedAt: str | None = None
        self.url = f"https://github.com/{repository.nameWithOwner}/issues/{number}"
        self.label_list: list[Label] = []
        self.comment_list: list[Comment] = []
        self.parent: Issue | None = None
        self.children: list[Issue] = []
        self.blocked_by: list[Issue] = []
        self.items: list[Item] = []
        #: The issue it was closed as a duplicate of (``duplicateIssueId``).
        self.duplicate_of: Issue | None = None

    def touch(self) -> None:
        self.updatedAt = _iso(self.world.clock())

    def close(self, reason: str) -> None:
        """Closed, by a person, the API or a merge; the boards' workflows follow."""
        from ralph.github.fake._workflows import issue_closed

        self.state = "CLOSED"
        self.stateReason = reason
        self.closedAt = _iso(self.world.clock())
        self.touch()
        issue_closed(self)

    def labels(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self.label_list, **page)

    def assignees(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection([], **page)

    def comments(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self.comment_list, **page)

    def subIssues(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self.children, **page)

    def blockedBy(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self.blocked_by, **page)

    def blocking(self, info: Any, **page: Any) -> dict[str, Any]:
        waiting = [  # dependencies may cross repositories
            i
            for repository in self.world.repositories.values()
            for i in repository.issue_list
            if self in i.blocked_by
        ]
        return connection(waiting, **page)

    def closedByPullRequestsReferences(
        self, info: Any, includeClosedPrs: bool = False, **page: Any
    ) -> dict[str, Any]:
        # GitHub links a pull request by its closing keywords only into the default branch.
        default = self.repository.defaultBranchRef["name"]
        found = [
            pr
            for pr in self.repository.pull_list
            if self.number in pr.closes
            and pr.baseRefName == default
            and (includeClosedPrs or pr.state == "OPEN")
        ]
        return connection(found, **page)

    def projectItems(self, info: Any, includeArchived: bool = True, **page: Any) -> dict[str, Any]:
        self.world.need_scope(info, "read:project", "project")
        shown = [i for i in self.items if includeArchived or not i.isArchived]
        return connection(shown, **page)


class Field(Node):
    """A project field: single-select (with options) or a plain one (Title...)."""

    def __init__(
        self, project: ProjectV2, name: str, options: Sequence[dict[str, str]] | None
    ) -> None:
        super().__init__(project.world, "PVTSSF_" if options is not None else "PVTF_")
        self.project = project
        self.name = name
        self.single_select = options is not None
        self.typename = "ProjectV2SingleSelectField" if self.single_select else "ProjectV2Field"
        self.dataType = "SINGLE_SELECT" if self.single_select else "TITLE"
        self.option_list: list[dict[str, str]] = []
        self.set_options(options or [])

    def set_options(self, options: Sequence[dict[str, str]]) -> None:
        """Replace every option with new ids, as GitHub does ("will overwrite the
        existing options"): item values pointing at the old ones are gone."""
        self.option_list = [
            {
                "id": secrets.token_hex(4),
                "name": o["name"],
                "color": o.get("color", "GRAY"),
                "description": o.get("description", ""),
                "nameHTML": o["name"],
                "descriptionHTML": o.get("description", ""),
            }
            for o in options
        ]

    def options(self, info: Any, names: list[str] | None = None) -> list[dict[str, str]]:
        return [o for o in self.option_list if names is None or o["name"] in names]


class Item(Node):
    typename = "ProjectV2Item"

    def __init__(self, project: ProjectV2, content: Any) -> None:
        super().__init__(project.world, "PVTI_")
        self.project = project
        self.content = content
        self.type = {"Issue": "ISSUE", "PullRequest": "PULL_REQUEST"}.get(
            content.typename, "DRAFT_ISSUE"
        )
        self.isArchived = False
        self.updatedAt = _iso(project.world.clock())
        #: field id -> option id
        self.values: dict[str, str] = {}

    def _value(self, field_: Field) -> dict[str, Any] | None:
        if not field_.single_select:  # Title: every item has one, as on GitHub
            text = getattr(self.content, "title", "")
            return {"__typename": "ProjectV2ItemFieldTextValue", "text": text, "field": field_}
        option_id = self.values.get(field_.id)
        option = next((o for o in field_.option_list if o["id"] == option_id), None)
        if option is None:
            return None
        return {
            "__typename": "ProjectV2ItemFieldSingleSelectValue",
            "name": option["name"],
            "optionId": option["id"],
            "color": option["color"],
            "field": field_,
        }

    def fieldValues(self, info: Any, **page: Any) -> dict[str, Any]:
        """The item's values in the board's field order (GitHub's POSITION)."""
        values = [v for f in self.project.field_list if (v := self._value(f)) is not None]
        return connection(values, **page)

    def fieldValueByName(self, info: Any, name: str) -> dict[str, Any] | None:
        found = next((f for f in self.project.field_list if f.name == name), None)
        return None if found is None else self._value(found)


class StatusUpdate(Node):
    """A status update on a project (``ProjectV2StatusUpdate``)."""

    typename = "ProjectV2StatusUpdate"

    def __init__(self, project: ProjectV2, author: str, fields: dict[str, Any]) -> None:
        super().__init__(project.world, "PVTSU_")
        self.project = project
        self.creator = {"__typename": "User", "login": author}
        self.createdAt = self.updatedAt = _iso(project.world.clock())
        #: Creation order: ``createdAt`` has whole seconds only.
        self.sequence = next(project.world.database_ids)
        self.body: str | None = None
        self.status: str | None = None
        self.startDate: str | None = None
        self.targetDate: str | None = None
        self.update(fields)

    def update(self, fields: dict[str, Any]) -> None:
        for name in ("body", "status", "startDate", "targetDate"):
            if name in fields:
                setattr(self, name, fields[name])
        self.updatedAt = _iso(self.world.clock())


class ProjectV2(Node):
    typename = "ProjectV2"

    def __init__(self, owner: Account, number: int, title: str) -> None:
        super().__init__(owner.world, "PVT_")
        self.owner = owner
        self.number = number
        self.title = title
        self.closed = False
        self.url = f"https://github.com/users/{owner.login}/projects/{number}"
        self.field_list: list[Field] = [
            Field(self, "Title", None),
            Field(self, "Status", [{"name": n} for n in _STATUS_OPTIONS]),
        ]
        self.item_list: list[Item] = []
        self.status_update_list: list[StatusUpdate] = []
        self.linked: list[Repository] = []
        #: Logins that may only read the board (on GitHub: a "Read" role on it).
        self.readers: set[str] = set()
        self.shortDescription: str | None = None
        self.readme: str | None = None
        self.public = False
        self.template = False
        #: Views exist only as a person makes them on GitHub (its API cannot): tests add them.
        self.view_list: list[Any] = []
        #: login or team slug -> role (READER, WRITER, ADMIN).
        self.collaborators: dict[str, str] = {}
        self.teams: list[Any] = []
        from ralph.github.fake._workflows import built_in_workflows

        #: The built-in workflows (``fake._workflows``), as a new board has them.
        self.workflow_list = built_in_workflows(self)

    def workflow(self, name: str) -> Any:
        """The built-in workflow ``name`` (tests turn it on as a person would)."""
        return next(w for w in self.workflow_list if w.name == name)

    def workflows(
        self, info: Any, orderBy: dict[str, str] | None = None, **page: Any
    ) -> dict[str, Any]:
        """By name unless asked otherwise (GitHub's default order)."""
        found = sorted(self.workflow_list, key=lambda w: w.name)
        if (orderBy or {}).get("direction") == "DESC":
            found.reverse()
        return connection(found, **page)

    def viewerCanUpdate(self, info: Any) -> bool:
        scopes = info.context["scopes"]
        writes = scopes is None or "project" in scopes
        return writes and info.context["login"] not in self.readers

    def fields(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self.field_list, **page)

    def repositories(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self.linked, **page)

    def items(
        self, info: Any, orderBy: dict[str, str] | None = None, **page: Any
    ) -> dict[str, Any]:
        """In the board's order (GitHub's POSITION), archived ones with ``isArchived``."""
        self.world.need_scope(info, "read:project", "project")
        return connection(self.item_list, **page)

    def statusUpdates(
        self, info: Any, orderBy: dict[str, str] | None = None, **page: Any
    ) -> dict[str, Any]:
        """Newest first unless asked otherwise, as GitHub's default order."""
        self.world.need_scope(info, "read:project", "project")
        found = sorted(self.status_update_list, key=lambda u: u.sequence)
        if (orderBy or {}).get("direction", "DESC") == "DESC":
            found.reverse()
        return connection(found, **page)

    def views(self, info: Any, orderBy: Any = None, **page: Any) -> dict[str, Any]:
        return connection(self.view_list, **page)


class Repository(Node):
    typename = "Repository"

    def __init__(self, owner: Account, name: str, git_path: Path | None) -> None:
        super().__init__(owner.world, "R_")
        self.owner = owner
        self.name = name
        self.nameWithOwner = f"{owner.login}/{name}"
        self.defaultBranchRef = {"name": "main"}
        self.hasIssuesEnabled = True
        self.isArchived = False
        #: A private repository is hidden from a classic token without the repo scope.
        self.isPrivate = False
        #: login -> role (ADMIN, MAINTAIN, WRITE, TRIAGE, READ); the owner is ADMIN.
        self.roles: dict[str, str] = {}
        self.git_path = git_path
        self.issue_list: list[Issue] = []
        #: The repository's pull requests (``fake._pulls.PullRequest``).
        self.pull_list: list[Any] = []
        self.label_list: list[Label] = []
        self._numbers = itertools.count(1)
        # How pull requests may merge (Settings > General > Pull Requests).
        self.mergeCommitAllowed = True
        self.squashMergeAllowed = True
        self.rebaseMergeAllowed = True
        self.autoMergeAllowed = False
        self.deleteBranchOnMerge = False
        #: base branch -> its protection rule.
        self.protections: dict[str, BranchProtection] = {}
        #: base branch -> its merge queue (``fake._pulls.MergeQueue``).
        self.merge_queues: dict[str, Any] = {}
        #: The checks CI runs on every new head of a pull request.
        self.ci: list[CheckPlan] = []
        #: commit oid -> the check runs and statuses reported on it (``fake._pulls.CheckRecord``).
        self.checks_on: dict[str, list[Any]] = {}
        #: branch -> head oid, for a repository without a git side (tests ``push``).
        self.synthetic_refs: dict[str, str] = {}

    def next_number(self) -> int:
        return next(self._numbers)

    def hidden_from(self, info: Any) -> bool:
        """GitHub answers as if a private repository did not exist to a token that
        lists scopes without ``repo`` (a public one any token may read)."""
        scopes = info.context["scopes"]
        return self.isPrivate and scopes is not None and "repo" not in scopes

    def viewerPermission(self, info: Any) -> str:
        login = info.context["login"]
        return self.roles.get(login, "ADMIN" if login == self.owner.login else "WRITE")

    def _git(self) -> Any:
        from ralph.git import GitRepo

        return GitRepo(self.git_path) if self.git_path else None

    def can_merge(self, head: str, base: str) -> bool | None:
        git = self._git()
        return True if git is None else git.can_merge(head, base)

    def has_branch(self, name: str) -> bool:
        git = self._git()
        return True if git is None else git.has_branch(name)

    def merge(self, head: str, base: str, message: str, *, squash: bool) -> str:
        git = self._git()
        if git is None:
            oid = secrets.token_hex(20)
            self.synthetic_refs[base] = oid
            return oid
        return str(git.merge(head, base, message, squash=squash).commit)

    def oid_of(self, branch: str) -> str | None:
        """The commit ``branch`` points at (None: no such branch)."""
        git = self._git()
        if git is None:
            return self.synthetic_refs.setdefault(branch, secrets.token_hex(20))
        if not git.has_branch(branch):
            return None
        return str(git.resolve(f"refs/heads/{branch}"))

    def push(self, branch: str) -> str:
        """A new commit on ``branch`` of a repository without a git side."""
        if self.git_path is not None:
            raise ValueError("a repository with a git side moves by git pushes")
        self.synthetic_refs[branch] = secrets.token_hex(20)
        return self.synthetic_refs[branch]

    def contains(self, head: str, base: str) -> bool:
        """Whether ``head`` holds every commit of ``base`` (is up to date with it)."""
        git = self._git()
        if git is None:
            return True
        return bool(git.is_ancestor(f"refs/heads/{base}", f"refs/heads/{head}"))

    def changed_paths(self, base: str, head: str) -> list[str] | None:
        """The files ``head`` changes since it left ``base`` (None: not known here)."""
        git = self._git()
        if git is None or not (git.has_branch(base) and git.has_branch(head)):
            return None
        return list(git.changed_files(base, head))

    def diff_hunk(self, base: str, head: str, path: str, line: int) -> str | None:
        """The lines of ``head``'s diff against ``base`` up to ``line`` of ``path`` (new
        side), as GitHub attaches a review thread to them; None when the line is not
        part of the diff."""
        git = self._git()
        if git is None:
            return f"@@ -{line},1 +{line},1 @@"
        shown = git.run("diff", f"refs/heads/{base}...refs/heads/{head}", "--", path)
        return _hunk_to(shown.stdout if shown.returncode == 0 else "", line)

    def issue(self, info: Any, number: int) -> Issue | None:
        found = next((i for i in self.issue_list if i.number == number), None)
        if found is None:
            raise GraphQLFault(
                "NOT_FOUND",
                f"Could not resolve to an issue or pull request with the number of {number}.",
            )
        return found

    def issues(
        self,
        info: Any,
        states: list[str] | None = None,
        orderBy: dict[str, str] | None = None,
        filterBy: dict[str, Any] | None = None,
        **page: Any,
    ) -> dict[str, Any]:
        found = [i for i in self.issue_list if not states or i.state in states]
        wanted = filterBy or {}
        if wanted.get("states"):
            found = [i for i in found if i.state in wanted["states"]]
        if wanted.get("since"):  # updated at or after (GitHub's IssueFilters.since)
            found = [i for i in found if _instant(i.updatedAt) >= _instant(wanted["since"])]
        found = _ordered(found, orderBy)
        return connection(found, **page)

    def issueOrPullRequest(self, info: Any, number: int) -> Any:
        found: Any = next((i for i in self.issue_list if i.number == number), None)
        found = found or next((p for p in self.pull_list if p.number == number), None)
        if found is None:
            raise GraphQLFault(
                "NOT_FOUND",
                f"Could not resolve to an issue or pull request with the number of {number}.",
            )
        return found

    def pullRequest(self, info: Any, number: int) -> Any:
        found = next((p for p in self.pull_list if p.number == number), None)
        if found is None:
            raise GraphQLFault(
                "NOT_FOUND", f"Could not resolve to a PullRequest with the number of {number}."
            )
        return found

    def pullRequests(
        self,
        info: Any,
        states: list[str] | None = None,
        orderBy: dict[str, str] | None = None,
        headRefName: str | None = None,
        baseRefName: str | None = None,
        **page: Any,
    ) -> dict[str, Any]:
        found = [
            p
            for p in self.pull_list
            if (not states or p.state in states)
            and headRefName in (None, p.headRefName)
            and baseRefName in (None, p.baseRefName)
        ]
        return connection(_ordered(found, orderBy), **page)

    def mergeQueue(self, info: Any, branch: str | None = None) -> Any:
        return self.merge_queues.get(branch or self.defaultBranchRef["name"])

    def labels(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self.label_list, **page)


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def _hunk_to(diff: str, line: int) -> str | None:
    """The hunk of ``diff`` holding new-side ``line``, cut after that line."""
    hunk: list[str] = []
    at = 0
    for text in diff.splitlines():
        header = _HUNK.match(text)
        if header:
            hunk, at = [text], int(header.group(1)) - 1
            continue
        if not hunk or text.startswith("\\"):
            continue
        hunk.append(text)
        if not text.startswith("-"):
            at += 1
            if at == line:
                return "\n".join(hunk)
    return None


def _ordered(items: list[Any], order: dict[str, str] | None) -> list[Any]:
    if not order:
        return items
    key = {"CREATED_AT": "createdAt", "UPDATED_AT": "updatedAt"}.get(order.get("field", ""), "")
    ordered = sorted(items, key=lambda x: (getattr(x, key, ""), x.number)) if key else items
    return ordered[::-1] if order.get("direction") == "DESC" else ordered


@dataclass
class TokenHolder:
    """A token's holder: who it acts as, which OAuth scopes it has (None: a token that
    lists none, fine-grained or an app's) and its kind (by its prefix, as on GitHub)."""

    login: str
    scopes: frozenset[str] | None = frozenset({"repo", "project", "read:org"})
    kind: TokenKind = TokenKind.UNKNOWN


@dataclass
class World:
    """Everything the fake GitHub holds. One lock serialises execution, as a single
    database would; the HTTP server runs requests on threads."""

    clock: Callable[[], float]
    accounts: dict[str, Account] = field(default_factory=dict)
    repositories: dict[str, Repository] = field(default_factory=dict)
    nodes: dict[str, Node] = field(default_factory=dict)
    tokens: dict[str, TokenHolder] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)
    #: How long mergeability stays UNKNOWN after a push (tests set it).
    mergeability: Mergeability = field(default_factory=Mergeability)
    #: The request being executed, counted: what a request reads once is read once.
    serial: int = 0

    def __post_init__(self) -> None:
        self._ids = itertools.count(1)
        self.database_ids = itertools.count(1000)

    @contextmanager
    def one_instant(self) -> Iterator[None]:
        """While a request executes, the world's clock stands still: GitHub answers
        from one snapshot, so a check concluding mid-answer is never in progress in
        ``mergeStateStatus`` and completed in the rollup of the same answer."""
        ticking = self.clock
        instant = ticking()
        self.clock = lambda: instant
        try:
            yield
        finally:
            self.clock = ticking

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):06d}"

    def need_scope(self, info: Any, *scopes: str) -> None:
        """Refused unless the token holds one of ``scopes``; GitHub's message names the
        least of them (``read:project``, which ``project`` implies), as gh CLI matches it."""
        held = info.context["scopes"]
        if held is not None and not held & set(scopes):
            raise GraphQLFault(
                "INSUFFICIENT_SCOPES",
                f"Your token has not been granted the required scopes to execute this query. "
                f"The '{info.field_name}' field requires one of the following scopes: "
                f"{[scopes[0]]}, but your token has only been granted the: "
                f"{sorted(held)} scopes.",
            )

    def account(self, login: str, *, organization: bool = False) -> Account:
        if login not in self.accounts:
            self.accounts[login] = Account(self, login, organization=organization)
        return self.accounts[login]

    def node_of(self, node_id: str, kind: type[Node]) -> Any:
        found = self.nodes.get(node_id)
        if not isinstance(found, kind):
            raise GraphQLFault(
                "NOT_FOUND", f"Could not resolve to a node with the global id of '{node_id}'"
            )
        return found


def _instant(text: str) -> float:
    """An ISO 8601 time (GitHub's ``Z`` form) as seconds."""
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
