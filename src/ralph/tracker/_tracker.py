"""The Tracker interface: what Ralph needs from an issue tracker.

A backend implements the primitive reads and writes; the workflow rules live once on
top of them (``TrackerRules``, which declares the primitives the rules use).
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from ralph._secrets import redact
from ralph._text import check_title
from ralph.errors import InvalidInput, IssueNotFound, NotAvailable, RalphError, StateConflict
from ralph.tracker._fields import check_date, check_edit, check_labels, check_name
from ralph.tracker._model import (
    Check,
    CloseReason,
    Comment,
    Issue,
    IssueQuery,
    NewIssue,
    PullRequest,
    StateChange,
    StatusUpdate,
    iso,
)
from ralph.tracker._rules import UNKNOWN_STATE, TrackerRules
from ralph.workflow import Estimate, Priority, TransitionRecord, WorkflowState, audit_comment

if TYPE_CHECKING:
    # Annotations: a command that reads issues (``ralph issue list``) builds no dashboard.
    from ralph.dashboard import DashboardItem, ProjectStatus

    # Board management: its module is imported by the backends that manage one, when
    # asked (``ralph status`` reads issues, not the board's fields and views).
    from ralph.tracker._project_board import ProjectBoard

__all__ = ["Tracker"]

_MERGE = "ralph_merge"
#: The command an audit comment of a Done taken back names: its change is not merged.
MERGE_CHECK_COMMAND = "ralph_merge_check"


class Tracker(TrackerRules):
    """Issues, their workflow fields and relations, and comments. Pull requests are a
    ``CodeHost``'s."""

    #: "local", "github": what ``ralph status`` and logs call this backend.
    kind: str = ""
    #: The most sub-issues a parent may have (closed ones count) and the most levels an
    #: issue tree may have, root included; None: no limit.
    max_sub_issues: int | None = None
    max_levels: int | None = None

    @property
    def repository_name(self) -> str:
        """The repository its issues are in, as routing rules match it (``owner/name`` on
        GitHub, the project's repository name locally)."""
        return self.kind

    # -- what the tracker answers for its callers (instead of asking its kind) ------------

    #: Whether its issues live on a service other processes write to: its changes do not
    #: show in the store's database, so a web board polls it, and its one client takes
    #: one request at a time.
    remote: bool = False
    #: Whether comments link documents on a host (a blob URL), not by their path in git.
    links_on_host: bool = False

    def reference(self, number: int) -> str:
        """How a person names issue ``number`` where Ralph prints it (run and task
        titles): GH-12, as the original did; a tracker with names of its own (Linear's
        ENG-12) says so. Document paths and branch names keep GH-: they are parsed."""
        return f"GH-{number}"

    def issue_name(self, number: int) -> str:
        """How a person names issue ``number`` in what Ralph tells them (``issue new``,
        a run's last lines): ``#12`` where issues are numbered in the repository's
        manner; a tracker whose issues carry keys (Jira's PROJ-12, Linear's ENG-12)
        names them by key."""
        return f"#{number}"

    def closing_words(self, number: int) -> str:
        """The line of a pull request body that closes issue ``number`` when it merges:
        GitHub's ``Closes #12``. A tracker whose issues are not the repository's says
        its own (a ``#12`` would close the repository's issue #12 instead)."""
        return f"Closes #{number}"

    def closed_by(self, body: str) -> tuple[int, ...]:
        """The issues of this tracker a pull request ``body`` closes, read as
        ``closing_words`` writes them (and as a person may), in order of first mention."""
        from ralph.github import closing_references  # pull requests' words: not for issues

        return closing_references(body)

    def escalation_handles(self) -> tuple[str, ...]:
        """Whom an escalation mentions when neither ralph.toml nor the issue names
        anyone (GitHub: the repository's owner); nobody by default."""
        return ()

    def scope(self) -> dict[str, object]:
        """What the MCP tools' scope arguments must say (GitHub: the board's owner,
        repository and project number); a tracker without such names checks none."""
        return {}

    def settings(self) -> dict[str, object]:
        """What the tracker is set to, as a health check shows it."""
        return {"tracker": self.kind, "repo": self.repository_name}

    def check(self) -> list[Check]:
        """What ``ralph doctor`` and the MCP health check report of the tracker: whether
        it answers and holds what Ralph needs, each failing check saying what to do."""
        try:
            self.list_issues(IssueQuery(status=None, limit=1))
        except RalphError as exc:
            return [Check("tracker", False, str(exc))]
        return [Check("tracker", True, f"{self.kind} (repo {self.repository_name}); readable")]

    # -- watching the board -----------------------------------------------------------------

    def board_version(self) -> Hashable | None:
        """A value that changes whenever the board does (an issue created, moved,
        closed or reopened, its fields or relations changed), far cheaper than reading
        the board; None where only a read of the board tells (GitHub)."""
        return None

    def wait_for_board_change(self, seen: Hashable | None, timeout: float) -> Hashable | None:
        """Block up to ``timeout`` seconds until ``board_version()`` is no longer
        ``seen``, even when another process changed the board; return the version.
        Where there is none, return None at once."""
        return None

    def project_board(self) -> ProjectBoard:
        """The board the issues are on, managed as a board (its fields, views, items and
        their order, drafts, linked repositories)."""
        raise NotAvailable(f"the {self.kind or 'this'} tracker has no board to manage")

    # -- issues: primitives every backend implements ----------------------------------------

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """One step of work's reads: inside, a backend whose reads cost requests (GitHub)
        reads each issue once and keeps it, kept true by this tracker's own writes. End
        it before anything outside this process may write (an agent's turn). Local
        backends read their store every time: nothing to keep."""
        yield

    def board_issues(self, *, closed_since: float | None = None) -> list[Issue]:
        """Every issue for the board's dashboard, open or closed, archived too; with
        ``closed_since``, closed ones only when updated since then (the done window).
        Without comments; a backend may leave out what a dashboard does not show (labels,
        children, the issues it blocks, pull requests, closed blockers outside the
        window: they no longer block)."""
        issues = self.list_issues(IssueQuery(status=None, archived=None))
        if closed_since is None:
            return issues
        return [i for i in issues if i.is_open or i.updated_at >= closed_since]

    def seen_issues(self, numbers: Iterable[int]) -> list[Issue]:
        """The issues as this process last read or wrote them (for a display: they may
        be a step old); issues it never read are read (together, on GitHub)."""
        return [self.get_issue(n) for n in numbers]

    def get_issues(self, numbers: Sequence[int]) -> list[Issue]:
        self.prefetch(numbers)  # inside a snapshot, one request on GitHub
        return super().get_issues(numbers)

    def prefetch(self, numbers: Iterable[int]) -> None:
        """Inside a snapshot: read these issues now, together (one request on GitHub),
        for the reads that follow. Nothing to do elsewhere."""
        return None

    # -- issue writes: checked here once, then a backend's primitive -----------------------

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
        """A new open issue, optionally placed under ``parent``, all in one write."""
        check_title(title)
        check_labels(labels)
        title, body = redact(title), redact(body)
        return self._create_issue(title, body, parent, state, estimate, priority, labels, author)

    def create_issues(self, new: Sequence[NewIssue]) -> list[Issue]:
        """``create_issue`` on each, in order (a tracker whose writes cost requests makes
        them together)."""
        return [
            self.create_issue(
                n.title,
                body=n.body,
                parent=n.parent,
                state=n.state,
                estimate=n.estimate,
                priority=n.priority,
                labels=n.labels,
                author=n.author,
            )
            for n in new
        ]

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
        """Change the given fields (None leaves a field as it is; labels are replaced)."""
        if title is not None:
            check_title(title)
        if labels is not None:
            check_labels(labels)
        title, body = _redacted(title), _redacted(body)
        return self._update_issue(number, title, body, labels, estimate, priority)

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
        """What ``gh issue edit`` does: the given fields changed, ``add_labels`` added and
        ``remove_labels`` taken off (the issue's other labels kept; removing one it lacks
        is no error). Every value is checked before anything is written."""
        check_edit(title, add_labels, remove_labels)
        title, body = _redacted(title), _redacted(body)
        return self._edit_issue(number, title, body, estimate, priority, add_labels, remove_labels)

    def add_comment(self, number: int, body: str, *, author: str = "ralph") -> Comment:
        check_name(author, "the author")
        return self._add_comment(number, redact(body), author)

    def close_issue(
        self,
        number: int,
        reason: CloseReason = CloseReason.COMPLETED,
        *,
        duplicate_of: int | None = None,
    ) -> Issue:
        """Close the issue for ``reason``; ``duplicate_of``: the issue a DUPLICATE one
        repeats (GitHub links the two; an issue it does not know is left out)."""
        return self._close_issue(number, reason, duplicate_of)

    def add_note(self, number: int, body: str) -> None:
        """A phase's message on the issue, posted by the time the snapshot ends: here at
        once; a backend whose writes cost requests (GitHub) sends it with the issue's
        next move in the same snapshot, in one request, or alone when the snapshot ends."""
        self._add_note(number, redact(body))

    def _add_note(self, number: int, body: str) -> None:
        self.add_comment(number, body)

    def stored_text(self, body: str) -> str:
        """A comment or body as this tracker keeps it (redacted; GitHub also cuts a very
        long one), so a caller can tell whether it was posted already."""
        return self._stored_text(redact(body))

    def _stored_text(self, body: str) -> str:
        return body

    @abc.abstractmethod
    def reopen_issue(self, number: int) -> Issue: ...

    def take_back_done(
        self, number: int, state: WorkflowState, why: str, *, actor: str = "ralph"
    ) -> StateChange:
        """Move a Done issue whose change is not on the base branch to ``state`` (In
        Review: the merge phase finishes it; Human Needed: a person decides), with
        ``why`` as a comment, and open it again if it was closed. Done is final for the
        matrix, so the move is audited (``ralph_merge_check``) but not checked against
        it, as a sync's is. StateConflict, nothing written, when it is not Done now."""
        check_name(actor, "the actor")
        issue = self.get_issue(number)
        if issue.workflow_state is not WorkflowState.DONE:
            current = issue.workflow_state.value if issue.workflow_state else None
            raise StateConflict(number, WorkflowState.DONE.value, current)
        change = StateChange(number, WorkflowState.DONE, state, MERGE_CHECK_COMMAND)
        self._record_move(change, actor)
        self.add_comment(number, why, author=actor)
        if not self.get_issue(number).is_open:  # moved first: a sync meanwhile sees no Done
            self.reopen_issue(number)
        return change

    @abc.abstractmethod
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
    ) -> Issue: ...

    @abc.abstractmethod
    def _update_issue(
        self,
        number: int,
        title: str | None,
        body: str | None,
        labels: Sequence[str] | None,
        estimate: Estimate | None,
        priority: Priority | None,
    ) -> Issue: ...

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
        """The labels read, changed and written whole (GitHub adds and removes them one
        by one instead, so a label someone else sets meanwhile stays)."""
        labels = None
        if add_labels or remove_labels:
            current = self.get_issue(number).labels
            removed = {label.casefold() for label in remove_labels}
            labels = [label for label in current if label.casefold() not in removed]
            for label in add_labels:  # names as GitHub compares them: case ignored
                if label.casefold() not in {kept.casefold() for kept in labels} | removed:
                    labels.append(label)
        return self._update_issue(number, title, body, labels, estimate, priority)

    @abc.abstractmethod
    def _add_comment(self, number: int, body: str, author: str) -> Comment: ...

    # -- the board --------------------------------------------------------------------------

    @abc.abstractmethod
    def archive_issue(self, number: int) -> Issue:
        """Take the issue off the board's lists and dashboard (GitHub: archive its project
        item); it is still read by number. Archiving an archived issue changes nothing."""

    @abc.abstractmethod
    def unarchive_issue(self, number: int) -> Issue:
        """Put an archived issue back on the board's lists."""

    def create_status_update(
        self,
        status: ProjectStatus,
        body: str,
        *,
        start_date: str | None = None,
        target_date: str | None = None,
        author: str = "ralph",
    ) -> StatusUpdate:
        """Post a status update on the board (``ralph report``); dates are YYYY-MM-DD."""
        check_date(start_date, "the start date")
        check_date(target_date, "the target date")
        check_name(author, "the author")
        return self._create_status_update(status, redact(body), start_date, target_date, author)

    def update_status_update(
        self,
        update_id: str,
        *,
        status: ProjectStatus | None = None,
        body: str | None = None,
        start_date: str | None = None,
        target_date: str | None = None,
    ) -> StatusUpdate:
        """Change the given fields of a status update (None leaves a field as it is)."""
        check_date(start_date, "the start date")
        check_date(target_date, "the target date")
        return self._update_status_update(
            update_id, status, _redacted(body), start_date, target_date
        )

    @abc.abstractmethod
    def list_status_updates(self) -> list[StatusUpdate]:
        """The board's status updates, newest first."""

    @abc.abstractmethod
    def delete_status_update(self, update_id: str) -> None:
        """Delete a status update; an unknown id is InvalidInput."""

    @abc.abstractmethod
    def _create_status_update(
        self,
        status: ProjectStatus,
        body: str,
        start_date: str | None,
        target_date: str | None,
        author: str,
    ) -> StatusUpdate: ...

    @abc.abstractmethod
    def _update_status_update(
        self,
        update_id: str,
        status: ProjectStatus | None,
        body: str | None,
        start_date: str | None,
        target_date: str | None,
    ) -> StatusUpdate: ...

    def _no_status_update(self, update_id: str) -> InvalidInput:
        return InvalidInput(
            f"no status update {update_id!r} on this board; `ralph report list` shows them"
        )

    #: Whether issues can be placed on more boards than the one Ralph works on.
    several_boards: bool = False

    def _one_board(self, project: int) -> InvalidInput:
        return InvalidInput(
            f"the {self.kind} tracker has one board, so project #{project} means nothing "
            'here; several projects are GitHub\'s (tracker = "github" in ralph.toml)'
        )

    def add_to_project(
        self, number: int, project: int, *, state: WorkflowState | None = None
    ) -> bool:
        """Put the issue on board ``project`` (with ``state`` as its Workflow State there,
        when that board has the field); True when it was not there yet. Trackers with one
        board refuse."""
        raise self._one_board(project)

    def project_items(self, projects: Sequence[int]) -> list[DashboardItem]:
        """The items of each board in ``projects`` as the dashboard reads them (archived
        ones left out), each carrying its board's number and title; an issue on two
        boards is two items. Trackers with one board refuse."""
        raise self._one_board(projects[0] if projects else 0)

    # -- what a merge closes ------------------------------------------------------------------

    def close_merged(self, pr: PullRequest) -> None:
        """The one call a code host makes when ``pr`` merged: each issue its body closes
        moved to Done (audited, by "pull request #N"; not checked against the matrix,
        since the host closed it and the board follows) and closed. What is done already
        is left, so a rerun after a crash, or for a merge the host's queue made, does
        nothing twice; issues this tracker does not have are skipped."""
        for closes in pr.closes:
            try:
                issue = self.get_issue(closes)
            except IssueNotFound:
                continue
            if issue.workflow_state != WorkflowState.DONE:
                audit = self._done_audit(issue.workflow_state, pr)
                actor = f"pull request #{pr.number}"
                self._write_state(closes, issue.workflow_state, WorkflowState.DONE, audit, actor)
            if issue.is_open:
                self.close_issue(closes)

    # -- shared by backends -----------------------------------------------------------------

    def _done_audit(self, previous: WorkflowState | None, pr: PullRequest) -> str:
        """The audit comment of a merged ``pr``'s move of an issue to Done."""
        record = TransitionRecord(
            str(previous or UNKNOWN_STATE),
            WorkflowState.DONE.value,
            _MERGE,
            iso(self.now()) or "",
        )
        return audit_comment(record, intent=None, actor=f"pull request #{pr.number}")


def _redacted(text: str | None) -> str | None:
    return None if text is None else redact(text)
