"""The local code host: pull requests as rows in Ralph's database beside its issues, whose
branches are real branches of the project's git repository. A merge is a git merge (a
merge commit, a squash, or the head's commits rebased onto the base), made without a
checkout; the head commit is what the branch points at, read from git on every read.

Reviews, review threads with their comments, and check runs are rows too. A check run
belongs to the head commit it ran on, so a push leaves the pull request without checks
until they run again. The local host has no branch protection: the merge state
follows ``required_checks`` and the review decision each reviewer's standing review
(``_pull_state``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Sequence
from typing import Any

from ralph.db import Database, Row, Tx, migrate
from ralph.errors import (
    HeadMoved,
    InvalidInput,
    MergeConflict,
    PullRequestNotFound,
    PullRequestNotOpen,
    TrackerError,
)
from ralph.git import GitRepo, MergeOutcome, MergeRefused, diff_hunk, rebase_merge
from ralph.tracker._code_host import CodeHost
from ralph.tracker._model import MergeStrategy, PullRequest, PullRequestState
from ralph.tracker._pull_state import (
    check_reviewable,
    merge_state,
    no_thread,
    not_changed,
    not_reviewable,
    required_marked,
    review_decision,
    review_state,
)
from ralph.tracker._reviews import (
    CheckConclusion,
    CheckRun,
    CheckStatus,
    MergeSettings,
    Review,
    ReviewComment,
    ReviewEvent,
    ReviewState,
    ReviewThread,
    ThreadComment,
)
from ralph.tracker._tracker import Tracker
from ralph.tracker.local._schema import LOCAL_TRACKER_MIGRATIONS, allocate_number
from ralph.tracker.local._tracker import LocalTracker

__all__ = ["LocalCodeHost"]


class _Records:
    """The reviews, threads (with comments) and check runs of one pull request, or
    (``number`` None) of every pull request of a repository, read in four statements."""

    def __init__(self, tx: Tx, repo: str, number: int | None = None) -> None:
        one = number is not None
        where = "repo = ?" + (" AND pull_request = ?" if one else "")
        params: tuple[Any, ...] = (repo, number) if one else (repo,)
        self.reviews: dict[int, list[Review]] = {}
        for row in tx.rows(f"SELECT * FROM ralph_pr_reviews WHERE {where} ORDER BY id", params):
            self.reviews.setdefault(row["pull_request"], []).append(_review(row))
        comments: dict[int, list[ThreadComment]] = {}
        for row in tx.rows(
            "SELECT c.* FROM ralph_pr_thread_comments c JOIN ralph_pr_threads t "
            "ON t.repo = c.repo AND t.id = c.thread WHERE "
            + ("t.repo = ? AND t.pull_request = ?" if one else "t.repo = ?")
            + " ORDER BY c.id",
            params,
        ):
            comments.setdefault(row["thread"], []).append(
                ThreadComment(
                    id=str(row["id"]),
                    author=row["author"],
                    body=row["body"],
                    created_at=row["created_at"],
                )
            )
        self.threads: dict[int, list[ReviewThread]] = {}
        for row in tx.rows(f"SELECT * FROM ralph_pr_threads WHERE {where} ORDER BY id", params):
            self.threads.setdefault(row["pull_request"], []).append(
                _thread(row, comments.get(row["id"], ()))
            )
        self.checks: dict[tuple[int, str], list[CheckRun]] = {}
        for row in tx.rows(f"SELECT * FROM ralph_pr_checks WHERE {where} ORDER BY name", params):
            self.checks.setdefault((row["pull_request"], row["head_oid"]), []).append(
                CheckRun(
                    name=row["name"],
                    status=CheckStatus(row["status"]),
                    conclusion=CheckConclusion(row["conclusion"]) if row["conclusion"] else None,
                    required=bool(row["required"]),
                    summary=row["summary"],
                    url=row["url"],
                )
            )


def _review(row: Row) -> Review:
    return Review(
        id=str(row["id"]),
        author=row["author"],
        state=ReviewState(row["state"]),
        body=row["body"],
        submitted_at=row["submitted_at"],
        commit=row["head_oid"],
    )


def _thread(row: Row, comments: Sequence[ThreadComment]) -> ReviewThread:
    return ReviewThread(
        id=str(row["id"]),
        path=row["path"],
        line=row["line"],
        resolved=bool(row["resolved"]),
        diff_hunk=row["diff_hunk"],
        comments=tuple(comments),
    )


def _thread_key(thread_id: str) -> int:
    """A local thread's row id; anything else names no thread here."""
    if not thread_id.isascii() or not thread_id.isdigit() or len(thread_id) > 18:
        raise no_thread(thread_id)
    return int(thread_id)


def _merge_message(number: int, head: str, title: str) -> str:
    """The message of the commit merging a pull request, as GitHub writes it."""
    return f"Merge pull request #{number} from {head}\n\n{title}"


class LocalCodeHost(CodeHost):
    """Pull requests in ``db`` beside the issues of ``repo``, numbered with them, merged
    by git in ``git``. A merge closes its issues through ``tracker.close_merged``: in the
    merge's own transaction when the tracker is the local one on the same database."""

    kind = "local"
    runs_own_checks = True
    merges_here = True

    def __init__(
        self,
        db: Database,
        *,
        repo: str,
        tracker: Tracker,
        git: GitRepo | None = None,
        clock: Callable[[], float] | None = None,
        required_checks: Collection[str] = (),
    ) -> None:
        """``required_checks``: the checks every pull request must pass to merge (the
        project's test command). The database stays its opener's to close."""
        super().__init__(tracker, clock=clock)
        self.db = db
        self.repo = repo
        self.git = git
        self.required_checks = tuple(required_checks)
        migrate(db, LOCAL_TRACKER_MIGRATIONS)

    def __repr__(self) -> str:
        return f"LocalCodeHost({self.db!r}, repo={self.repo!r})"

    def _joined(self) -> LocalTracker | None:
        """The tracker, when a merge can close its issues in the merge's transaction."""
        tracker = self.tracker
        if (
            isinstance(tracker, LocalTracker)
            and tracker.db is self.db
            and tracker.repo == self.repo
        ):
            return tracker
        return None

    def _require_git(self) -> GitRepo:
        if self.git is None:
            raise TrackerError(
                "this local code host has no git repository; run Ralph inside the project's "
                "git repository (ralph init records it)"
            )
        return self.git

    # -- reads --------------------------------------------------------------------------------

    def _pr_row(self, tx: Tx, number: int, *, lock: bool = False) -> Row:
        row = tx.one(
            "SELECT * FROM ralph_pull_requests WHERE repo = ? AND number = ? "
            + (self.db.lock_rows if lock else ""),
            (self.repo, number),
        )
        if row is None:
            raise PullRequestNotFound(number)
        return row

    def _pull_request(
        self, row: Row, records: _Records, head_oid: str | None, base_oid: str | None
    ) -> PullRequest:
        number, state = row["number"], PullRequestState(row["state"])
        mergeable = None
        if state is PullRequestState.OPEN and self.git is not None and head_oid and base_oid:
            mergeable = self._merges(self.git, base_oid, head_oid)
        checks = required_marked(
            records.checks.get((number, head_oid or ""), ()), self.required_checks
        )
        reviews = records.reviews.get(number, [])
        return PullRequest(
            number=number,
            title=row["title"],
            body=row["body"],
            head=row["head"],
            base=row["base"],
            state=state,
            mergeable=mergeable,
            checks=checks,
            reviews=tuple(reviews),
            threads=tuple(records.threads.get(number, ())),
            review_decision=review_decision(reviews),
            merge_state=merge_state(state, mergeable, checks, self.required_checks),
            head_oid=head_oid,
            author=row["author"],
            merge_commit=row["merge_commit"],
            created_at=row["created_at"],
            merged_at=row["merged_at"],
            url=f"local:{row['repo']}/pull/{number}",
            closing=self.tracker.closed_by(row["body"]),
        )

    def _merges(self, git: GitRepo, base_oid: str, head_oid: str) -> bool:
        """Whether ``head_oid`` merges onto ``base_oid``: one git call per pair of
        commits, which always get the same answer, shared with the merge train that
        built the same merge (``GitRepo.merges_onto``)."""
        return git.merges_onto(base_oid, head_oid)

    def _head_oid(self, branch: str) -> str | None:
        if self.git is None:
            return None
        return self.git.branch_tip(branch)

    def get_pull_request(self, number: int) -> PullRequest:
        with self.db.read_transaction() as tx:
            row = self._pr_row(tx, number)
            records = _Records(tx, self.repo, number)
        head, base = self._head_oid(row["head"]), self._head_oid(row["base"])
        return self._pull_request(row, records, head, base)

    def list_pull_requests(
        self,
        *,
        issue: int | None = None,
        state: PullRequestState | None = None,
        head: str | None = None,
    ) -> list[PullRequest]:
        sql = "SELECT * FROM ralph_pull_requests WHERE repo = ?"
        params: list[Any] = [self.repo]
        if issue is not None:
            sql += (
                " AND number IN (SELECT pull_request FROM ralph_pull_request_closes "
                "WHERE repo = ? AND issue = ?)"
            )
            params += [self.repo, issue]
        if state is not None:
            sql += " AND state = ?"
            params.append(state.value)
        if head is not None:
            sql += " AND head = ?"
            params.append(head)
        with self.db.read_transaction() as tx:
            rows = tx.rows(sql + " ORDER BY number", params)
            records = _Records(tx, self.repo) if rows else None
        if records is None:
            return []
        heads = self.git.branch_heads() if self.git is not None else {}
        return [
            self._pull_request(row, records, heads.get(row["head"]), heads.get(row["base"]))
            for row in rows
        ]

    # -- writes -------------------------------------------------------------------------------

    def _create_pull_request(
        self, head: str, base: str, title: str, body: str, author: str
    ) -> PullRequest:
        git = self._require_git()
        for branch in (head, base):
            if not git.has_branch(branch):
                raise InvalidInput(f"no branch {branch!r} in {git.path}; push or create it first")
        with self.db.write_transaction() as tx:
            number = allocate_number(tx, self.repo)
            tx.run(
                "INSERT INTO ralph_pull_requests (repo, number, title, body, head, base, state, "
                "author, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (self.repo, number, title, body, head, base, "open", author, self.now()),
            )
            for issue in self.tracker.closed_by(body):
                tx.run(
                    "INSERT INTO ralph_pull_request_closes (repo, pull_request, issue) "
                    "VALUES (?, ?, ?)",
                    (self.repo, number, issue),
                )
        return self.get_pull_request(number)

    def _merge_pull_request(
        self, number: int, strategy: MergeStrategy, expected_head: str | None
    ) -> PullRequest:
        git = self._require_git()
        pr = self.get_pull_request(number)
        if pr.state is not PullRequestState.OPEN:
            raise PullRequestNotOpen(number, pr.state.value)
        joined = self._joined()
        with self.db.write_transaction() as tx:
            state = self._pr_row(tx, number, lock=True)["state"]
            if state != "open":
                raise PullRequestNotOpen(number, state)
            head = self._head_oid(pr.head)
            if expected_head is not None and head != expected_head:
                raise HeadMoved(number, expected_head, head)
            # The commit read here is the one merged, even if the branch moves meanwhile.
            outcome = self._merge(git, pr, head or pr.head, strategy)
            tx.run(
                "UPDATE ralph_pull_requests SET state = 'merged', merge_commit = ?, "
                "merged_at = ? WHERE repo = ? AND number = ?",
                (outcome.commit, self.now(), self.repo, number),
            )
            merged = dataclasses.replace(pr, state=PullRequestState.MERGED)
            if joined is not None:  # one transaction: merged and its issues Done, or neither
                joined.close_merged_in(tx, merged)
        if joined is None:
            self.tracker.close_merged(merged)
        return self.get_pull_request(number)

    def _merge(
        self, git: GitRepo, pr: PullRequest, head: str, strategy: MergeStrategy
    ) -> MergeOutcome:
        try:
            if strategy is MergeStrategy.REBASE:
                return rebase_merge(git, head, pr.base)
            message = _merge_message(pr.number, pr.head, pr.title)
            return git.merge(head, pr.base, message, squash=strategy is MergeStrategy.SQUASH)
        except MergeRefused as refused:
            if refused.files:
                raise MergeConflict(pr.number, pr.head, pr.base, refused.files) from None
            raise

    def merge_message(self, number: int) -> str:
        with self.db.read_transaction() as tx:
            row = self._pr_row(tx, number)
        return _merge_message(number, row["head"], row["title"])

    def close_pull_request(self, number: int) -> PullRequest:
        with self.db.write_transaction() as tx:
            row = self._pr_row(tx, number, lock=True)
            if row["state"] != "open":
                raise PullRequestNotOpen(number, row["state"])
            tx.run(
                "UPDATE ralph_pull_requests SET state = 'closed' WHERE repo = ? AND number = ?",
                (self.repo, number),
            )
        return self.get_pull_request(number)

    # -- reviews, threads, checks -------------------------------------------------------------

    def _inserted(self, tx: Tx, sql: str, params: Sequence[Any]) -> int:
        row = tx.one(sql + " RETURNING id", params)
        assert row is not None
        return int(row["id"])

    def _submit_review(
        self,
        number: int,
        event: ReviewEvent,
        body: str,
        comments: Sequence[ReviewComment],
        author: str,
    ) -> Review:
        pr = self.get_pull_request(number)
        check_reviewable(pr)
        hunks = []
        if comments:
            git = self._require_git()
            changed = git.changed_files(pr.base, pr.head)
            for comment in comments:
                if comment.path not in changed:
                    raise not_changed(number, comment.path, changed)
                head = pr.head_oid or f"refs/heads/{pr.head}"
                base = f"refs/heads/{pr.base}"
                hunks.append(diff_hunk(git, base, head, comment.path, comment.line))
        now = self.now()
        with self.db.write_transaction() as tx:
            state = self._pr_row(tx, number, lock=True)["state"]
            if state != "open":
                raise not_reviewable(number, PullRequestState(state))
            review = self._inserted(
                tx,
                "INSERT INTO ralph_pr_reviews (repo, pull_request, author, state, body, "
                "head_oid, submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    self.repo,
                    number,
                    author,
                    review_state(event).value,
                    body,
                    pr.head_oid or "",
                    now,
                ),
            )
            for comment, hunk in zip(comments, hunks, strict=True):
                thread = self._inserted(
                    tx,
                    "INSERT INTO ralph_pr_threads (repo, pull_request, review, path, line, "
                    "diff_hunk) VALUES (?, ?, ?, ?, ?, ?)",
                    (self.repo, number, review, comment.path, comment.line, hunk),
                )
                self._add_thread_comment(tx, thread, comment.body, author, now)
            row = tx.one("SELECT * FROM ralph_pr_reviews WHERE id = ?", (review,))
        assert row is not None
        return _review(row)

    def _add_thread_comment(self, tx: Tx, thread: int, body: str, author: str, now: float) -> int:
        return self._inserted(
            tx,
            "INSERT INTO ralph_pr_thread_comments (repo, thread, author, body, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (self.repo, thread, author, body, now),
        )

    def _thread_row(self, tx: Tx, thread: int, *, lock: bool = False) -> Row:
        row = tx.one(
            "SELECT * FROM ralph_pr_threads WHERE repo = ? AND id = ? "
            + (self.db.lock_rows if lock else ""),
            (self.repo, thread),
        )
        if row is None:
            raise no_thread(str(thread))
        return row

    def _reply_to_thread(self, thread_id: str, body: str, author: str) -> ThreadComment:
        thread, now = _thread_key(thread_id), self.now()
        with self.db.write_transaction() as tx:
            self._thread_row(tx, thread, lock=True)
            made = self._add_thread_comment(tx, thread, body, author, now)
        return ThreadComment(id=str(made), author=author, body=body, created_at=now)

    def resolve_thread(self, thread_id: str) -> ReviewThread:
        thread = _thread_key(thread_id)
        with self.db.write_transaction() as tx:
            self._thread_row(tx, thread, lock=True)
            tx.run(
                "UPDATE ralph_pr_threads SET resolved = 1 WHERE repo = ? AND id = ?",
                (self.repo, thread),
            )
            number = self._thread_row(tx, thread)["pull_request"]
            threads = _Records(tx, self.repo, number).threads[number]
        return next(t for t in threads if t.id == str(thread))

    def _request_review(self, number: int, reviewers: Sequence[str]) -> None:
        pr = self.get_pull_request(number)
        if pr.state is not PullRequestState.OPEN:
            raise PullRequestNotOpen(number, pr.state.value)
        # Nobody to notify on this machine: the decision stays as it is, as on GitHub.

    def merge_settings(self) -> MergeSettings:
        return MergeSettings()  # git makes every kind of merge; nothing queues

    def _record_check(self, number: int, check: CheckRun) -> None:
        with self.db.write_transaction() as tx:
            row = self._pr_row(tx, number, lock=True)
            if row["state"] != "open":
                raise PullRequestNotOpen(number, row["state"])
            head = self._head_oid(row["head"])
            if head is None:
                raise InvalidInput(
                    f"pull request #{number}'s branch {row['head']} is gone; there is no "
                    "head commit to record a check on"
                )
            tx.run(
                "INSERT INTO ralph_pr_checks (repo, pull_request, head_oid, name, status, "
                "conclusion, required, summary, url, recorded_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (repo, pull_request, head_oid, name) DO UPDATE SET "
                "status = excluded.status, conclusion = excluded.conclusion, "
                "required = excluded.required, summary = excluded.summary, url = excluded.url, "
                "recorded_at = excluded.recorded_at",
                (
                    self.repo,
                    number,
                    head,
                    check.name,
                    check.status.value,
                    check.conclusion.value if check.conclusion else None,
                    int(check.required),
                    check.summary,
                    check.url,
                    self.now(),
                ),
            )
