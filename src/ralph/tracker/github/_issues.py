"""The GitHub tracker's issues: reads, lists, creation, edits, comments, closing and
relations (GitHub's sub-issues and native ``blockedBy``/``blocking`` dependencies).
Creating writes carry an operation marker so an ambiguous failure is reconciled instead
of duplicated.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from ralph.errors import GitHubInvalid, GitHubRateLimited, GitHubUnavailable, IssueNotFound
from ralph.github import PartlyLanded, marker
from ralph.github import queries as q
from ralph.tracker._board_fields import ESTIMATE, PRIORITY, STATUS
from ralph.tracker._model import CloseReason, Comment, Issue, IssueQuery, PullRequest, iso
from ralph.tracker.github._creations import GitHubCreations, _with
from ralph.tracker.github._lookups import _relatives
from ralph.tracker.github._read import board_values, closed, edited, issue_from
from ralph.workflow import Estimate, Priority

__all__ = ["GitHubIssues"]

logger = logging.getLogger(__name__)

#: The fields an edit carries when they wait for the issue, by their aliases.
_CARRIED = {ESTIMATE: "estimate", PRIORITY: "priority"}
#: The pull requests an issue read names (``closedByPullRequestsReferences(first: 10)``).
_LINKS_READ = 10


class GitHubIssues(GitHubCreations):
    """Issues: reading, listing, creating and editing them, comments, closing, and
    their relations (sub-issues, dependencies)."""

    def get_issue(self, number: int) -> Issue:
        kept = self._snapshots.get(number)
        if kept is not None:
            return kept
        if number in self._pending_fields():  # GitHub must hold them before it is read
            self._send_pending_fields(number, quiet=True)  # else raised where they wait
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

    def _update_issue(
        self,
        number: int,
        title: str | None,
        body: str | None,
        labels: Sequence[str] | None,
        estimate: Estimate | None,
        priority: Priority | None,
    ) -> Issue:
        node_id = self._node_id(number)
        sets = {f: v for f, v in ((ESTIMATE, estimate), (PRIORITY, priority)) if v is not None}
        # Inside a snapshot they wait for the issue's edit, its next move, or the end.
        waits = bool(sets) and self._carries(number)
        if waits:
            self._wait_fields(number, sets)
        if title is not None or body is not None or labels is not None:
            self._update(number, node_id, title, body, labels)
        if sets and not waits:
            with self._keeping_snapshots():  # the fields it set are kept true below
                self._set_fields(number, estimate=estimate, priority=priority)

        def estimated(issue: Issue) -> Issue:
            return replace(
                issue, estimate=estimate or issue.estimate, priority=priority or issue.priority
            )

        self._snapshots.update(number, estimated)
        return self.get_issue(number)

    def _edit_issue(
        self,
        number: int,
        title: str | None,
        body: str | None,
        estimate: Estimate | None,
        priority: Priority | None,
        add_labels: Sequence[str],
        remove_labels: Sequence[str],
    ) -> Issue:
        """Labels added and removed by their own mutations, so a label someone else
        sets meanwhile stays (``updateIssue``'s ``labelIds`` would replace it)."""
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
        edit = q.input_of(  # only what changes: an explicit null would blank the body
            id=node_id,
            title=title,
            body=None if body is None else self.stored_text(body),
            labelIds=label_ids,
        )
        if self._carries(number) and (
            self._pending_notes().get(number) or self._pending_fields().get(number)
        ):
            self._send_edit(number, edit)
            return
        self._edit_alone(number, edit)

    def _edit_alone(self, number: int, edit: dict[str, dict[str, object]]) -> None:
        with self._keeping_snapshots():  # GitHub's answer says what the issue now is
            data = self.client.mutate(q.UPDATE_ISSUE, edit)
        self._snapshots.update(number, lambda issue: edited(issue, data["updateIssue"]["issue"]))

    def _carries(self, number: int) -> bool:
        """Whether a write to issue ``number`` takes what waits for it (its notes, its
        new fields): inside a snapshot that keeps it, with one token for everything."""
        return self._snapshots.get(number) is not None and not self.client.tokens.split

    def _send_edit(self, number: int, edit: dict[str, dict[str, object]]) -> None:
        """An edit with what waits for the issue, in one request (``EditIssue``): the
        edit, then its new Estimate and Priority, then the step's notes. A refused field
        is sent again after the board is read again; a refused note waits again."""
        pending = self._pending_fields().pop(number, {})
        left = {f: v for f, v in pending.items() if f not in _CARRIED}  # for the move
        self._fields_back(number, left)
        fields, inputs = self._carried_fields(number, pending)
        notes = self._fresh_notes(number, q.BATCH_LIMIT - 1 - len(fields))
        variables: dict[str, Any] = {"edit": edit["input"], **inputs}
        for i, note in enumerate(notes):
            variables[f"note{i}"] = q.input_of(
                subjectId=self._node_id(number),
                body=f"{self.stored_text(note.body)}\n\n{note.tag}",
            )["input"]
        parts = tuple(
            q.edit_part(a)
            if a == "edit"
            else q.comment_part(a)
            if a.startswith("note")
            else q.set_field_part(a)
            for a in variables
        )

        sought = {f"note{i}": (number, note.tag) for i, note in enumerate(notes)}

        def already() -> dict[str, Any] | None:
            return self._comments_landed("EditIssue", sought)

        try:
            with self._keeping_snapshots():
                answer = self.client.mutate_batch(
                    q.batch("EditIssue", parts), variables, reconcile=already if notes else None
                )
        except PartlyLanded as partly:  # sent again whole, the landed notes would be twice
            self._fields_back(number, fields)
            for i, note in enumerate(notes):
                if f"note{i}" in partly.found:
                    self._kept_comment(number, partly.found[f"note{i}"]["commentEdge"]["node"])
                else:  # looked for first, when the snapshot ends
                    self._notes_back(number, [note], maybe_posted=True)
            self._edit_alone(number, edit)  # the edit is idempotent: sent again as it is
            return
        except BaseException as exc:  # what it carried waits again
            self._fields_back(number, fields)
            lost = isinstance(exc, (GitHubUnavailable, GitHubRateLimited))
            self._notes_back(number, notes, maybe_posted=lost)  # lost: looked for first
            if lost:
                self._snapshots.forget([number])  # the edit may have landed: read again
            raise
        refused = {f: v for f, v in fields.items() if _CARRIED[f] in answer.refused}
        self._carried_back(number, refused)  # sent alone later: its failure is its own
        for i, note in enumerate(notes):
            if answer.ok(f"note{i}"):
                self._kept_comment(number, answer.data[f"note{i}"]["commentEdge"]["node"])
            elif f"note{i}" in answer.refused:
                self._notes_back(number, [note], maybe_posted=False)
        if answer.ok("edit"):
            node = answer.data["edit"]["issue"]
            self._snapshots.update(number, lambda issue: edited(issue, node))
        else:  # refused, or found landed after a lost answer: read again
            self._snapshots.forget([number])
        taken = {f: v for f, v in fields.items() if f not in refused}
        self._snapshots.update(
            number,
            lambda issue: replace(
                issue,
                estimate=taken.get(ESTIMATE, issue.estimate),
                priority=taken.get(PRIORITY, issue.priority),
            ),
        )
        if "edit" in answer.refused:
            raise GitHubInvalid(f"GitHub refused the edit of #{number}: {answer.refused['edit']}")

    @contextmanager
    def opening_pull_request(self) -> Iterator[None]:
        """Opening a pull request (inside): it changes the kept issues only by linking
        those it closes, which ``pull_request_opened`` keeps true. One whose answer
        was lost may have landed: every kept issue is read again."""
        try:
            with self._keeping_snapshots():
                yield
        except BaseException:
            self._snapshots.forget()
            raise

    def pull_request_opened(self, pr: PullRequest, default_branch: str) -> None:
        """The issues ``pr`` closes, as GitHub now links them: only a pull request into
        the default branch is linked by its closing words."""
        if pr.base != default_branch:
            return

        def linked(issue: Issue) -> Issue:
            if pr.number in issue.pull_requests:
                return issue
            return replace(issue, pull_requests=(*issue.pull_requests, pr.number))

        for number in pr.closes:
            kept = self._snapshots.get(number)
            if kept is not None and len(kept.pull_requests) >= _LINKS_READ:
                self._snapshots.forget([number])  # which ten a read names is GitHub's
            else:
                self._snapshots.update(number, linked)

    def _add_comment(self, number: int, body: str, author: str) -> Comment:
        """Posted as the token's user (GitHub has no other author to give)."""
        return self._post_comment(number, body, marker())

    def _close_issue(self, number: int, reason: CloseReason, duplicate_of: int | None) -> Issue:
        node_id = self._node_id(number)
        original = self._duplicate_id(reason, duplicate_of)
        with self._keeping_snapshots():  # GitHub's answer says what the issue now is
            data = self.client.mutate(
                q.CLOSE_ISSUE,
                q.input_of(
                    issueId=node_id,
                    stateReason=reason.value.upper(),
                    duplicateIssueId=original,
                ),
            )
        # The board's "Item closed" workflow may have moved its Status: read, not assumed.
        self.forget_status(number)
        self._snapshots.update(number, lambda issue: closed(issue, data["closeIssue"]["issue"]))
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

    def add_dependencies(self, edges: Sequence[tuple[int, int]]) -> None:
        """Inside a snapshot that keeps the issues: each edge checked on the kept issues
        as the ones before it leave them, then all sent in one request (``AddBlockedBys``)."""
        edges = list(edges)
        numbers = list(dict.fromkeys(n for edge in edges for n in edge))
        if len(edges) < 2 or not all(self._carries(n) for n in numbers):
            super().add_dependencies(edges)
            return
        self._require("dependencies")
        try:
            for blocked, blocking in edges:
                self._check_dependency(blocked, blocking)
                self._keep_edge(blocked, blocking)  # the next check sees it
            for start in range(0, len(edges), q.BATCH_LIMIT):
                self._send_edges(edges[start : start + q.BATCH_LIMIT])
        except BaseException:
            self._snapshots.forget(numbers)  # what landed is read again
            raise

    def _send_edges(self, edges: Sequence[tuple[int, int]]) -> None:
        variables = {
            f"edge{i}": self._dependency(blocked, blocking)["input"]
            for i, (blocked, blocking) in enumerate(edges)
        }

        def held() -> dict[str, Any] | None:  # GitHub's issues as they are, not the kept
            for blocked, blocking in edges:
                if blocking not in self._issue_of(self._issue_node(blocked)).blocked_by:
                    return None
            return {}

        parts = tuple(q.blocked_by_part(alias) for alias in variables)
        with self._keeping_snapshots():
            answer = self.client.mutate_batch(
                q.batch("AddBlockedBys", parts), variables, reconcile=held
            )
        if answer.refused:
            alias, why = next(iter(answer.refused.items()))
            blocked, blocking = edges[int(alias.removeprefix("edge"))]
            raise GitHubInvalid(f"GitHub refused #{blocked} waiting for #{blocking}: {why}")

    def _keep_edge(self, blocked: int, blocking: int) -> None:
        """The kept issues with the edge ``blocked`` waits for ``blocking``."""
        self._snapshots.update(
            blocked, lambda issue: replace(issue, blocked_by=_with(issue.blocked_by, blocking))
        )
        self._snapshots.update(
            blocking, lambda issue: replace(issue, blocking=_with(issue.blocking, blocked))
        )

    def _add_blocked_by(self, blocked: int, blocking: int) -> None:
        self._require("dependencies")
        edge = self._dependency(blocked, blocking)
        with self._keeping_snapshots():  # the edge is kept on both issues below
            self.client.mutate(
                q.ADD_BLOCKED_BY,
                edge,
                reconcile=self._holds(lambda issue: blocking in issue.blocked_by, blocked),
            )
        self._keep_edge(blocked, blocking)

    def _remove_blocked_by(self, blocked: int, blocking: int) -> None:
        self._require("dependencies")
        edge = self._dependency(blocked, blocking)
        with self._keeping_snapshots():  # the edge is taken off both issues below
            self.client.mutate(
                q.REMOVE_BLOCKED_BY,
                edge,
                reconcile=self._holds(lambda issue: blocking not in issue.blocked_by, blocked),
            )
        self._snapshots.update(
            blocked,
            lambda issue: replace(issue, blocked_by=_without(issue.blocked_by, blocking)),
        )
        self._snapshots.update(
            blocking, lambda issue: replace(issue, blocking=_without(issue.blocking, blocked))
        )

    def _dependency(self, blocked: int, blocking: int) -> dict[str, dict[str, object]]:
        return q.input_of(issueId=self._node_id(blocked), blockingIssueId=self._node_id(blocking))


def _without(numbers: tuple[int, ...], number: int) -> tuple[int, ...]:
    return tuple(n for n in numbers if n != number)
