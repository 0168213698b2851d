"""The GitHub tracker: issues of one repository on one Projects V2 board.

Workflow State, Estimate and Priority are single-select fields of the board; every
Workflow State write also sets GitHub's built-in Status (Todo / In Progress / Done) on a
best-effort basis, as the original did. Sub-issues and the native issue dependencies
(``blockedBy``/``blocking``) are GitHub's own. Creating writes carry an operation marker
so an ambiguous failure is reconciled instead of duplicated; markers are stripped from
everything read back.

``GitHubTracker`` is built in layers, one module each, every layer using only those
below it: ``_lookups`` (reads, ids, labels, snapshots), ``_writes`` (field writes,
comments, what waits for a move), ``_moves`` (state moves with their audit), ``_issues``
(the issue reads and writes, relations); here, the board and the pull requests.

Non-creating writes are judged by their end state after a lost answer: a merge that
landed is success however the resend was answered, and so is an edge that is already
there or already gone.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import replace
from typing import Any

from ralph.dashboard import DashboardItem, ProjectStatus
from ralph.errors import (
    GitHubNotFound,
    InvalidInput,
    IssueNotFound,
    RalphError,
)
from ralph.github import marker
from ralph.github import queries as q
from ralph.tracker._board_fields import WORKFLOW_STATE
from ralph.tracker._model import (
    Check,
    Issue,
    IssueQuery,
    PullRequest,
    StateChange,
    StatusUpdate,
)
from ralph.tracker._project_board import ProjectBoard
from ralph.tracker.github._board import check_board
from ralph.tracker.github._issues import GitHubIssues
from ralph.tracker.github._project_board import GitHubProjectBoard
from ralph.tracker.github._read import Board, board_from, dashboard_item_from, status_update_from
from ralph.workflow import WorkflowState

__all__ = ["NO_STATUS_UPDATES", "GitHubTracker"]

logger = logging.getLogger(__name__)

NO_STATUS_UPDATES = (
    "this GitHub's projects have no status updates (GitHub Enterprise Server before "
    "they came); print the report with ralph report --dry-run and post it by hand"
)


class GitHubTracker(GitHubIssues):
    kind = "github"
    several_boards = True
    # GitHub's documented limits: 100 sub-issues per parent, eight levels of nesting.
    max_sub_issues = 100
    max_levels = 8
    remote = True
    links_on_host = True

    def escalation_handles(self) -> tuple[str, ...]:
        return (f"@{self.owner}",) if self.owner else ()

    def scope(self) -> dict[str, object]:
        return {"owner": self.owner, "repo": self.repo, "projectNumber": self.project_number}

    def settings(self) -> dict[str, object]:
        return {
            "repoOwner": self.owner,
            "repo": self.repo,
            "projectOwner": self.project_owner,
            "projectNumber": self.project_number,
            "tokenMode": "dual-token" if self.client.tokens.split else "single-token",
        }

    def check(self) -> list[Check]:
        """The tokens (kind, scopes), what they may do in the repository and on the
        board, the issue relations the server has, the board and its fields."""
        try:
            return check_board(
                self.client,
                self.full_name,
                project=self.project_number,
                project_owner=self.project_owner,
            )
        except RalphError as exc:
            return [Check("GitHub", False, str(exc))]

    def project_board(self) -> ProjectBoard:
        return GitHubProjectBoard(self)

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
        for moves in self._packed(done):
            self._send_moves(moves)
        for issue in issues:
            if self.get_issue(issue.number).is_open:
                self.client.mutate(
                    q.CLOSE_ISSUE,
                    q.input_of(issueId=self._node_id(issue.number), stateReason="COMPLETED"),
                )
