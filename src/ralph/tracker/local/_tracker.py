"""The local tracker: issues in tables of Ralph's database (``ralph.db``: SQLite or
PostgreSQL, next to the task store's tables) and pull requests that are real branch
merges in the project's git repository (``LocalCodeHost``, ``_pulls``).

Every write is one transaction. Numbers are per repository and shared by issues and pull
requests, as on GitHub. A write that changes the board wakes whoever waits for the
board to change, in any process (``ralph serve`` starts an issue filed elsewhere at
once). On PostgreSQL, rows a write depends on are locked first, so concurrent writers
serialise per issue; SQLite's write transaction is exclusive anyway.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import MISSING, fields
from typing import TYPE_CHECKING, Any

from ralph.db import Database, Row, Tx, migrate
from ralph.errors import IssueNotFound, StateConflict
from ralph.pipeline import IssueRelations
from ralph.tracker._model import (
    CloseReason,
    Comment,
    Issue,
    IssueQuery,
    IssueStatus,
    PullRequest,
    StatusUpdate,
)
from ralph.tracker._tracker import Tracker
from ralph.tracker.local._schema import (
    LOCAL_TRACKER_MIGRATIONS,
    allocate_number,
    board_changes,
    count_board_change,
)
from ralph.workflow import Estimate, Priority, WorkflowState

if TYPE_CHECKING:
    from ralph.dashboard import ProjectStatus
    from ralph.tracker._project_board import ProjectBoard

__all__ = ["LocalTracker"]

#: How often a wait for the board to change looks at a database that cannot say so
#: itself (SQLite): well within a second, at a small share of a core.
BOARD_LOOK_SECONDS = 0.05


#: What ``close_reason`` holds for an open issue that was reopened (GitHub's state reason).
_REOPENED = "reopened"


#: The statuses' stored values, read once: an enum member's ``.value`` is a descriptor
#: call, twice per issue of a listing.
_OPEN, _CLOSED = IssueStatus.OPEN.value, IssueStatus.CLOSED.value


def _close_reason(row: Row) -> CloseReason | None:
    if row["status"] != _CLOSED or not row["close_reason"]:
        return None
    return CloseReason(row["close_reason"])


#: Field values to their enums by dictionary: a board of 1,000 issues reads 4,000 of
#: them, and ``Enum(value)`` costs several times a lookup (bench_web's board render).
_STATES = {s.value: s for s in WorkflowState}
_ESTIMATES = {e.value: e for e in Estimate}
_PRIORITIES = {p.value: p for p in Priority}
_STATUSES = {s.value: s for s in IssueStatus}


def _names(text: str) -> tuple[str, ...]:
    """A JSON list of names (labels, assignees); most issues have none."""
    return () if text == "[]" else tuple(json.loads(text))


#: Every field's default, for ``_made_issue``.
_ISSUE_DEFAULTS = {f.name: f.default for f in fields(Issue) if f.default is not MISSING}


def _made_issue(**values: Any) -> Issue:
    """``Issue(**values)`` at a seventh of its cost: a frozen dataclass's ``__init__``
    sets each of its 23 fields through ``object.__setattr__``, a large part of reading
    a board of 10,000 issues. An equal object (a test holds them so); only for values
    this module read from its own tables."""
    issue = object.__new__(Issue)
    issue.__dict__.update(_ISSUE_DEFAULTS)
    issue.__dict__.update(values)
    return issue


def _issue(row: Row, relations: _Relations, comments: Sequence[Comment] = ()) -> Issue:
    number = row["number"]
    state, estimate, priority = row["workflow_state"], row["estimate"], row["priority"]
    return _made_issue(
        number=number,
        title=row["title"],
        body=row["body"],
        # An unknown value still raises as the enum would.
        workflow_state=(_STATES.get(state) or WorkflowState(state)) if state else None,
        estimate=(_ESTIMATES.get(estimate) or Estimate(estimate)) if estimate else None,
        priority=(_PRIORITIES.get(priority) or Priority(priority)) if priority else None,
        labels=_names(row["labels"]),
        assignees=_names(row["assignees"]),
        status=_STATUSES.get(row["status"]) or IssueStatus(row["status"]),
        close_reason=_close_reason(row),
        reopened=row["status"] == _OPEN and row["close_reason"] == _REOPENED,
        parent=row["parent"],
        sub_issues=tuple(relations.children.get(number, ())),
        blocked_by=tuple(relations.blocked_by.get(number, ())),
        blocking=tuple(relations.blocking.get(number, ())),
        comments=tuple(comments),
        pull_requests=tuple(relations.pull_requests.get(number, ())),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        closed_at=row["closed_at"],
        url=f"local:{row['repo']}#{number}",
        archived=row["archived_at"] is not None,
    )


def _status_update(row: Row) -> StatusUpdate:
    # Here: only a status update needs the dashboard's names, and listing issues does not.
    from ralph.dashboard import ProjectStatus

    return StatusUpdate(
        id=str(row["id"]),
        status=ProjectStatus(row["status"]) if row["status"] else None,
        body=row["body"],
        start_date=row["start_date"],
        target_date=row["target_date"],
        author=row["author"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


#: Issues per statement of a read of several: five lists of this many bound parameters
#: stay well under SQLite's limit.
_READ_CHUNK = 500


def _some_relations(count: int) -> str:
    """``count`` issues' relations in one statement (a round trip each is what a group's
    read spent on PostgreSQL): their own rows (``self``: parent and title), their
    children, both sides of their dependencies (two lookups, each on its own index: an
    OR of the two is served by the repository's prefix alone, so by every dependency)
    and the pull requests that close them, as (kind, a, b, position, title), in the
    order each is listed."""
    some = ", ".join("?" for _ in range(count))
    return (
        "SELECT 'self' AS kind, number AS a, parent AS b, 0 AS position, title "
        f"FROM ralph_issues WHERE repo = ? AND number IN ({some}) UNION "
        "SELECT 'child', number, parent, number, CAST(NULL AS TEXT) "
        f"FROM ralph_issues WHERE repo = ? AND parent IN ({some}) UNION "
        "SELECT 'dep', blocked, blocking, position, NULL FROM ralph_issue_deps "
        f"WHERE repo = ? AND blocked IN ({some}) UNION "
        "SELECT 'dep', blocked, blocking, position, NULL FROM ralph_issue_deps "
        f"WHERE repo = ? AND blocking IN ({some}) UNION "
        "SELECT 'pr', issue, pull_request, pull_request, NULL FROM ralph_pull_request_closes "
        f"WHERE repo = ? AND issue IN ({some}) ORDER BY 1, 4"
    )


def _chunks(numbers: Sequence[int]) -> Iterator[list[int]]:
    unique = list(dict.fromkeys(numbers))
    for start in range(0, len(unique), _READ_CHUNK):
        yield unique[start : start + _READ_CHUNK]


class _Relations:
    """The relations of the issues ``numbers`` (one statement per ``_READ_CHUNK``), or
    (``numbers`` None) of every issue in a repository (in three); with
    ``blockers_only``, every issue's blockers alone (what a dashboard shows)."""

    def __init__(
        self,
        tx: Tx,
        repo: str,
        numbers: Sequence[int] | None = None,
        *,
        blockers_only: bool = False,
    ) -> None:
        self.children: dict[int, list[int]] = {}
        self.blocked_by: dict[int, list[int]] = {}
        self.blocking: dict[int, list[int]] = {}
        self.pull_requests: dict[int, list[int]] = {}
        #: With ``numbers``: the title and parent of each that exists.
        self.own: dict[int, tuple[str, int | None]] = {}
        if blockers_only:
            for blocked, blocking in tx.columns(
                "SELECT blocked, blocking FROM ralph_issue_deps WHERE repo = ? ORDER BY position",
                (repo,),
            )[1]:
                self.blocked_by.setdefault(blocked, []).append(blocking)
            return
        if numbers is not None:
            for chunk in _chunks(numbers):
                self._read_some(tx, repo, chunk)
            return
        for row in tx.rows(
            "SELECT parent, number FROM ralph_issues WHERE repo = ? AND parent IS NOT NULL "
            "ORDER BY number",
            (repo,),
        ):
            self.children.setdefault(row["parent"], []).append(row["number"])
        for row in tx.rows(
            "SELECT blocked, blocking FROM ralph_issue_deps WHERE repo = ? ORDER BY position",
            (repo,),
        ):
            self.blocked_by.setdefault(row["blocked"], []).append(row["blocking"])
            self.blocking.setdefault(row["blocking"], []).append(row["blocked"])
        for row in tx.rows(
            "SELECT pull_request, issue FROM ralph_pull_request_closes WHERE repo = ? "
            "ORDER BY pull_request",
            (repo,),
        ):
            self.pull_requests.setdefault(row["issue"], []).append(row["pull_request"])

    def _read_some(self, tx: Tx, repo: str, numbers: list[int]) -> None:
        asked = set(numbers)
        for row in tx.rows(_some_relations(len(numbers)), (repo, *numbers) * 5):
            kind, a, b = row["kind"], row["a"], row["b"]
            if kind == "self":
                self.own[a] = (row["title"], b)
            elif kind == "child":
                self.children.setdefault(b, []).append(a)
            elif kind == "dep":
                # Each side for an issue asked for only: a dependency between two chunks
                # comes in both of their statements.
                if a in asked:
                    self.blocked_by.setdefault(a, []).append(b)
                if b in asked:
                    self.blocking.setdefault(b, []).append(a)
            else:
                self.pull_requests.setdefault(a, []).append(b)

    def of(self, number: int) -> IssueRelations | None:
        """The relations of ``number`` (one of those read), None when it does not exist."""
        own = self.own.get(number)
        if own is None:
            return None
        return IssueRelations(
            number=number,
            title=own[0],
            parent=own[1],
            sub_issues=tuple(self.children.get(number, ())),
            blocked_by=tuple(self.blocked_by.get(number, ())),
            blocking=tuple(self.blocking.get(number, ())),
        )


class LocalTracker(Tracker):
    kind = "local"

    def __init__(
        self,
        db: Database,
        *,
        repo: str,
        clock: Callable[[], float] | None = None,
    ) -> None:
        """The tracker of ``repo`` in ``db``, whose tables for it are brought up to date
        here. The database stays its opener's to close."""
        super().__init__(clock=clock)
        self.db = db
        self.repo = repo
        #: The board as ``board_issues`` last read it, with the changes counted then.
        self._board_kept: tuple[int, list[Issue]] | None = None
        migrate(db, LOCAL_TRACKER_MIGRATIONS)

    def __repr__(self) -> str:
        return f"LocalTracker({self.db!r}, repo={self.repo!r})"

    @property
    def repository_name(self) -> str:
        return self.repo

    # -- watching the board ---------------------------------------------------------------

    def board_version(self) -> Hashable | None:
        # Every write that changes the board moves one of these: an issue added, an
        # issue's updated_at (its fields, state, parent, closing), a dependency added or
        # removed.
        with self.db.read_transaction() as tx:
            row = tx.one(
                "SELECT (SELECT COUNT(*) FROM ralph_issues WHERE repo = ?) AS issues, "
                "(SELECT MAX(updated_at) FROM ralph_issues WHERE repo = ?) AS at, "
                "(SELECT COUNT(*) FROM ralph_issue_deps WHERE repo = ?) AS deps",
                (self.repo, self.repo, self.repo),
            )
        assert row is not None
        return (row["issues"], row["at"], row["deps"])

    def wait_for_board_change(self, seen: Hashable | None, timeout: float) -> Hashable | None:
        deadline = time.monotonic() + timeout
        change = self.db.wait_for_change(0, 0.0)
        while True:
            version = self.board_version()
            remaining = deadline - time.monotonic()
            if version != seen or remaining <= 0:
                return version
            change = self.db.wait_for_change(change, remaining, every=BOARD_LOOK_SECONDS)

    @contextmanager
    def _board_write(self) -> Iterator[Tx]:
        """A write transaction that changes the board: waiters in other processes wake
        when it commits (``wait_for_board_change``)."""
        with self.db.write_transaction() as tx:
            yield tx
            self.db.notify_change(tx)

    def project_board(self) -> ProjectBoard:
        # Here: the board's management is imported by the commands that manage it.
        from ralph.tracker._simple_board import SimpleBoard
        from ralph.tracker.local._board import LocalBoardRecords

        return SimpleBoard(
            self, LocalBoardRecords(self.db, self.repo, self.now), repository=self.repo
        )

    # -- reads ------------------------------------------------------------------------------

    def get_issue(self, number: int) -> Issue:
        with self.db.read_transaction() as tx:
            return self._read_issue(tx, number)

    def _read_issue(self, tx: Tx, number: int) -> Issue:
        row = tx.one(
            "SELECT * FROM ralph_issues WHERE repo = ? AND number = ?", (self.repo, number)
        )
        if row is None:
            raise IssueNotFound(number)
        comments = [
            Comment(c["id"], c["author"], c["body"], c["created_at"])
            for c in tx.rows(
                "SELECT * FROM ralph_comments WHERE repo = ? AND number = ? ORDER BY id",
                (self.repo, number),
            )
        ]
        return _issue(row, _Relations(tx, self.repo, [number]), comments)

    def get_issues(self, numbers: Sequence[int]) -> list[Issue]:
        # Three statements for any number of issues (per chunk): a group's read.
        with self.db.read_transaction() as tx:
            rows: dict[int, Row] = {}
            comments: dict[int, list[Comment]] = {}
            for chunk in _chunks(numbers):
                some = ", ".join("?" for _ in chunk)
                for row in tx.rows(
                    f"SELECT * FROM ralph_issues WHERE repo = ? AND number IN ({some})",
                    (self.repo, *chunk),
                ):
                    rows[row["number"]] = row
                for c in tx.rows(
                    f"SELECT * FROM ralph_comments WHERE repo = ? AND number IN ({some}) "
                    "ORDER BY id",
                    (self.repo, *chunk),
                ):
                    comments.setdefault(c["number"], []).append(
                        Comment(c["id"], c["author"], c["body"], c["created_at"])
                    )
            missing = next((n for n in numbers if n not in rows), None)
            if missing is not None:
                raise IssueNotFound(missing)
            relations = _Relations(tx, self.repo, list(rows))
        return [_issue(rows[n], relations, comments.get(n, ())) for n in numbers]

    def relations(self, number: int) -> IssueRelations | None:
        # One statement, not a whole issue's read: group detection asks this of every
        # issue of a group, for every phase and re-plan of its issues.
        with self.db.read_transaction() as tx:
            return _Relations(tx, self.repo, [number]).of(number)

    def relations_of(self, numbers: Sequence[int]) -> dict[int, IssueRelations]:
        with self.db.read_transaction() as tx:
            relations = _Relations(tx, self.repo, numbers)
        return {n: found for n in numbers if (found := relations.of(n)) is not None}

    def list_issues(self, query: IssueQuery | None = None) -> list[Issue]:
        query = query or IssueQuery()
        sql, params = "SELECT * FROM ralph_issues WHERE repo = ?", [self.repo]
        if query.status is not None:
            sql += " AND status = ?"
            params.append(query.status.value)
        with self.db.read_transaction() as tx:
            rows = tx.rows(sql, params)
            relations = _Relations(tx, self.repo)
        return query.apply([_issue(row, relations) for row in rows])

    def board_issues(self, *, closed_since: float | None = None) -> list[Issue]:
        # What a dashboard shows, read lean: no bodies or labels, blockers but no other
        # relation, closed issues from the window only. A board of 10,000 is read for
        # every web board page and `ralph status`, and by a team's every re-plan.
        # Every write counts its change (``count_board_change``), so the whole read is
        # kept until the count moves: a board page or `ralph serve`'s look reads one row
        # while nothing changed.
        with self.db.read_transaction() as tx:
            # The count first: a write committed between the two reads leaves a count
            # older than the board kept with it, read again next time, never the reverse.
            changes = board_changes(tx, self.repo)
            board = self._board_kept
            if board is None or board[0] != changes:
                rows = tx.rows(
                    "SELECT repo, number, title, '' AS body, workflow_state, estimate, "
                    "priority, '[]' AS labels, assignees, status, close_reason, parent, "
                    "created_at, updated_at, closed_at, archived_at FROM ralph_issues "
                    "WHERE repo = ?",
                    (self.repo,),
                )
                relations = _Relations(tx, self.repo, blockers_only=True)
                order = IssueQuery(status=None, archived=None)
                issues = sorted((_issue(row, relations) for row in rows), key=order.sort_key)
                board = self._board_kept = (changes, issues)
        if closed_since is None:
            return list(board[1])
        return [i for i in board[1] if i.is_open or i.updated_at >= closed_since]

    # -- writes -----------------------------------------------------------------------------

    def _locked(self, tx: Tx, number: int) -> Row:
        row = tx.one(
            f"SELECT * FROM ralph_issues WHERE repo = ? AND number = ? {self.db.lock_rows}",
            (self.repo, number),
        )
        if row is None:
            raise IssueNotFound(number)
        return row

    def _touch(self, tx: Tx, number: int, **columns: Any) -> None:
        columns["updated_at"] = self.now()
        assignments = ", ".join(f"{name} = ?" for name in columns)
        tx.run(
            f"UPDATE ralph_issues SET {assignments} WHERE repo = ? AND number = ?",
            (*columns.values(), self.repo, number),
        )
        count_board_change(tx, self.repo)

    def _comment(self, tx: Tx, number: int, body: str, author: str) -> Comment:
        now = self.now()
        row = tx.one(
            "INSERT INTO ralph_comments (repo, number, author, body, created_at) "
            "VALUES (?, ?, ?, ?, ?) RETURNING id",
            (self.repo, number, author, body, now),
        )
        assert row is not None
        self._touch(tx, number)
        return Comment(row["id"], author, body, now)

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
        with self._board_write() as tx:
            if parent is not None:
                self._locked(tx, parent)
            number = allocate_number(tx, self.repo)
            now = self.now()
            tx.run(
                "INSERT INTO ralph_issues (repo, number, title, body, workflow_state, estimate, "
                "priority, labels, assignees, status, parent, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    self.repo,
                    number,
                    title,
                    body,
                    state.value if state else None,
                    estimate.value if estimate else None,
                    priority.value if priority else None,
                    json.dumps(list(dict.fromkeys(labels))),
                    "[]",
                    IssueStatus.OPEN.value,
                    parent,
                    now,
                    now,
                ),
            )
            count_board_change(tx, self.repo)
            # Read back in the same transaction: a store that cannot show the issue
            # (a table dropped by hand) keeps no half-made one.
            return self._read_issue(tx, number)

    def _update_issue(
        self,
        number: int,
        title: str | None,
        body: str | None,
        labels: Sequence[str] | None,
        estimate: Estimate | None,
        priority: Priority | None,
    ) -> Issue:
        columns: dict[str, Any] = {}
        if title is not None:
            columns["title"] = title
        if body is not None:
            columns["body"] = body
        if labels is not None:
            columns["labels"] = json.dumps(list(dict.fromkeys(labels)))
        if estimate is not None:
            columns["estimate"] = estimate.value
        if priority is not None:
            columns["priority"] = priority.value
        with self._board_write() as tx:
            self._locked(tx, number)
            self._touch(tx, number, **columns)
        return self.get_issue(number)

    def _add_comment(self, number: int, body: str, author: str) -> Comment:
        with self.db.write_transaction() as tx:
            self._locked(tx, number)
            return self._comment(tx, number, body, author)

    def _close_issue(self, number: int, reason: CloseReason, duplicate_of: int | None) -> Issue:
        with self._board_write() as tx:
            self._locked(tx, number)
            self._touch(
                tx, number, status="closed", close_reason=reason.value, closed_at=self.now()
            )
        return self.get_issue(number)

    def reopen_issue(self, number: int) -> Issue:
        with self._board_write() as tx:
            self._locked(tx, number)
            was_closed = self._locked(tx, number)["status"] == IssueStatus.CLOSED.value
            reason = _REOPENED if was_closed else None
            self._touch(tx, number, status="open", close_reason=reason, closed_at=None)
        return self.get_issue(number)

    def _set_parent(self, child: int, parent: int | None) -> None:
        with self._board_write() as tx:
            if parent is not None:
                self._locked(tx, parent)
            self._locked(tx, child)
            self._touch(tx, child, parent=parent)

    def _add_blocked_by(self, blocked: int, blocking: int) -> None:
        with self._board_write() as tx:
            self._locked(tx, blocking)
            self._locked(tx, blocked)
            tx.run(
                "INSERT INTO ralph_issue_deps (repo, blocked, blocking, position) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (self.repo, blocked, blocking, self.now()),
            )
            count_board_change(tx, self.repo)

    def _remove_blocked_by(self, blocked: int, blocking: int) -> None:
        with self._board_write() as tx:
            self._locked(tx, blocking)
            self._locked(tx, blocked)
            tx.run(
                "DELETE FROM ralph_issue_deps WHERE repo = ? AND blocked = ? AND blocking = ?",
                (self.repo, blocked, blocking),
            )
            self._touch(tx, blocked)

    def _write_state(
        self,
        number: int,
        expected: WorkflowState | None,
        new: WorkflowState,
        comment: str,
        author: str,
    ) -> None:
        with self._board_write() as tx:
            changed = tx.run(
                "UPDATE ralph_issues SET workflow_state = ?, updated_at = ? "
                "WHERE repo = ? AND number = ? AND COALESCE(workflow_state, '') = ?",
                (new.value, self.now(), self.repo, number, expected.value if expected else ""),
            )
            if changed != 1:
                actual = self._locked(tx, number)["workflow_state"]
                raise StateConflict(number, expected, actual)
            count_board_change(tx, self.repo)
            self._comment(tx, number, comment, author)

    # -- the board --------------------------------------------------------------------------

    def _archive(self, number: int, archived_at: float | None) -> Issue:
        with self.db.write_transaction() as tx:
            self._locked(tx, number)
            # About the board, not the issue: its last update (and so its age) stays.
            # Archiving again keeps the first time it was archived.
            tx.run(
                "UPDATE ralph_issues SET archived_at = ? WHERE repo = ? AND number = ? "
                + ("AND archived_at IS NULL" if archived_at is not None else ""),
                (archived_at, self.repo, number),
            )
            count_board_change(tx, self.repo)
        return self.get_issue(number)

    def archive_issue(self, number: int) -> Issue:
        return self._archive(number, self.now())

    def unarchive_issue(self, number: int) -> Issue:
        return self._archive(number, None)

    def _create_status_update(
        self,
        status: ProjectStatus,
        body: str,
        start_date: str | None,
        target_date: str | None,
        author: str,
    ) -> StatusUpdate:
        now = self.now()
        with self.db.write_transaction() as tx:
            row = tx.one(
                "INSERT INTO ralph_status_updates (repo, status, body, start_date, "
                "target_date, author, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "RETURNING *",
                (self.repo, status.value, body, start_date, target_date, author, now, now),
            )
        assert row is not None
        return _status_update(row)

    def list_status_updates(self) -> list[StatusUpdate]:
        with self.db.read_transaction() as tx:
            rows = tx.rows(
                "SELECT * FROM ralph_status_updates WHERE repo = ? "
                "ORDER BY created_at DESC, id DESC",
                (self.repo,),
            )
        return [_status_update(row) for row in rows]

    def _status_update_row(self, tx: Tx, update_id: str) -> Row:
        row = None
        if update_id.isascii() and update_id.isdigit() and len(update_id) < 19:
            row = tx.one(
                "SELECT * FROM ralph_status_updates WHERE repo = ? AND id = ?",
                (self.repo, int(update_id)),
            )
        if row is None:
            raise self._no_status_update(update_id)
        return row

    def _update_status_update(
        self,
        update_id: str,
        status: ProjectStatus | None,
        body: str | None,
        start_date: str | None,
        target_date: str | None,
    ) -> StatusUpdate:
        columns: dict[str, Any] = {
            name: value
            for name, value in (
                ("status", status.value if status else None),
                ("body", body),
                ("start_date", start_date),
                ("target_date", target_date),
            )
            if value is not None
        }
        columns["updated_at"] = self.now()
        with self.db.write_transaction() as tx:
            found = self._status_update_row(tx, update_id)
            assignments = ", ".join(f"{name} = ?" for name in columns)
            row = tx.one(
                f"UPDATE ralph_status_updates SET {assignments} WHERE id = ? RETURNING *",
                (*columns.values(), found["id"]),
            )
        assert row is not None
        return _status_update(row)

    def delete_status_update(self, update_id: str) -> None:
        with self.db.write_transaction() as tx:
            found = self._status_update_row(tx, update_id)
            tx.run("DELETE FROM ralph_status_updates WHERE id = ?", (found["id"],))

    # -- what a merge closes ------------------------------------------------------------------

    def close_merged(self, pr: PullRequest) -> None:
        with self._board_write() as tx:
            self.close_merged_in(tx, pr)

    def close_merged_in(self, tx: Tx, pr: PullRequest) -> None:
        """``close_merged`` inside the open transaction ``tx`` of this tracker's
        database: the local code host's merge, so the merge and its moves commit
        together or not at all."""
        now, actor = self.now(), f"pull request #{pr.number}"
        for number in pr.closes:
            row = tx.one(
                f"SELECT * FROM ralph_issues WHERE repo = ? AND number = ? {self.db.lock_rows}",
                (self.repo, number),
            )
            if row is None:
                continue
            columns: dict[str, Any] = {}
            if row["workflow_state"] != WorkflowState.DONE.value:
                previous = _STATES.get(row["workflow_state"] or "")
                columns["workflow_state"] = WorkflowState.DONE.value
                self._comment(tx, number, self._done_audit(previous, pr), actor)
            if row["status"] != IssueStatus.CLOSED.value:
                columns.update(
                    status="closed", close_reason=CloseReason.COMPLETED.value, closed_at=now
                )
            if columns:
                self._touch(tx, number, **columns)
        self.db.notify_change(tx)
