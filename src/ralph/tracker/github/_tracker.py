"""The GitHub tracker: issues of one repository on one Projects V2 board.

Workflow State, Estimate and Priority are single-select fields of the board; every
Workflow State write also sets GitHub's built-in Status (Todo / In Progress / Done) on a
best-effort basis, as the original did. Sub-issues and the native issue dependencies
(``blockedBy``/``blocking``) are GitHub's own. Creating writes carry an operation marker
so an ambiguous failure is reconciled instead of duplicated; markers are stripped from
everything read back.

GitHub has no compare-and-set on a field: ``_write_state`` re-reads just before it
writes, under a per-issue lock of this process; across processes, exclusive ownership
of an issue comes from the task store's issue locks (taken by the phase runner), not
from the board. A state change is one unit: when its audit comment cannot be posted
the whole change is sent again (the field write is skipped when it already holds, the
comment is looked up by its marker first), and if it still fails the state is moved
back, so a state never stays moved without its comment.

Non-creating writes are judged by their end state after a lost answer: a merge that
landed is success however the resend was answered, and so is an edge that is already
there or already gone.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass, replace
from typing import Any

from ralph._text import check_title, one_line
from ralph.dashboard import DashboardItem, ProjectStatus
from ralph.errors import (
    GitHubError,
    GitHubInvalid,
    GitHubNotFound,
    GitHubRateLimited,
    GitHubUnavailable,
    InvalidInput,
    IssueNotFound,
    StateConflict,
)
from ralph.github import (
    ALL_ISSUE_FEATURES,
    NO_DEPENDENCIES,
    NO_SUB_ISSUES,
    BatchAnswer,
    GitHubClient,
    IssueFeatures,
    issue_features,
    marker,
    strip_markers,
)
from ralph.github import queries as q
from ralph.tracker._board_fields import ESTIMATE, PRIORITY, STATUS, WORKFLOW_STATE
from ralph.tracker._fields import check_edit, check_labels, check_name
from ralph.tracker._model import (
    CloseReason,
    Comment,
    Issue,
    IssueQuery,
    PullRequest,
    StateChange,
    StatusUpdate,
    iso,
)
from ralph.tracker._project_board import ProjectBoard
from ralph.tracker._tracker import Tracker
from ralph.tracker.github._body import fit_body
from ralph.tracker.github._project_board import GitHubProjectBoard
from ralph.tracker.github._read import (
    Board,
    board_from,
    board_values,
    comment_from,
    dashboard_item_from,
    epoch,
    issue_from,
    status_update_from,
)
from ralph.tracker.github._snapshot import IssueSnapshots
from ralph.workflow import (
    WORKFLOW_STATE_TO_STATUS,
    Estimate,
    Priority,
    WorkflowState,
    plan_transition,
)

__all__ = ["NO_STATUS_UPDATES", "GitHubTracker"]

logger = logging.getLogger(__name__)

_LABEL_COLOUR = "ededed"
#: Where the whole of a cut issue body or comment is (phases write their documents there).
_IN_GIT = "in the repository's git history (the thoughts/ documents this issue names)"
#: How many times a state change whose audit comment failed is sent as a whole.
_STATE_CHANGE_TRIES = 3
#: A new issue's fields sent with its first move, by their aliases in ``MoveState``.
_EXTRA_FIELDS = {ESTIMATE: "estimate", PRIORITY: "priority"}
#: Issues whose moves one request carries: three writes each (state, Status, audit)
#: within GitHub's safe batch of ten.
_MOVES_PER_REQUEST = 3
#: Issues whose board data one request reads (split tokens): 50 x 10 items x 20 values.
_ITEMS_PER_READ = 50
NO_STATUS_UPDATES = (
    "this GitHub's projects have no status updates (GitHub Enterprise Server before "
    "they came); print the report with ralph report --dry-run and post it by hand"
)


@dataclass(frozen=True)
class _Note:
    """A phase's message waiting for its issue's next move; ``maybe_posted``: a request
    that carried it got no answer."""

    body: str
    tag: str
    maybe_posted: bool = False


def _relatives(issue: Issue) -> tuple[int, ...]:
    """The issues a step that reads ``issue`` reads next: its parent, children, blockers."""
    parent = (issue.parent,) if issue.parent is not None else ()
    return (*parent, *issue.sub_issues, *issue.blocked_by, *issue.blocking)


class GitHubTracker(Tracker):
    kind = "github"
    several_boards = True
    # GitHub's documented limits: 100 sub-issues per parent, eight levels of nesting.
    max_sub_issues = 100
    max_levels = 8

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

    def project_board(self) -> ProjectBoard:
        return GitHubProjectBoard(self)

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
        missing = self._snapshots.missing(numbers)
        if missing:
            self._read_group(missing)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        outer = not self._snapshots.active
        with self._snapshots.scope():
            try:
                yield
            except BaseException:
                if outer:
                    self._post_pending(failing=True)
                raise
            if outer:
                self._post_pending()

    def _post_pending(self, *, failing: bool = False) -> None:
        """What waited for a move that did not come: new issues' fields, then notes."""
        try:
            with self._keeping_snapshots():
                self._send_pending_fields()
        except (GitHubError, InvalidInput) as exc:
            if not failing:
                raise
            logger.warning("fields not set", extra={"error": str(exc)})
        self._post_notes(failing=failing)

    def add_note(self, number: int, body: str) -> None:
        """Inside a snapshot: sent with the issue's next move (``MoveState``), or alone
        when the snapshot ends."""
        if not self._snapshots.active:
            self.add_comment(number, body)
            return
        waiting = self._pending_notes().setdefault(number, [])
        if all(note.body != body for note in waiting):  # said once, as comment_once means
            waiting.append(_Note(body, marker()))

    def _pending_fields(self) -> dict[int, dict[str, Any]]:
        """New issues' fields (field name -> enum value) not sent yet, by number."""
        pending: dict[int, dict[str, Any]] | None = getattr(self._notes, "fields", None)
        if pending is None:
            pending = self._notes.fields = {}
        return pending

    def _send_pending_fields(self, number: int | None = None) -> None:
        """The fields waiting for issue ``number`` (None: every issue's), sent now."""
        pending = self._pending_fields()
        for waiting in [number] if number is not None else list(pending):
            fields = pending.pop(waiting, None) if waiting is not None else None
            if fields:
                self._set_fields(
                    waiting,
                    state=fields.get(WORKFLOW_STATE),
                    estimate=fields.get(ESTIMATE),
                    priority=fields.get(PRIORITY),
                )

    def _pending_notes(self) -> dict[int, list[_Note]]:
        pending: dict[int, list[_Note]] | None = getattr(self._notes, "pending", None)
        if pending is None:
            pending = self._notes.pending = {}
        return pending

    def _post_notes(self, *, failing: bool = False) -> None:
        """The notes no move took, together (``AddComments``, ten a request; one a lost
        request may have posted is looked for first, alone). While a failure ends the
        snapshot, what cannot be posted is logged, not raised over the failure."""
        pending = self._pending_notes()
        waiting = [(number, note) for number, notes in pending.items() for note in notes]
        pending.clear()
        try:
            for number, note in [w for w in waiting if w[1].maybe_posted]:
                self._post_comment(number, note.body, note.tag, look_first=True)
            fresh = [w for w in waiting if not w[1].maybe_posted]
            for start in range(0, len(fresh), q.BATCH_LIMIT):
                self._post_together(fresh[start : start + q.BATCH_LIMIT])
        except (GitHubError, InvalidInput) as exc:
            if not failing:
                raise
            logger.warning("notes not posted", extra={"error": str(exc)})

    def _post_together(self, notes: Sequence[tuple[int, _Note]]) -> None:
        if len(notes) == 1:
            (number, note), *_ = notes
            self._post_comment(number, note.body, note.tag)
            return
        variables = {
            f"note{i}": q.input_of(
                subjectId=self._node_id(number),
                body=f"{self.stored_text(note.body)}\n\n{note.tag}",
            )["input"]
            for i, (number, note) in enumerate(notes)
        }

        def already() -> dict[str, Any] | None:
            found = {}
            for i, (number, note) in enumerate(notes):
                node = self._comment_with(number, note.tag)
                if node is None:
                    return None
                found[f"note{i}"] = {"commentEdge": {"node": node}}
            return found

        parts = tuple(q.comment_part(alias) for alias in variables)
        with self._keeping_snapshots():
            answer = self.client.mutate_batch(
                q.batch("AddComments", parts), variables, reconcile=already
            )
        for i, (number, _) in enumerate(notes):
            if answer.ok(f"note{i}"):
                self._kept_comment(number, answer.data[f"note{i}"]["commentEdge"]["node"])
        if answer.refused:
            alias, why = next(iter(answer.refused.items()))
            raise GitHubInvalid(f"GitHub refused a comment on #{notes[int(alias[4:])][0]}: {why}")

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

        data = self.client.mutate(
            q.CREATE_LABEL,
            q.input_of(repositoryId=self.repository_id(), name=name, color=_LABEL_COLOUR),
            reconcile=already,
        )
        return str(data["createLabel"]["label"]["id"])

    # -- field writes -----------------------------------------------------------------------

    def _set_field(self, number: int, field: str, option: str) -> None:
        """Set a single-select field. Ids the cached board holds may be stale (a field or
        option made again on GitHub): on a refusal the board is read again, once."""
        try:
            self._write_field(number, field, option)
        except (InvalidInput, GitHubInvalid, GitHubNotFound):
            self.invalidate_board()
            self._write_field(number, field, option)

    def _write_field(self, number: int, field: str, option: str) -> None:
        self.client.mutate(
            q.SET_FIELD_OPTION, self._field_input(number, field, option), token="board"
        )

    def _field_input(self, number: int, field: str, option: str) -> dict[str, dict[str, object]]:
        """The input of a single-select write (InvalidInput when the board lacks the field
        or the option)."""
        board = self.board()
        found = board.fields.get(field)
        if found is None:
            raise InvalidInput(
                f'project #{board.number} has no "{field}" field; run `ralph init --github` '
                "to create the fields Ralph needs"
            )
        field_id, options = found
        if option not in options:
            raise InvalidInput(
                f'"{option}" is not an option of the "{field}" field of project '
                f"#{board.number}; valid options: {', '.join(options)}"
            )
        return q.input_of(
            projectId=board.project_id,
            itemId=self._item_id(number),
            fieldId=field_id,
            value={"singleSelectOptionId": options[option]},
        )

    def _status_to_write(self, number: int, state: WorkflowState) -> str | None:
        """The Status ``state`` calls for, when the board has it and the issue's Status
        (as last read or written) is not that already: None, nothing to write."""
        status = WORKFLOW_STATE_TO_STATUS.get(state)
        found = self.board().fields.get(STATUS)
        if status is None or found is None or status not in found[1]:
            return None
        if number in self._statuses and self._statuses[number] == status:
            return None
        return status

    def _sync_status(self, number: int, state: WorkflowState) -> None:
        """GitHub's own Status follows Workflow State, best effort (a board without the
        field or the option is left alone, and so is a Status that is right already:
        a state write re-reads the issue just before it)."""
        status = self._status_to_write(number, state)
        if status is None:
            return
        try:
            self._set_field(number, STATUS, status)
            self._statuses[number] = status
        except (GitHubError, InvalidInput) as exc:
            logger.warning("status sync failed", extra={"issue": number, "error": str(exc)})

    def _set_fields(
        self,
        number: int,
        *,
        state: WorkflowState | None = None,
        estimate: Estimate | None = None,
        priority: Priority | None = None,
    ) -> None:
        """The fields that are set, in one request (``SetFields``); a write GitHub refuses
        (ids gone stale) is sent again alone after the board is read again, and Status is
        best effort."""
        waiting = self._pending_fields().pop(number, {})  # what a creation left to send
        state = state or waiting.get(WORKFLOW_STATE)
        estimate = estimate or waiting.get(ESTIMATE)
        priority = priority or waiting.get(PRIORITY)
        wanted = {
            WORKFLOW_STATE: state.value if state is not None else None,
            ESTIMATE: estimate.value if estimate is not None else None,
            PRIORITY: priority.value if priority is not None else None,
        }
        writes = {field: option for field, option in wanted.items() if option is not None}
        status = self._status_to_write(number, state) if state is not None else None
        aliases = {WORKFLOW_STATE: "state", ESTIMATE: "estimate", PRIORITY: "priority"}
        variables = {
            aliases[f]: self._field_input(number, f, o)["input"] for f, o in writes.items()
        }
        if status is not None:
            try:
                variables["status"] = self._field_input(number, STATUS, status)["input"]
            except InvalidInput:
                status = None
        if not variables:
            return
        parts = tuple(q.set_field_part(alias) for alias in variables)
        answer = self.client.mutate_batch(q.batch("SetFields", parts), variables, token="board")
        for field, option in writes.items():
            if not answer.ok(aliases[field]):
                self._set_field(number, field, option)  # the board read again, once
        if status is not None:
            if answer.ok("status"):
                self._statuses[number] = status
            else:
                logger.warning(
                    "status sync failed",
                    extra={"issue": number, "error": answer.refused.get("status", "")},
                )

    # -- issues -----------------------------------------------------------------------------

    def get_issue(self, number: int) -> Issue:
        kept = self._snapshots.get(number)
        if kept is not None:
            return kept
        if number in self._pending_fields():  # GitHub must hold them before it is read
            self._send_pending_fields(number)
        if not self._snapshots.active:
            return self._issue_of(self._issue_node(number))
        if not self._snapshots.related:
            alone = self._issue_of(self._issue_node(number))
            self._snapshots.keep(alone)
            return alone
        # Its relatives are what a step reads next (its group, its gates): read with it,
        # those known from an earlier read in the same request, any new ones in one more.
        self._read_group([number, *self._snapshots.missing(self._known_group(number))])
        found = self._snapshots.get(number)
        if found is None:
            raise IssueNotFound(number, self.full_name)
        self.prefetch(_relatives(found))
        return found

    def set_state(
        self,
        number: int,
        state_or_intent: str,
        *,
        command: str = "human",
        actor: str = "ralph",
        only_from: WorkflowState | None = None,
    ) -> StateChange:
        """One read (the compare-and-set reads what the check read) and one write."""
        with self._snapshots.scope(related=False):
            return super().set_state(
                number, state_or_intent, command=command, actor=actor, only_from=only_from
            )

    def set_states(
        self,
        numbers: Sequence[int],
        state_or_intent: str,
        *,
        command: str,
        actor: str = "ralph",
        only_from: Mapping[int, WorkflowState] | None = None,
    ) -> list[StateChange]:
        """The moves together: each issue's Workflow State, Status and audit comment in
        one request for up to three issues (``MoveStates``). Checked one by one first,
        as ``set_state`` checks; an issue with notes waiting moves alone (with them)."""
        held = only_from or {}
        with self._snapshots.scope(related=False):
            changes: list[StateChange] = []
            planned: list[tuple[StateChange, str]] = []
            for number in numbers:
                issue = self.get_issue(number)
                expected = held.get(number)
                if expected is not None and issue.workflow_state is not expected:
                    current = issue.workflow_state
                    raise StateConflict(number, expected.value, current.value if current else None)
                transition = plan_transition(issue.workflow_state, state_or_intent, command)
                intent = state_or_intent if transition.was_intent else None
                change = StateChange(
                    number, issue.workflow_state, transition.to_state, transition.command, intent
                )
                changes.append(change)
                if transition.changed:
                    planned.append((change, self._audit(change, actor, intent)))
            # An issue with notes or a creation's fields waiting moves alone, with them.
            waiting = {*self._pending_notes(), *self._pending_fields()}
            alone = [p for p in planned if p[0].number in waiting]
            together = [p for p in planned if p not in alone]
            for start in range(0, len(together), _MOVES_PER_REQUEST):
                self._send_moves(together[start : start + _MOVES_PER_REQUEST])
            for change, body in alone:
                self._write_state(change.number, change.previous, change.new, body, actor)
            return changes

    def _send_moves(self, moves: Sequence[tuple[StateChange, str]]) -> None:
        """Several issues' moves in one request, each as a unit (state, Status, audit).
        What GitHub refuses of one issue is handled as a lone move would be; a request
        that fails whole is sent again issue by issue, each looked at first."""
        if len(moves) == 1 or self.client.tokens.split:  # checked already: as lone moves
            for change, body in moves:
                self._move_with_audit(change.number, change.previous, change.new, body)
            return
        tags = [marker() for _ in moves]
        variables: dict[str, Any] = {}
        statuses: dict[int, str] = {}
        for i, (change, body) in enumerate(moves):
            number = change.number
            variables[f"state{i}"] = self._field_input(number, WORKFLOW_STATE, change.new.value)[
                "input"
            ]
            status = self._status_to_write(number, change.new)
            if status is not None:
                variables[f"status{i}"] = self._field_input(number, STATUS, status)["input"]
                statuses[i] = status
            variables[f"audit{i}"] = q.input_of(
                subjectId=self._node_id(number),
                body=f"{self.stored_text(body)}\n\n{tags[i]}",
            )["input"]
        parts = tuple(
            q.comment_part(alias) if alias.startswith("audit") else q.set_field_part(alias)
            for alias in variables
        )

        def already() -> dict[str, Any] | None:
            found = {}
            for i, (change, _) in enumerate(moves):
                node = self._comment_with(change.number, tags[i])
                if node is None:
                    return None
                found[f"audit{i}"] = {"commentEdge": {"node": node}}
            return found

        try:
            with self._keeping_snapshots():
                answer = self.client.mutate_batch(
                    q.batch("MoveStates", parts), variables, reconcile=already
                )
        except (GitHubUnavailable, GitHubRateLimited):
            for i, (change, body) in enumerate(moves):  # each as a lone move's resend
                self._move_with_audit(
                    change.number, change.previous, change.new, body, tag=tags[i], resend=True
                )
            return
        refused: GitHubError | None = None
        for i, (change, _) in enumerate(moves):
            number = change.number
            if f"state{i}" in answer.refused:
                self._set_field(number, WORKFLOW_STATE, change.new.value)
            if i in statuses and answer.ok(f"status{i}"):
                self._statuses[number] = statuses[i]
            if not answer.ok(f"audit{i}"):
                self._move_back(number, change.previous)
                refused = GitHubInvalid(
                    f"GitHub refused the audit comment of #{number}: "
                    f"{answer.refused.get(f'audit{i}', 'no answer')}"
                )
                continue
            self._kept_move(number, change.new, answer.data[f"audit{i}"]["commentEdge"]["node"])
        if refused is not None:
            raise refused

    def release(self, number: int, *, command: str, actor: str = "ralph") -> StateChange | None:
        with self._snapshots.scope(related=False):
            return super().release(number, command=command, actor=actor)

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

    def list_issues(self, query: IssueQuery | None = None) -> list[Issue]:
        query = query or IssueQuery()
        states = ["OPEN", "CLOSED"] if query.status is None else [query.status.value.upper()]
        project_id = self.board().project_id
        nodes = [
            dict(node)
            for node in self.client.pages(
                q.issues_query(self._issue_shape()),
                {**self._where, "states": states},
                ("repository", "issues"),
            )
        ]
        self._read_board_data(nodes)
        found = []
        for node in nodes:
            self._node_ids[node["number"]] = node["id"]
            self._statuses[node["number"]] = board_values(node, project_id).get(STATUS)
            node = self._all_dependencies(node)
            found.append(issue_from(node, project_id, self.full_name))
        return query.apply(found)

    def board_issues(self, *, closed_since: float | None = None) -> list[Issue]:
        """The open issues and the closed ones updated since ``closed_since``, a hundred
        a page, with what the dashboard shows (``BoardIssues``). A closed blocker outside
        them no longer blocks and is left out."""
        if self.client.tokens.split:  # the board's data needs the board's token: read apart
            return super().board_issues(closed_since=closed_since)
        project_id = self.board().project_id
        closed_filter: dict[str, Any] = {"states": ["CLOSED"]}
        if closed_since is not None:
            closed_filter["since"] = iso(closed_since) or ""
        nodes: list[dict[str, Any]] = []
        for variables in ({"states": ["OPEN"]}, {"filter": closed_filter}):
            nodes += [
                {"labels": {"nodes": []}, "body": "", **node}
                for node in self.client.pages(
                    q.BOARD_ISSUES, {**self._where, **variables}, ("repository", "issues")
                )
            ]
        read = {int(node["number"]) for node in nodes}
        found = []
        for node in nodes:
            self._node_ids[node["number"]] = node["id"]
            self._statuses[node["number"]] = board_values(node, project_id).get(STATUS)
            issue = issue_from(self._all_dependencies(node), project_id, self.full_name)
            open_blockers = {
                int(b["number"])
                for b in (node.get("blockedBy") or {}).get("nodes") or ()
                if b and b.get("state") == "OPEN"
            }
            kept = tuple(n for n in issue.blocked_by if n in read or n in open_blockers)
            found.append(replace(issue, blocked_by=kept))
        return IssueQuery(status=None, archived=None).apply(found)  # as list_issues orders

    def create_issue(
        self,
        title: str,
        *,
        body: str = "",
        parent: int | None = None,
        state: WorkflowState | None = None,
        estimate: Estimate | None = None,
        priority: Priority | None = None,
        labels: Sequence[str] = (),
        author: str = "ralph",
    ) -> Issue:
        check_title(title)
        check_labels(labels)
        if parent is not None:
            self._require("sub_issues")
        parent_id = self._node_id(parent) if parent is not None else None
        label_ids = self._label_ids(labels) if labels else None
        tag = marker()

        def already() -> dict[str, Any] | None:
            data = self.client.query(q.ISSUE_BY_MARKER, self._where)
            for node in data["repository"]["issues"]["nodes"]:
                if tag in node["body"]:
                    return {"createIssue": {"issue": node}}
            return None

        stored = self.stored_text(body)
        with self._touching(*((parent,) if parent is not None else ())):
            data = self.client.mutate(
                q.CREATE_ISSUE,
                q.input_of(
                    repositoryId=self.repository_id(),
                    title=title,
                    body=f"{stored}\n\n{tag}" if body else tag,
                    labelIds=label_ids,
                    parentIssueId=parent_id,
                ),
                reconcile=already,
            )
        created = data["createIssue"]["issue"]
        number = int(created["number"])
        self._node_ids[number] = created["id"]
        self._statuses[number] = None
        self._relatives[number] = (parent,) if parent is not None else ()
        with self._touching(number):
            # A new issue is on no board: added without a look (the add is idempotent).
            added = self.client.mutate(
                q.ADD_PROJECT_ITEM,
                q.input_of(projectId=self.board().project_id, contentId=created["id"]),
                token="board",
            )
            self._item_ids[number] = added["addProjectV2ItemById"]["item"]["id"]
            wanted = {WORKFLOW_STATE: state, ESTIMATE: estimate, PRIORITY: priority}
            fields = {field: value for field, value in wanted.items() if value is not None}
            if self._snapshots.active and fields:
                # Sent with the issue's first move (a split places its children at once),
                # or when the snapshot ends, or before the issue is read from GitHub.
                self._pending_fields()[number] = fields
            else:
                self._set_fields(number, state=state, estimate=estimate, priority=priority)
        # What GitHub holds now is what was sent: no read back.
        made = Issue(
            number=number,
            title=one_line(title),
            body=strip_markers(stored) if body else "",
            workflow_state=state,
            estimate=estimate,
            priority=priority,
            labels=tuple(dict.fromkeys(labels)),
            parent=parent,
            created_at=epoch(created.get("createdAt")) or self.now(),
            updated_at=epoch(created.get("createdAt")) or self.now(),
            url=str(created.get("url") or ""),
        )
        self._snapshots.keep(made)
        return made

    def update_issue(
        self,
        number: int,
        *,
        title: str | None = None,
        body: str | None = None,
        labels: Sequence[str] | None = None,
        estimate: Estimate | None = None,
        priority: Priority | None = None,
    ) -> Issue:
        if title is not None:
            check_title(title)
        check_labels(labels or ())
        node_id = self._node_id(number)
        if title is not None or body is not None or labels is not None:
            self._update(number, node_id, title, body, labels)
        with self._touching(number):
            self._set_fields(number, estimate=estimate, priority=priority)
        return self.get_issue(number)

    def edit_issue(
        self,
        number: int,
        *,
        title: str | None = None,
        body: str | None = None,
        estimate: Estimate | None = None,
        priority: Priority | None = None,
        add_labels: Sequence[str] = (),
        remove_labels: Sequence[str] = (),
    ) -> Issue:
        """Labels added and removed by their own mutations, so a label someone else
        sets meanwhile stays (``updateIssue``'s ``labelIds`` would replace it)."""
        check_edit(title, add_labels, remove_labels)
        node_id = self._node_id(number)
        removed = {label.casefold() for label in remove_labels}
        adding = self._label_ids([label for label in add_labels if label.casefold() not in removed])
        removing = self._known_label_ids(remove_labels)
        with self._touching(number):
            if title is not None or body is not None:
                self._update(number, node_id, title, body, None)
            if adding:
                self.client.mutate(q.ADD_LABELS, q.input_of(labelableId=node_id, labelIds=adding))
            if removing:
                self.client.mutate(
                    q.REMOVE_LABELS, q.input_of(labelableId=node_id, labelIds=removing)
                )
            self._set_fields(number, estimate=estimate, priority=priority)
        return self.get_issue(number)

    def _known_label_ids(self, names: Sequence[str]) -> list[str]:
        """The ids of the labels the repository has by these names (case ignored); a
        name it lacks is on no issue, so there is nothing to take off."""
        if names and not self._labels_read:
            for node in self.client.pages(q.LABELS, self._where, ("repository", "labels")):
                self._labels[node["name"].casefold()] = node["id"]
        return [self._labels[n.casefold()] for n in names if n.casefold() in self._labels]

    def _update(
        self,
        number: int,
        node_id: str,
        title: str | None,
        body: str | None,
        labels: Sequence[str] | None,
    ) -> None:
        label_ids = None if labels is None else self._label_ids(labels)
        with self._touching(number):
            self.client.mutate(
                q.UPDATE_ISSUE,
                q.input_of(  # only what changes: an explicit null would blank the body
                    id=node_id,
                    title=title,
                    body=None if body is None else self.stored_text(body),
                    labelIds=label_ids,
                ),
            )

    def stored_text(self, body: str) -> str:
        """A comment or issue body as GitHub is sent it: cut to what GitHub takes."""
        return fit_body(body, _IN_GIT)

    def add_comment(self, number: int, body: str, *, author: str = "ralph") -> Comment:
        """Posted as the token's user (GitHub has no other author to give)."""
        check_name(author, "the author")
        return self._post_comment(number, body, marker())

    def _post_comment(
        self, number: int, body: str, tag: str, *, look_first: bool = False
    ) -> Comment:
        """Post ``body`` with the marker ``tag``; ``look_first``: unless a comment with
        that marker is there already (a resend of a change that may have posted it)."""
        subject = self._node_id(number)

        def already() -> dict[str, Any] | None:
            data = self.client.query(q.COMMENT_BY_MARKER, {**self._where, "number": number})
            for node in data["repository"]["issue"]["comments"]["nodes"]:
                if tag in node["body"]:
                    return {"addComment": {"commentEdge": {"node": node}}}
            return None

        data = already() if look_first else None
        if data is not None:
            return comment_from(data["addComment"]["commentEdge"]["node"])
        with self._keeping_snapshots():
            data = self.client.mutate(
                q.ADD_COMMENT,
                q.input_of(subjectId=subject, body=f"{self.stored_text(body)}\n\n{tag}"),
                reconcile=already,
            )
            made = comment_from(data["addComment"]["commentEdge"]["node"])
            self._snapshots.update(
                number, lambda issue: replace(issue, comments=(*issue.comments, made))
            )
        return made

    def close_issue(
        self,
        number: int,
        reason: CloseReason = CloseReason.COMPLETED,
        *,
        duplicate_of: int | None = None,
    ) -> Issue:
        node_id = self._node_id(number)
        original = self._duplicate_id(reason, duplicate_of)
        with self._touching(number):
            self.client.mutate(
                q.CLOSE_ISSUE,
                q.input_of(
                    issueId=node_id,
                    stateReason=reason.value.upper(),
                    duplicateIssueId=original,
                ),
            )
        return self.get_issue(number)

    def _duplicate_id(self, reason: CloseReason, duplicate_of: int | None) -> str | None:
        """The node id of the issue a duplicate repeats, when there is one to name (an
        agent's number may name no issue of this repository: then none is sent)."""
        if reason is not CloseReason.DUPLICATE or duplicate_of is None:
            return None
        try:
            return self._node_id(duplicate_of)
        except IssueNotFound:
            logger.warning("no such issue to name as the original", extra={"issue": duplicate_of})
            return None

    def reopen_issue(self, number: int) -> Issue:
        node_id = self._node_id(number)
        with self._touching(number):
            self.client.mutate(q.REOPEN_ISSUE, q.input_of(issueId=node_id))
        return self.get_issue(number)

    def _holds(
        self, done: Callable[[Issue], bool], number: int
    ) -> Callable[[], dict[str, Any] | None]:
        """A non-creating write's reconcile: success ({}) when ``done`` holds for the
        issue as GitHub now has it."""
        return lambda: {} if done(self.get_issue(number)) else None

    def _set_parent(self, child: int, parent: int | None) -> None:
        self._require("sub_issues")
        if parent is None:
            current = self.get_issue(child).parent
            if current is not None:
                self.client.mutate(
                    q.REMOVE_SUB_ISSUE,
                    q.input_of(issueId=self._node_id(current), subIssueId=self._node_id(child)),
                    reconcile=self._holds(lambda issue: issue.parent is None, child),
                )
            return
        self.client.mutate(
            q.ADD_SUB_ISSUE,
            q.input_of(
                issueId=self._node_id(parent), subIssueId=self._node_id(child), replaceParent=True
            ),
            reconcile=self._holds(lambda issue: issue.parent == parent, child),
        )

    def _add_blocked_by(self, blocked: int, blocking: int) -> None:
        self._require("dependencies")
        edge = self._dependency(blocked, blocking)
        with self._touching(blocked, blocking):
            self.client.mutate(
                q.ADD_BLOCKED_BY,
                edge,
                reconcile=self._holds(lambda issue: blocking in issue.blocked_by, blocked),
            )

    def _remove_blocked_by(self, blocked: int, blocking: int) -> None:
        self._require("dependencies")
        edge = self._dependency(blocked, blocking)
        with self._touching(blocked, blocking):
            self.client.mutate(
                q.REMOVE_BLOCKED_BY,
                edge,
                reconcile=self._holds(lambda issue: blocking not in issue.blocked_by, blocked),
            )

    def _dependency(self, blocked: int, blocking: int) -> dict[str, dict[str, object]]:
        return q.input_of(issueId=self._node_id(blocked), blockingIssueId=self._node_id(blocking))

    def _write_state(
        self,
        number: int,
        expected: WorkflowState | None,
        new: WorkflowState,
        comment: str,
        author: str,
    ) -> None:
        with self._lock:
            guard = self._state_guards.setdefault(number, threading.Lock())
        with guard:  # compare-and-set within this process; across processes: issue locks
            current = self.get_issue(number).workflow_state
            if current != expected:
                raise StateConflict(
                    number,
                    expected.value if expected else None,
                    current.value if current else None,
                )
            self._move_with_audit(number, expected, new, comment)

    def _move_with_audit(
        self,
        number: int,
        before: WorkflowState | None,
        new: WorkflowState,
        comment: str,
        *,
        tag: str | None = None,
        resend: bool = False,
    ) -> None:
        """Move the issue to ``new`` and post its audit ``comment``, as one unit and one
        request (``MoveState``: Workflow State, Status when it changes, the comment, in
        that order). A change GitHub could not take (unavailable, throttled) is sent
        again (the field only if it is not ``new`` already, the comment only if its
        marker is not there), and a change that still fails is moved back to ``before``."""
        tag = tag or marker()
        attempt = 1
        while True:
            try:
                self._send_move(number, new, comment, tag, resend=resend or attempt > 1)
                return
            except (GitHubUnavailable, GitHubRateLimited) as exc:
                if attempt == _STATE_CHANGE_TRIES:
                    self._move_back(number, before)
                    raise
                logger.warning(
                    "state change failed; sending it again",
                    extra={"issue": number, "attempt": attempt, "error": str(exc)},
                )
            except GitHubError:
                self._move_back(number, before)
                raise
            attempt += 1

    def _send_move(
        self, number: int, new: WorkflowState, comment: str, tag: str, *, resend: bool
    ) -> None:
        posted: dict[str, Any] | None = None
        if resend:  # what the lost try did is read afresh
            self._snapshots.forget([number])
            self._statuses.pop(number, None)
            if self.get_issue(number).workflow_state == new:
                self._sync_status(number, new)
                posted = self._comment_with(number, tag)
                if posted is not None:
                    self._kept_move(number, new, posted)
                    return
        variables: dict[str, Any] = {}
        if not resend or self.get_issue(number).workflow_state != new:
            variables["state"] = self._field_input(number, WORKFLOW_STATE, new.value)["input"]
        status = self._status_to_write(number, new)
        if status is not None:
            variables["status"] = self._field_input(number, STATUS, status)["input"]
        # A new issue's other fields go with its first move (its state is this one).
        created = self._pending_fields().pop(number, {})
        extra = {f: v.value for f, v in created.items() if f in _EXTRA_FIELDS}
        for field, option in extra.items():
            variables[_EXTRA_FIELDS[field]] = self._field_input(number, field, option)["input"]
        try:
            self._send_fields_and_audit(number, new, comment, tag, variables, status, extra)
        except BaseException:
            if created:
                self._pending_fields()[number] = created
            raise

    def _send_fields_and_audit(
        self,
        number: int,
        new: WorkflowState,
        comment: str,
        tag: str,
        variables: dict[str, Any],
        status: str | None,
        extra: Mapping[str, str],
    ) -> None:
        audit = q.input_of(
            subjectId=self._node_id(number), body=f"{self.stored_text(comment)}\n\n{tag}"
        )["input"]
        if self.client.tokens.split:  # the board's writes and the comment take two tokens
            if variables:
                parts = tuple(q.set_field_part(alias) for alias in variables)
                fields = self.client.mutate_batch(
                    q.batch("SetFields", parts), variables, token="board"
                )
                self._check_move(number, new, status, fields)
            with self._keeping_snapshots():
                self._kept_move(number, new, None)
                self._post_comment(number, comment, tag)  # kept by _post_comment
            return

        def already() -> dict[str, Any] | None:
            found = self._comment_with(number, tag)
            return None if found is None else {"audit": {"commentEdge": {"node": found}}}

        # The phase's notes on the issue go first, then the fields, then the audit.
        room = q.BATCH_LIMIT - len(variables) - 1
        notes = self._pending_notes().pop(number, [])
        sent, kept_back = notes[:room], notes[room:]
        if kept_back:
            self._pending_notes()[number] = kept_back
        variables = {
            **{
                f"note{i}": q.input_of(
                    subjectId=self._node_id(number),
                    body=f"{self.stored_text(note.body)}\n\n{note.tag}",
                )["input"]
                for i, note in enumerate(sent)
            },
            **variables,
            "audit": audit,
        }
        parts = tuple(
            q.comment_part(alias)
            if alias.startswith(("note", "audit"))
            else q.set_field_part(alias)
            for alias in variables
        )
        with self._keeping_snapshots():
            try:
                answer = self.client.mutate_batch(
                    q.batch("MoveState", parts), variables, reconcile=already
                )
            except BaseException:  # the notes wait for the snapshot's end, looked for first
                left = [replace(note, maybe_posted=True) for note in sent]
                self._pending_notes()[number] = left + self._pending_notes().get(number, [])
                raise
            self._check_move(number, new, status, answer)
            for field, option in extra.items():
                if _EXTRA_FIELDS[field] in answer.refused:
                    self._set_field(number, field, option)
            for i, note in enumerate(sent):
                if not answer.ok(f"note{i}") and f"note{i}" in answer.refused:
                    self._pending_notes().setdefault(number, []).append(note)
            if not answer.ok("audit"):
                raise GitHubInvalid(f"GitHub refused the audit comment: {answer.refused['audit']}")
            nodes = [answer.data[f"note{i}"] for i in range(len(sent))]
            made = [n["commentEdge"]["node"] for n in nodes if n]
            self._kept_move(number, new, answer.data["audit"]["commentEdge"]["node"], made)

    def _check_move(
        self, number: int, new: WorkflowState, status: str | None, answer: BatchAnswer
    ) -> None:
        """A refused state write is sent again once the board is read again (its ids may
        be stale); a refused Status is logged (best effort)."""
        if "state" in answer.refused:
            self._set_field(number, WORKFLOW_STATE, new.value)
        if status is not None and "status" in answer.data:
            if answer.ok("status"):
                self._statuses[number] = status
            else:
                logger.warning(
                    "status sync failed",
                    extra={"issue": number, "error": answer.refused.get("status", "")},
                )

    def _kept_comment(self, number: int, node: dict[str, Any]) -> None:
        """The snapshots keep a comment this tracker posted on issue ``number``."""
        made = (comment_from(node),)

        def commented(issue: Issue) -> Issue:
            return replace(issue, comments=issue.comments + made)

        self._snapshots.update(number, commented)

    def _kept_move(
        self,
        number: int,
        new: WorkflowState,
        node: dict[str, Any] | None,
        notes: Sequence[dict[str, Any]] = (),
    ) -> None:
        """The snapshots keep the moved issue true: its new state, the notes that went
        with the move and its audit comment."""
        made = tuple(comment_from(n) for n in (*notes, *((node,) if node else ())))
        self._snapshots.update(
            number,
            lambda issue: replace(issue, workflow_state=new, comments=issue.comments + made),
        )

    def _comment_with(self, number: int, tag: str) -> dict[str, Any] | None:
        """The comment of issue ``number`` carrying marker ``tag``, if it is there."""
        data = self.client.query(q.COMMENT_BY_MARKER, {**self._where, "number": number})
        for node in data["repository"]["issue"]["comments"]["nodes"]:
            if tag in node["body"]:
                return dict(node)
        return None

    def _move_back(self, number: int, before: WorkflowState | None) -> None:
        """Undo a state change whose audit comment never landed (best effort: an issue
        that had no state keeps the new one, as a single-select cannot be emptied here)."""
        if before is None:
            logger.warning("state moved without its audit comment", extra={"issue": number})
            return
        try:
            self._set_fields(number, state=before)
        except (GitHubError, InvalidInput) as exc:
            logger.warning(
                "could not move the state back",
                extra={"issue": number, "to": before.value, "error": str(exc)},
            )

    # -- the board --------------------------------------------------------------------------

    def _board_item_id(self, number: int) -> str:
        """The issue's item on the board; an issue that is not on it is not archived."""
        if number not in self._item_ids:
            self._issue_node(number)
        if number not in self._item_ids:
            raise InvalidInput(
                f"#{number} is not on project #{self.project_number}, so it has nothing to "
                "archive there"
            )
        return self._item_ids[number]

    def _set_archived(self, number: int, archived: bool) -> Issue:
        item = self._board_item_id(number)
        if self.get_issue(number).archived != archived:
            self.client.mutate(
                q.ARCHIVE_PROJECT_ITEM if archived else q.UNARCHIVE_PROJECT_ITEM,
                q.input_of(projectId=self.board().project_id, itemId=item),
                token="board",
                reconcile=self._holds(lambda issue: issue.archived == archived, number),
            )
        return self.get_issue(number)

    def archive_issue(self, number: int) -> Issue:
        return self._set_archived(number, True)

    def unarchive_issue(self, number: int) -> Issue:
        return self._set_archived(number, False)

    def _require_status_updates(self) -> None:
        if self._status_updates is None:
            data = self.client.query(q.BOARD_FEATURES, {}, token="board")
            names = {f["name"] for f in ((data.get("__type") or {}).get("fields") or [])}
            self._status_updates = "statusUpdates" in names
        if not self._status_updates:
            raise InvalidInput(NO_STATUS_UPDATES)

    def _status_update_nodes(self) -> list[dict[str, Any]]:
        return list(
            self.client.pages(
                q.STATUS_UPDATES,
                {"project": self.board().project_id},
                ("node", "statusUpdates"),
                token="board",
            )
        )

    def _create_status_update(
        self,
        status: ProjectStatus,
        body: str,
        start_date: str | None,
        target_date: str | None,
        author: str,
    ) -> StatusUpdate:
        """Posted as the board token's user (GitHub has no other author to give)."""
        self._require_status_updates()
        tag = marker()

        def already() -> dict[str, Any] | None:
            for node in self._status_update_nodes():
                if tag in (node.get("body") or ""):
                    return {"createProjectV2StatusUpdate": {"statusUpdate": node}}
            return None

        data = self.client.mutate(
            q.CREATE_STATUS_UPDATE,
            q.input_of(
                projectId=self.board().project_id,
                status=status.value,
                body=f"{self.stored_text(body)}\n\n{tag}",
                startDate=start_date,
                targetDate=target_date,
            ),
            token="board",
            reconcile=already,
        )
        return status_update_from(data["createProjectV2StatusUpdate"]["statusUpdate"])

    def list_status_updates(self) -> list[StatusUpdate]:
        self._require_status_updates()
        return [status_update_from(node) for node in self._status_update_nodes()]

    def _update_status_update(
        self,
        update_id: str,
        status: ProjectStatus | None,
        body: str | None,
        start_date: str | None,
        target_date: str | None,
    ) -> StatusUpdate:
        self._require_status_updates()
        try:
            data = self.client.mutate(
                q.UPDATE_STATUS_UPDATE,
                q.input_of(
                    statusUpdateId=update_id,
                    status=status.value if status else None,
                    body=None if body is None else self.stored_text(body),
                    startDate=start_date,
                    targetDate=target_date,
                ),
                token="board",
            )
        except GitHubNotFound:
            raise self._no_status_update(update_id) from None
        return status_update_from(data["updateProjectV2StatusUpdate"]["statusUpdate"])

    def delete_status_update(self, update_id: str) -> None:
        self._require_status_updates()

        def gone() -> dict[str, Any] | None:
            ids = {node["id"] for node in self._status_update_nodes()}
            return None if update_id in ids else {}

        try:
            self.client.mutate(
                q.DELETE_STATUS_UPDATE,
                q.input_of(statusUpdateId=update_id),
                token="board",
                reconcile=gone,
            )
        except GitHubNotFound:
            raise self._no_status_update(update_id) from None

    def _other_board(self, project: int) -> Board:
        data = self.client.query(
            q.PROJECT, {"login": self.project_owner, "number": project}, token="board"
        )
        found = (data.get("repositoryOwner") or {}).get("projectV2")
        if not found:
            raise GitHubNotFound(f"project #{project} of {self.project_owner} not found")
        return board_from(found)

    def add_to_project(
        self, number: int, project: int, *, state: WorkflowState | None = None
    ) -> bool:
        """On Ralph's own board the caller moves the state (``set_state``, audited)."""
        if project == self.project_number:
            self._issue_node(number)  # the item ids as GitHub has them now
            present = number in self._item_ids
            self._item_id(number)
            return not present
        try:
            board = self._other_board(project)
        except GitHubNotFound:
            raise InvalidInput(
                f"project #{project} of {self.project_owner} not found; check the number in its URL"
            ) from None
        node = self._issue_node(number)
        present = any(
            item and item["project"]["id"] == board.project_id
            for item in node["projectItems"]["nodes"]
        )
        made = self.client.mutate(
            q.ADD_PROJECT_ITEM,  # idempotent on GitHub's side
            q.input_of(projectId=board.project_id, contentId=self._node_id(number)),
            token="board",
        )
        found = board.fields.get(WORKFLOW_STATE)
        if state is not None and found is not None and state.value in found[1]:
            self.client.mutate(
                q.SET_FIELD_OPTION,
                q.input_of(
                    projectId=board.project_id,
                    itemId=made["addProjectV2ItemById"]["item"]["id"],
                    fieldId=found[0],
                    value={"singleSelectOptionId": found[1][state.value]},
                ),
                token="board",
            )
        return not present

    def project_items(self, projects: Sequence[int]) -> list[DashboardItem]:
        boards = {}
        for project in dict.fromkeys(projects):
            try:
                boards[project] = self._other_board(project)
            except GitHubNotFound:
                raise InvalidInput(
                    f"project #{project} of {self.project_owner} not found; check the number "
                    "in its URL (github.com/users/OWNER/projects/N or orgs/OWNER/projects/N)"
                ) from None
        # This repository's blockers, read once: a board item says nothing of them.
        blockers = {
            i.number: i.blocked_by for i in self.list_issues(IssueQuery(status=None, archived=None))
        }
        found: list[DashboardItem] = []
        for project, board in boards.items():
            nodes = list(
                self.client.pages(
                    q.PROJECT_ITEMS,
                    {"login": self.project_owner, "number": project},
                    ("repositoryOwner", "projectV2", "items"),
                    token="board",
                )
            )
            title = board.title or f"Project {project}"
            read = [(node, dashboard_item_from(node, project, title)) for node in nodes]
            items = [(node, item) for node, item in read if item is not None]
            ours = {item.number: item.workflow_state for node, item in items if self._ours(node)}
            for node, item in items:
                if self._ours(node):
                    item = replace(
                        item,
                        blocked_by=tuple((n, ours.get(n)) for n in blockers.get(item.number, ())),
                    )
                found.append(item)
        return found

    def _ours(self, item: dict[str, Any]) -> bool:
        """Whether a board item's issue is in this tracker's repository."""
        name = ((item.get("content") or {}).get("repository") or {}).get("nameWithOwner", "")
        return str(name).casefold() == self.full_name.casefold()

    # -- what a merge closes ------------------------------------------------------------------

    def close_merged(self, pr: PullRequest) -> None:
        """The moves to Done together, a few to a request (a group's pull request closes
        several issues); then each issue still open closed (GitHub closes them itself
        only on a merge into the default branch)."""
        issues = []
        for number in pr.closes:
            with suppress(IssueNotFound):
                issues.append(self.get_issue(number))
        done = [
            (
                StateChange(i.number, i.workflow_state, WorkflowState.DONE, "merge"),
                self._done_audit(i.workflow_state, pr),
            )
            for i in issues
            if i.workflow_state is not WorkflowState.DONE
        ]
        for start in range(0, len(done), _MOVES_PER_REQUEST):
            self._send_moves(done[start : start + _MOVES_PER_REQUEST])
        for issue in issues:
            if self.get_issue(issue.number).is_open:
                self.client.mutate(
                    q.CLOSE_ISSUE,
                    q.input_of(issueId=self._node_id(issue.number), stateReason="COMPLETED"),
                )
