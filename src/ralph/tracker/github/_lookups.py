"""The GitHub tracker's reads and caches: the repository, its labels and the board,
read once; issue and item ids; issue reads, alone or aliased in groups, kept in the
snapshots of one step's reads (``IssueSnapshots``) and forgotten after a write.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Any

from ralph.errors import GitHubInvalid, GitHubNotFound, InvalidInput, IssueNotFound
from ralph.github import (
    ALL_ISSUE_FEATURES,
    NO_DEPENDENCIES,
    NO_SUB_ISSUES,
    GitHubClient,
    IssueFeatures,
    features_of,
    issue_features,
)
from ralph.github import queries as q
from ralph.tracker._board_fields import STATUS
from ralph.tracker._model import Issue
from ralph.tracker._snapshot import IssueSnapshots
from ralph.tracker._tracker import Tracker
from ralph.tracker.github._body import fit_body
from ralph.tracker.github._read import Board, board_from, board_values, comment_from, issue_from

__all__ = ["GitHubLookups"]

logger = logging.getLogger(__name__)

_LABEL_COLOUR = "ededed"
#: Where the whole of a cut issue body or comment is (phases write their documents there).
_IN_GIT = "in the repository's git history (the thoughts/ documents this issue names)"
#: Issues whose board data one request reads (split tokens): 50 x 10 items x 20 values.
_ITEMS_PER_READ = 50


def _relatives(issue: Issue) -> tuple[int, ...]:
    """The issues a step that reads ``issue`` reads next: its parent, children, blockers."""
    parent = (issue.parent,) if issue.parent is not None else ()
    return (*parent, *issue.sub_issues, *issue.blocked_by, *issue.blocking)


class GitHubLookups(Tracker):
    """What the GitHub tracker reads and keeps: the repository, the board, issue and
    item ids, labels, and the snapshots of issues a step reads."""

    def __init__(
        self,
        client: GitHubClient,
        *,
        owner: str,
        repo: str,
        project: int,
        project_owner: str = "",
        clock: Callable[[], float] | None = None,
        features: IssueFeatures | None = ALL_ISSUE_FEATURES,
    ) -> None:
        """``features``: the issue relations this GitHub has (github.com: all); None
        asks GitHub once, on the first issue read (GitHub Enterprise Server)."""
        super().__init__(clock=clock)
        self.client = client
        self._features = features
        self.owner = owner
        self.repo = repo
        self.project_number = project
        self.project_owner = project_owner or owner
        self._where = {"owner": owner, "name": repo}
        self._lock = threading.Lock()
        self._repository: dict[str, Any] | None = None
        self._board: Board | None = None
        self._node_ids: dict[int, str] = {}
        self._item_ids: dict[int, str] = {}
        self._labels: dict[str, str] = {}
        #: Whether ``_labels`` holds every label of the repository (read this process).
        self._labels_read = False
        #: Each issue's Status on the board as last read or written (None: unset).
        self._statuses: dict[int, str | None] = {}
        self._state_guards: dict[int, threading.Lock] = {}
        #: Whether the boards have status updates; None: ask (a server that may lack them).
        self._status_updates: bool | None = None if features is None else True
        self._snapshots = IssueSnapshots()
        #: Each issue's relatives as last read: a snapshot reads them with the issue.
        self._relatives: dict[int, tuple[int, ...]] = {}
        self._precise = threading.local()
        self._notes = threading.local()
        client.on_write(self._written)

    def close(self) -> None:
        self.client.close()

    # -- cached lookups -------------------------------------------------------------------

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.repo}"

    @property
    def repository_name(self) -> str:
        return self.full_name

    @property
    def where(self) -> dict[str, str]:
        """The repository as GraphQL variables (``owner``, ``name``)."""
        return dict(self._where)

    def repository(self) -> dict[str, Any]:
        """The repository's node (its id, how it lets pull requests merge), read once."""
        if self._repository is None and self._board is None and not self.client.tokens.split:
            self._read_setup()
        if self._repository is None:
            data = self.client.query(q.REPOSITORY, self._where)
            self._repository = dict(data["repository"])
            if self._features is None:
                self._features = features_of(data.get("issueType"))
        return self._repository

    def _read_setup(self) -> None:
        """The repository, its labels and the board, in one request (one token reads all)."""
        data = self.client.query(
            q.REPOSITORY_AND_BOARD,
            {**self._where, "login": self.project_owner, "number": self.project_number},
        )
        repository = dict(data["repository"])
        labels = repository.pop("labels", None) or {}
        for node in labels.get("nodes") or ():
            self._labels[node["name"].casefold()] = node["id"]
        self._labels_read = not (labels.get("pageInfo") or {}).get("hasNextPage")
        self._repository = repository
        project = (data.get("repositoryOwner") or {}).get("projectV2")
        if project:
            self._board = board_from(project)
        if self._features is None:
            self._features = features_of(data.get("issueType"))

    def repository_id(self) -> str:
        return str(self.repository()["id"])

    def board(self) -> Board:
        """The project's id and field/option ids, read once and kept until invalidated."""
        if self._board is None and self._repository is None and not self.client.tokens.split:
            self._read_setup()
        with self._lock:
            if self._board is None:
                data = self.client.query(
                    q.PROJECT,
                    {"login": self.project_owner, "number": self.project_number},
                    token="board",
                )
                project = (data.get("repositoryOwner") or {}).get("projectV2")
                if not project:
                    raise GitHubNotFound(
                        f"project #{self.project_number} of {self.project_owner} not found"
                    )
                self._board = board_from(project)
            return self._board

    def invalidate_board(self) -> None:
        with self._lock:
            self._board = None

    def features(self) -> IssueFeatures:
        unread = self._repository is None and self._board is None
        if self._features is None and unread and not self.client.tokens.split:
            self._read_setup()  # asks it too
        if self._features is None:
            self._features = issue_features(self.client)
        return self._features

    def _issue_shape(self) -> q.IssueShape:
        """Issue reads select the relations this GitHub has, and the board's data only
        when the repository's token may read it; with split tokens it is read apart
        (``_read_board_data``)."""
        features = self.features()
        return q.IssueShape(
            board=not self.client.tokens.split,
            dependencies=features.dependencies,
            sub_issues=features.sub_issues,
        )

    def _require(self, feature: str) -> None:
        """Refused in one line when this GitHub lacks ``feature`` (an IssueFeatures field)."""
        features = self.features()
        if not getattr(features, feature):
            note = NO_SUB_ISSUES if feature == "sub_issues" else NO_DEPENDENCIES
            raise InvalidInput(note)

    def _read_board_data(self, nodes: Sequence[dict[str, Any]]) -> None:
        """With split tokens: the issues' project items, read with the board's token
        (the repository's may lack ``read:project``) and put where a read of both has them.
        An issue on more boards than a read has, none of them Ralph's, gets the rest."""
        if self.client.tokens.split:
            self._read_items(nodes)
        project_id = self.board().project_id
        for node in nodes:
            items = node["projectItems"]
            page = items.get("pageInfo") or {}
            if page.get("hasNextPage") and not any(
                item and item["project"]["id"] == project_id for item in items["nodes"]
            ):
                rest = self.client.pages(
                    q.ISSUE_PROJECT_ITEMS,
                    {"id": node["id"]},
                    ("node", "projectItems"),
                    token="board",
                    after=page.get("endCursor"),
                )
                node["projectItems"] = {"nodes": [*items["nodes"], *rest]}

    def _read_items(self, nodes: Sequence[dict[str, Any]]) -> None:
        for start in range(0, len(nodes), _ITEMS_PER_READ):
            chunk = nodes[start : start + _ITEMS_PER_READ]
            data = self.client.query(
                q.ISSUE_ITEMS, {"ids": [node["id"] for node in chunk]}, token="board"
            )
            items = {found["id"]: found["projectItems"] for found in data["nodes"] if found}
            for node in chunk:
                node["projectItems"] = items.get(node["id"]) or {"nodes": []}

    def _issue_node(self, number: int) -> dict[str, Any]:
        try:
            data = self.client.query(
                q.issue_query(self._issue_shape()), {**self._where, "number": number}
            )
        except GitHubNotFound:
            raise IssueNotFound(number, self.full_name) from None
        node = (data.get("repository") or {}).get("issue")
        if node is None:
            raise IssueNotFound(number, self.full_name)
        return self._took(dict(node))

    def _took(self, node: dict[str, Any]) -> dict[str, Any]:
        """An issue node as read: its ids and Status remembered, its board data (split
        tokens) and its dependencies past the first page read in."""
        number = int(node["number"])
        self._read_board_data([node])
        self._node_ids[number] = node["id"]
        for item in node["projectItems"]["nodes"]:
            if item and item["project"]["id"] == self.board().project_id:
                self._item_ids[number] = item["id"]
        self._statuses[number] = board_values(node, self.board().project_id).get(STATUS)
        return self._all_dependencies(dict(node))

    def _read_group(self, numbers: Sequence[int]) -> None:
        """Issues ``numbers`` into this thread's snapshot, read together (aliased, at
        most ``GROUP_LIMIT`` a request); numbers with no issue are left out."""
        shape = self._issue_shape()
        for start in range(0, len(numbers), q.GROUP_LIMIT):
            chunk = list(numbers[start : start + q.GROUP_LIMIT])
            variables = {f"n{i}": n for i, n in enumerate(chunk)}
            try:
                data = self.client.query(
                    q.issue_group_query(shape, len(chunk)), {**self._where, **variables}
                )
            except GitHubNotFound:  # a number names no issue (rare): one by one, then
                for number in chunk:
                    with suppress(IssueNotFound):
                        self._snapshots.keep(self._issue_of(self._issue_node(number)))
                continue
            repository = data.get("repository") or {}
            for i in range(len(chunk)):
                node = repository.get(f"i{i}")
                if node:
                    issue = self._issue_of(self._took(dict(node)))
                    self._relatives[issue.number] = _relatives(issue)
                    self._snapshots.keep(issue)

    def seen_issues(self, numbers: Iterable[int]) -> list[Issue]:
        wanted = list(dict.fromkeys(numbers))
        latest = self._snapshots.latest
        if any(n not in latest for n in wanted):
            with self.snapshot():
                self.prefetch([n for n in wanted if n not in latest])
        return [latest[n] for n in wanted if n in latest]

    def _known_group(self, number: int) -> list[int]:
        """The issues related to ``number`` as earlier reads found them, transitively (its
        parent's other children too), at most a group read's worth."""
        seen = {number: None}
        frontier = [number]
        while frontier and len(seen) < q.GROUP_LIMIT:
            for related in self._relatives.get(frontier.pop(0), ()):
                if related not in seen and len(seen) < q.GROUP_LIMIT:
                    seen[related] = None
                    frontier.append(related)
        return list(seen)[1:]

    def prefetch(self, numbers: Iterable[int]) -> None:
        """``numbers`` into this thread's snapshot, together; in a snapshot of a step,
        with their relatives as far as the same request holds them (what the step reads
        next, as ``get_issue`` reads them: a stream's implement reads its epic)."""
        wanted = list(dict.fromkeys(numbers))
        if self._snapshots.related:
            for number in list(wanted):
                for related in self._known_group(number):
                    if len(wanted) < q.GROUP_LIMIT and related not in wanted:
                        wanted.append(related)
        missing = self._snapshots.missing(wanted)
        if missing:
            self._read_group(missing)

    def _written(self, document: q.GraphQLDocument) -> None:
        """After a write: the kept issues it may have changed are read again (all of them
        unless the writer named the issues it touches, ``_touching``)."""
        touched: tuple[int, ...] | None = getattr(self._precise, "touched", None)
        self._snapshots.forget(touched)

    @contextmanager
    def _touching(self, *numbers: int) -> Iterator[None]:
        """Writes inside change only issues ``numbers`` (read again in the snapshots)
        and what the writer keeps true itself (``IssueSnapshots.update``)."""
        before = getattr(self._precise, "touched", None)
        self._precise.touched = numbers
        try:
            yield
        finally:
            self._precise.touched = before

    def _keeping_snapshots(self) -> AbstractContextManager[None]:
        """Writes inside keep the snapshots true themselves."""
        return self._touching()

    def _all_dependencies(self, node: dict[str, Any]) -> dict[str, Any]:
        """``node`` with every blocked-by and blocking edge: past the issue read's 50,
        the rest are paged in (rare: a read more, only then)."""
        for field, document in (("blockedBy", q.ISSUE_BLOCKED_BY), ("blocking", q.ISSUE_BLOCKING)):
            connection = node.get(field) or {}
            if (connection.get("pageInfo") or {}).get("hasNextPage"):
                every = self.client.pages(
                    document,
                    {**self._where, "number": node["number"]},
                    ("repository", "issue", field),
                )
                node = {**node, field: {"nodes": list(every)}}
        return node

    def _node_id(self, number: int) -> str:
        if number not in self._node_ids:
            self._issue_node(number)
        return self._node_ids[number]

    def _item_id(self, number: int) -> str:
        """The issue's item on the board, adding the issue to the board if needed
        (``addProjectV2ItemById`` is idempotent)."""
        if number not in self._item_ids:
            self._issue_node(number)
        if number not in self._item_ids:
            data = self.client.mutate(
                q.ADD_PROJECT_ITEM,
                q.input_of(projectId=self.board().project_id, contentId=self._node_id(number)),
                token="board",
            )
            self._item_ids[number] = data["addProjectV2ItemById"]["item"]["id"]
        return self._item_ids[number]

    def item_id(self, number: int) -> str:
        """Issue ``number``'s item on the board, added to the board if it is not on it."""
        return self._item_id(number)

    def existing_item_id(self, number: int) -> str | None:
        """Issue ``number``'s item on the board, None when it is not on the board."""
        self._issue_node(number)
        return self._item_ids.get(number)

    def remember_item(self, number: int, item_id: str) -> None:
        self._item_ids[number] = item_id

    def forget_item(self, item_id: str) -> None:
        """An item removed from the board: the next write adds the issue again."""
        for number in [n for n, i in self._item_ids.items() if i == item_id]:
            del self._item_ids[number]

    def forget_status(self, number: int) -> None:
        """The Status last seen for issue ``number`` may be stale (a field was cleared)."""
        self._statuses.pop(number, None)

    def _label_ids(self, names: Sequence[str]) -> list[str]:
        """Label ids by name (GitHub's names ignore case), creating missing labels."""
        wanted = list(dict.fromkeys(names))
        if not self._labels_read and any(name.casefold() not in self._labels for name in wanted):
            for node in self.client.pages(q.LABELS, self._where, ("repository", "labels")):
                self._labels[node["name"].casefold()] = node["id"]
        for name in wanted:
            if name.casefold() not in self._labels:
                self._labels[name.casefold()] = self._create_label(name)
        return list(dict.fromkeys(self._labels[name.casefold()] for name in wanted))

    def _create_label(self, name: str) -> str:
        try:
            return self._send_label(name)
        except GitHubInvalid:
            if not self._labels_read:
                raise
            # Made meanwhile (another process): the labels as GitHub has them now.
            self._labels_read = False
            return self._label_ids([name])[0]

    def _send_label(self, name: str) -> str:
        def already() -> dict[str, Any] | None:
            for node in self.client.pages(q.LABELS, self._where, ("repository", "labels")):
                if node["name"].casefold() == name.casefold():
                    return {"createLabel": {"label": node}}
            return None

        with self._keeping_snapshots():  # a new label is on no issue yet
            data = self.client.mutate(
                q.CREATE_LABEL,
                q.input_of(repositoryId=self.repository_id(), name=name, color=_LABEL_COLOUR),
                reconcile=already,
            )
        return str(data["createLabel"]["label"]["id"])

    def _issue_of(self, node: dict[str, Any]) -> Issue:
        number = int(node["number"])
        comments = [comment_from(c) for c in node["comments"]["nodes"]]
        if node["comments"]["pageInfo"]["hasNextPage"]:  # read them all from the start
            pages = self.client.pages(
                q.ISSUE_COMMENTS,
                {**self._where, "number": number},
                ("repository", "issue", "comments"),
            )
            comments = [comment_from(c) for c in pages]
        return issue_from(node, self.board().project_id, self.full_name, tuple(comments))

    def _stored_text(self, body: str) -> str:
        """A comment or issue body as GitHub is sent it: cut to what GitHub takes."""
        return fit_body(body, _IN_GIT)

    def _comments_with(self, sought: Mapping[str, tuple[int, str]]) -> dict[str, dict[str, Any]]:
        """Of the comments ``sought`` (key -> issue number, marker), those there, by key;
        each issue read once."""
        found: dict[str, dict[str, Any]] = {}
        for number in dict.fromkeys(n for n, _ in sought.values()):
            data = self.client.query(q.COMMENT_BY_MARKER, {**self._where, "number": number})
            nodes = data["repository"]["issue"]["comments"]["nodes"]
            for key, (wanted, tag) in sought.items():
                node = (
                    next((n for n in nodes if tag in n["body"]), None) if wanted == number else None
                )
                if node is not None:
                    found[key] = dict(node)
        return found

    def _comment_with(self, number: int, tag: str) -> dict[str, Any] | None:
        """The comment of issue ``number`` carrying marker ``tag``, if it is there."""
        data = self.client.query(q.COMMENT_BY_MARKER, {**self._where, "number": number})
        for node in data["repository"]["issue"]["comments"]["nodes"]:
            if tag in node["body"]:
                return dict(node)
        return None
