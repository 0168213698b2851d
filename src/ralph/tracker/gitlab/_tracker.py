"""The GitLab tracker: the issues of one GitLab project, Ralph's numbers being their
``iid`` (``#12``; ``group/project#12`` from elsewhere).

Ralph's fields are labels (``_mapping``): a move takes the old ``ralph::`` label off and
puts the new one on in one PUT (on Free, scoped labels are not exclusive, so the old one
is always named), then posts the audit note. GitLab has no compare-and-set: a move
re-reads the issue just before writing, under its issue's lock in this process; across
processes the task store's issue locks decide, as on GitHub and Linear.

Reads: an issue is its JSON, its notes (oldest first, GitLab's system notes left out),
its links (blocking) and its children (one list filtered by ``ralph-parent::N``). A list
is one paged read of the project's issues (100 a page), filtered here; the blocking
relations of a list come from the links of the issues GitLab says block others
(``blocking_issues_count``), not from every issue's. Inside a snapshot
(``Tracker.snapshot``) each issue is read once and kept; this tracker's moves and
comments keep the kept issue true, its other writes drop it to be read again. GitLab has
no status updates: they are refused with what to do instead.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from ralph.errors import InvalidInput, IssueNotFound, NotAvailable, StateConflict
from ralph.gitlab import DEFAULT_URL, GitLabClient, GitLabNotFound, project_id
from ralph.tracker._model import Check, CloseReason, Comment, Issue, IssueQuery
from ralph.tracker._project_board import ProjectBoard
from ralph.tracker._snapshot import IssueSnapshots
from ralph.tracker._without_status_updates import TrackerWithoutStatusUpdates
from ralph.tracker.gitlab import _writes as w
from ralph.tracker.gitlab._board import GitLabBoard
from ralph.tracker.gitlab._mapping import (
    ARCHIVED,
    CLOSED_PREFIX,
    ESTIMATE_PREFIX,
    PARENT_PREFIX,
    PRIORITY_PREFIX,
    close_label,
    comment_from,
    estimate_label,
    is_ralph_label,
    issue_from,
    parent_label,
    priority_label,
    state_label,
    state_of,
)
from ralph.tracker.gitlab._project import check_project
from ralph.workflow import Estimate, Priority, WorkflowState

__all__ = ["NO_BLOCKING", "NO_STATUS_UPDATES", "GitLabTracker"]

NO_STATUS_UPDATES = (
    "a GitLab project has no status updates; print the report with "
    "ralph report --dry-run and post it where the team reads it (an issue, a wiki page)"
)
NO_BLOCKING = (
    "GitLab made a related link, not a blocking one: blocking issues are a GitLab "
    "Premium feature; on Free, say the order in the issues' text instead"
)
#: GitLab's default issue closing pattern (docs.gitlab.com, "Default closing pattern";
#: ``Gitlab::ClosingIssueExtractor``): a word, then references separated by commas or
#: "and", each optionally after "issue(s)".
_CLOSING = re.compile(
    r"\b(?:clos(?:e[sd]?|ing)|fix(?:e[sd]|ing)?|resolv(?:e[sd]?|ing)|"
    r"implement(?:s|ed|ing)?):? +"
    r"((?:(?:issues? +)?(?:https?://\S+?/-/issues/\d+|[\w./-]*#\d+)(?: *,? +and +| *,? *)?)+)",
    re.I,
)
_REFERENCE = re.compile(r"(?:(https?://\S+?)/-/issues/|([\w./-]*)#)(\d+)")
#: GitLab's longest issue title (a 256-character one, GitHub's limit, is refused).
MAX_TITLE = 255

Node = dict[str, Any]


class GitLabTracker(TrackerWithoutStatusUpdates):
    no_status_updates = NO_STATUS_UPDATES
    kind = "gitlab"
    remote = True
    links_on_host = False

    def __init__(
        self,
        client: GitLabClient,
        project: str,
        *,
        clock: Callable[[], float] | None = None,
        web_url: str = DEFAULT_URL,
        own_code_host: bool = True,
    ) -> None:
        """``web_url``: the instance (gitlab.com); ``own_code_host``: whether the merge
        requests are this project's (else closing words name the issue by its URL)."""
        super().__init__(clock=clock)
        self.web_url = web_url.rstrip("/")
        self.own_code_host = own_code_host
        self.client = client
        #: The project's path, ``group/project``.
        self.project = project.strip("/")
        #: The project as a URL's ``{id}``.
        self.project_id = project_id(self.project)
        self._lock = threading.Lock()
        self._state_guards: dict[int, threading.Lock] = {}
        self._snapshots = IssueSnapshots()

    # -- what the tracker answers -----------------------------------------------------------

    @property
    def repository_name(self) -> str:
        return self.project

    def project_board(self) -> ProjectBoard:
        # The project's issues are its board; managing one as a board is GitHub's.
        return GitLabBoard(self.project)

    def reference(self, number: int) -> str:
        return f"#{number}"

    def full_reference(self, number: int) -> str:
        """How issue ``number`` is named from another project."""
        return f"{self.project}#{number}"

    def issue_url(self, number: int) -> str:
        return f"{self.web_url}/{self.project}/-/issues/{number}"

    def closing_words(self, number: int) -> str:
        # On another code host (GitHub) a "#12" would close that repository's own issue
        # #12 at the merge: the issue's URL names only this one.
        if self.own_code_host:
            return f"Closes #{number}"
        return f"Closes {self.issue_url(number)}"

    def closed_by(self, body: str) -> tuple[int, ...]:
        """The project's issues ``body`` closes: ``Closes #12``, ``fixes #3, #4 and
        group/project#5`` or the issue's URL (GitLab's default closing pattern); another
        project's references are not this tracker's, nor a bare ``#12`` in a pull request
        on another code host."""
        found: dict[int, None] = {}
        for match in _CLOSING.finditer(body):
            for url, path, number in _REFERENCE.findall(match.group(1)):
                if url:
                    ours = url.lower().rstrip("/") == f"{self.web_url}/{self.project}".lower()
                elif not path:  # "#12" on another host names that host's own issue
                    ours = self.own_code_host
                else:
                    ours = path.lower() == self.project.lower()
                if ours:
                    found.setdefault(int(number), None)
        return tuple(found)

    def scope(self) -> dict[str, object]:
        return {"project": self.project}

    def settings(self) -> dict[str, object]:
        return {"tracker": self.kind, "project": self.project}

    def check(self) -> list[Check]:
        return check_project(self.client, self.project)

    # -- reads ------------------------------------------------------------------------------

    def _node(self, number: int) -> Node:
        return w.issue_node(self.client, self.project_id, number)

    def _path(self, number: int, tail: str = "") -> str:
        return f"/projects/{self.project_id}/issues/{number}{tail}"

    def _relations(self, number: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(blocked_by, blocking) of issue ``number``, this project's issues only."""
        blocked_by: list[int] = []
        blocking: list[int] = []
        for node in w.links(self.client, self.project_id, number):
            other = w.ours(node, self.project_id)
            if other is None:
                continue
            if node.get("link_type") == "is_blocked_by":
                blocked_by.append(other)
            elif node.get("link_type") == "blocks":
                blocking.append(other)
        return tuple(sorted(blocked_by)), tuple(sorted(blocking))

    def _children(self, number: int) -> tuple[int, ...]:
        query = [("labels", parent_label(number)), ("state", "all")]
        found = self.client.pages(f"/projects/{self.project_id}/issues", query)
        return tuple(sorted(int(node["iid"]) for node in found))

    def _comments(self, number: int) -> tuple[Comment, ...]:
        query = [("sort", "asc"), ("order_by", "created_at")]
        notes = self.client.pages(self._path(number, "/notes"), query)
        return tuple(comment_from(n) for n in notes if not n.get("system"))

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        with self._snapshots.scope(related=False):
            yield

    def seen_issues(self, numbers: Iterable[int]) -> list[Issue]:
        latest = self._snapshots.latest
        return [latest.get(n) or self.get_issue(n) for n in dict.fromkeys(numbers)]

    def get_issue(self, number: int) -> Issue:
        kept = self._snapshots.get(number)
        if kept is not None:
            return kept
        issue = self._read_issue(number)
        self._snapshots.keep(issue)
        return issue

    def _read_issue(self, number: int) -> Issue:
        node = self._node(number)
        blocked_by, blocking = self._relations(number)
        return issue_from(
            node,
            comments=self._comments(number),
            sub_issues=self._children(number),
            blocked_by=blocked_by,
            blocking=blocking,
            pull_requests=self._closing_requests(number),
        )

    def _closing_requests(self, number: int) -> tuple[int, ...]:
        """The merge requests of this project whose merge closes issue ``number`` (open
        or merged; GitLab's ``closed_by`` lists them, one answer, not paged); none to
        ask for when the pull requests are on another code host."""
        if not self.own_code_host:
            return ()
        found = self.client.request("GET", self._path(number, "/closed_by"))
        return tuple(
            sorted(
                int(mr["iid"])
                for mr in found
                if self._in_project(mr, "!") and mr.get("state") in ("opened", "merged")
            )
        )

    def _in_project(self, node: Node, sign: str) -> bool:
        """Whether ``node`` (an issue ``#``, a merge request ``!``) is this project's."""
        full = str((node.get("references") or {}).get("full", ""))
        return full.rpartition(sign)[0].lower() == self.project.lower()

    def list_issues(self, query: IssueQuery | None = None) -> list[Issue]:
        query = query or IssueQuery()
        nodes = list(self.client.pages(f"/projects/{self.project_id}/issues", [("state", "all")]))
        children: dict[int, list[int]] = {}
        for node in nodes:
            parent = issue_from(node).parent
            if parent is not None:
                children.setdefault(parent, []).append(int(node["iid"]))
        blocked_by: dict[int, list[int]] = {}
        blocking: dict[int, list[int]] = {}
        for node in nodes:
            if int(node.get("blocking_issues_count") or 0) > 0:
                number = int(node["iid"])
                _, blocks = self._relations(number)
                blocking[number] = list(blocks)
                for blocked in blocks:
                    blocked_by.setdefault(blocked, []).append(number)
        issues = [
            issue_from(
                node,
                sub_issues=tuple(sorted(children.get(int(node["iid"]), ()))),
                blocked_by=tuple(sorted(blocked_by.get(int(node["iid"]), ()))),
                blocking=tuple(blocking.get(int(node["iid"]), ())),
            )
            for node in nodes
        ]
        return query.apply(issues)

    # -- writes -----------------------------------------------------------------------------

    def _labels_of(self, node: Node) -> list[str]:
        return [str(name) for name in node.get("labels") or ()]

    def _create_issue(
        self,
        title: str,
        body: str,
        parent: int | None,
        state: WorkflowState | None,
        estimate: Estimate | None,
        priority: Priority | None,
        labels: Sequence[str],
        author: str,
    ) -> Issue:
        _check_title(title)
        if parent is not None:
            self._node(parent)  # a missing parent: nothing is created
        names = list(dict.fromkeys(n for n in labels if not is_ralph_label(n)))
        if state is not None:
            names.append(state_label(state))
        if estimate is not None:
            names.append(estimate_label(estimate))
        if priority is not None:
            names.append(priority_label(priority))
        if parent is not None:
            names.append(parent_label(parent))
        fields: dict[str, Any] = {"title": title, "description": body}
        if names:
            fields["labels"] = names
        made = issue_from(w.create_issue(self.client, self.project_id, fields))
        if parent is not None:
            self._snapshots.forget([parent])  # one more child
        return made

    def _put(self, number: int, body: dict[str, Any]) -> Node:
        self._snapshots.forget([number])
        try:
            node: Node = self.client.request("PUT", self._path(number), body=body)
        except GitLabNotFound:
            raise IssueNotFound(number, f"GitLab project {self.project}") from None
        return node

    def _update_issue(
        self,
        number: int,
        title: str | None,
        body: str | None,
        labels: Sequence[str] | None,
        estimate: Estimate | None,
        priority: Priority | None,
    ) -> Issue:
        node = self._node(number)
        if (title, body, labels, estimate, priority) == (None, None, None, None, None):
            return self.get_issue(number)
        fields: dict[str, Any] = {}
        if title is not None:
            _check_title(title)
            fields["title"] = title
        if body is not None:
            fields["description"] = body
        current = self._labels_of(node)
        add: list[str] = []
        remove: list[str] = []
        if labels is not None:
            wanted = {n.casefold() for n in labels}
            remove += [n for n in current if not is_ralph_label(n) and n.casefold() not in wanted]
            add += [n for n in dict.fromkeys(labels) if not is_ralph_label(n)]
        if estimate is not None:
            remove += [n for n in current if n.startswith(ESTIMATE_PREFIX)]
            add.append(estimate_label(estimate))
        if priority is not None:
            remove += [n for n in current if n.startswith(PRIORITY_PREFIX)]
            add.append(priority_label(priority))
        remove = [n for n in remove if n not in add]
        if remove:
            fields["remove_labels"] = remove
        if add:
            fields["add_labels"] = add
        if fields:
            self._put(number, fields)
        return self.get_issue(number)

    def _add_comment(self, number: int, body: str, author: str) -> Comment:
        """Posted as the token's user (GitLab names no other author)."""
        made = comment_from(w.create_note(self.client, self.project_id, number, body))
        self._snapshots.update(number, lambda old: replace(old, comments=(*old.comments, made)))
        return made

    def _write_state(
        self,
        number: int,
        expected: WorkflowState | None,
        new: WorkflowState,
        comment: str,
        author: str,
    ) -> None:
        """Re-read, then move (old state labels off, the new one on, one PUT) and post the
        audit note."""
        with self._lock:
            guard = self._state_guards.setdefault(number, threading.Lock())
        with guard:
            kept = self._snapshots.get(number)
            if kept is not None:  # as read in this step, kept true by this tracker's writes
                current = kept.workflow_state
                labels = [] if current is None else [state_label(current)]
            else:
                labels = self._labels_of(self._node(number))
                current = state_of(labels)
            if current is not expected:
                raise StateConflict(
                    number,
                    expected.value if expected else None,
                    current.value if current else None,
                )
            # Every other state label, not only the one read: on GitLab Free scoped labels
            # are not exclusive, so a person's move since the read would otherwise stay.
            stale = [state_label(s) for s in WorkflowState if s is not new]
            body: dict[str, Any] = {"add_labels": [state_label(new)]}
            if stale:
                body["remove_labels"] = stale
            moved = issue_from(self._put(number, body))
            made = comment_from(w.create_note(self.client, self.project_id, number, comment))
            if kept is not None:
                self._snapshots.keep(
                    replace(
                        kept,
                        workflow_state=moved.workflow_state,
                        updated_at=moved.updated_at,
                        comments=(*kept.comments, made),
                    )
                )

    def _close_issue(self, number: int, reason: CloseReason, duplicate_of: int | None) -> Issue:
        """Closed, the reason a label when it is not "completed" (GitLab records none).
        ``duplicate_of`` is left out: GitLab marks duplicates by a quick action, which
        also closes, and a link to it would say nothing more to Ralph."""
        node = self._node(number)
        stale = [n for n in self._labels_of(node) if n.startswith(CLOSED_PREFIX)]
        label = close_label(reason)
        body: dict[str, Any] = {}
        if node.get("state") != "closed":
            body["state_event"] = "close"
        if label is not None and label not in stale:
            body["add_labels"] = [label]
        if [n for n in stale if n != label]:
            body["remove_labels"] = [n for n in stale if n != label]
        if body:
            self._put(number, body)
        return self.get_issue(number)

    def reopen_issue(self, number: int) -> Issue:
        node = self._node(number)
        body: dict[str, Any] = {}
        if node.get("state") == "closed":
            body["state_event"] = "reopen"
        stale = [n for n in self._labels_of(node) if n.startswith(CLOSED_PREFIX)]
        if stale:
            body["remove_labels"] = stale
        if body:
            self._put(number, body)
        return self.get_issue(number)

    def _set_parent(self, child: int, parent: int | None) -> None:
        node = self._node(child)
        former = issue_from(node).parent
        self._snapshots.forget(n for n in (child, parent, former) if n is not None)
        stale = [n for n in self._labels_of(node) if n.startswith(PARENT_PREFIX)]
        body: dict[str, Any] = {}
        if parent is not None and parent_label(parent) not in stale:
            body["add_labels"] = [parent_label(parent)]
        gone = [n for n in stale if parent is None or n != parent_label(parent)]
        if gone:
            body["remove_labels"] = gone
        if body:
            self._put(child, body)

    def _add_blocked_by(self, blocked: int, blocking: int) -> None:
        self._snapshots.forget([blocked, blocking])
        made = w.link(self.client, self.project_id, blocking, blocked, "blocks")
        if made is not None and made.get("link_type") != "blocks":
            w.unlink(self.client, self.project_id, blocking, blocked)
            raise NotAvailable(NO_BLOCKING)

    def _remove_blocked_by(self, blocked: int, blocking: int) -> None:
        self._snapshots.forget([blocked, blocking])
        w.unlink(self.client, self.project_id, blocking, blocked)

    def archive_issue(self, number: int) -> Issue:
        if ARCHIVED not in self._labels_of(self._node(number)):
            self._put(number, {"add_labels": [ARCHIVED]})
        return self.get_issue(number)

    def unarchive_issue(self, number: int) -> Issue:
        if ARCHIVED in self._labels_of(self._node(number)):
            self._put(number, {"remove_labels": [ARCHIVED]})
        return self.get_issue(number)


def _check_title(title: str) -> None:
    if len(title) > MAX_TITLE:
        raise InvalidInput(
            f"an issue's title is {len(title):,} characters long; at most {MAX_TITLE} on "
            "GitLab: shorten it and put the rest in the body"
        )
