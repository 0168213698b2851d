"""Pull requests on the fake, as GitHub judges them: the head commit and its check runs,
reviews and review threads, ``reviewDecision`` and ``mergeStateStatus`` computed from the
base branch's protection, ``mergeable`` UNKNOWN for a while after a push, a merge queue
and auto-merge, and the words GitHub refuses a merge with.

A pull request notices a push (a new head or base commit) when it is next read: then
mergeability is computed again and CI (``Repository.ci``) starts on a new head."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ralph.github._closing import closing_references
from ralph.github.fake._model import (
    Account,
    GraphQLFault,
    Node,
    Repository,
    World,
    _iso,
    connection,
)
from ralph.github.fake._rules import BranchProtection

__all__ = [
    "BASE_MODIFIED",
    "HEAD_MODIFIED",
    "NOT_MERGEABLE",
    "CheckRecord",
    "MergeQueue",
    "MergeQueueEntry",
    "PullRequest",
    "Review",
    "ReviewComment",
    "ReviewThread",
    "add_review",
    "process_queue",
    "run_due",
]

# GitHub's words (quoted in reports of its API; see github-realism.md §2.5).
BASE_MODIFIED = "Base branch was modified. Review and try the merge again."
HEAD_MODIFIED = "Head branch was modified. Review and try the merge again."
NOT_MERGEABLE = "Pull Request is not mergeable"
_METHOD_REFUSED = {
    "MERGE": "Merge commits are not allowed on this repository.",
    "SQUASH": "Squash merges are not allowed on this repository.",
    "REBASE": "Rebase merges are not allowed on this repository.",
}
_METHOD_SETTING = {
    "MERGE": "mergeCommitAllowed",
    "SQUASH": "squashMergeAllowed",
    "REBASE": "rebaseMergeAllowed",
}
_THROUGH_QUEUE = "Changes must be made through the merge queue"
_OWN_REVIEW = {
    "APPROVE": "Can not approve your own pull request",
    "REQUEST_CHANGES": "Can not request changes on your own pull request",
}
_NOT_IN_DIFF = (
    "Pull request review thread line must be part of the diff, and Pull request review "
    "thread diff hunk can't be blank"
)
_AUTHOR_REQUESTED = "Review cannot be requested from pull request author."
_NO_AUTO_MERGE = "Auto merge is not allowed for this repository"
_CLEAN_STATUS = "Pull request is in clean status"
# Wording of ours: GitHub's for these is not known.
_BLANK_REVIEW = "Body can't be blank (a review that comments or requests changes needs one)"
_NO_QUEUE = "Merge queue is not enabled for the base branch of this pull request"
_UNRESOLVED = "A conversation must be resolved before this pull request can be merged."

_PASSING = frozenset({"SUCCESS", "NEUTRAL", "SKIPPED"})
_WRITERS = frozenset({"ADMIN", "MAINTAIN", "WRITE"})
_REVIEW_STATES = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}


def _invalid(message: str) -> GraphQLFault:
    return GraphQLFault("UNPROCESSABLE", message)


class CheckRecord(Node):
    """A check run (or a commit status) on one commit: queued until ``queued_until``, in
    progress until ``done_at`` (None: until a test completes it), then concluded."""

    def __init__(
        self,
        repository: Repository,
        name: str,
        *,
        status_context: bool = False,
        queued: float = 0.0,
        running: float | None = None,
        conclusion: str | None = None,
        summary: str = "",
    ) -> None:
        world = repository.world
        super().__init__(world, "SC_" if status_context else "CR_")
        self.typename = "StatusContext" if status_context else "CheckRun"
        self.repository = repository
        self.name = name
        self.summary = summary
        self.databaseId = next(world.database_ids)
        now = world.clock()
        self.queued_until = now + queued
        self.done_at = None if running is None else self.queued_until + running
        self.final = conclusion.upper() if conclusion else None
        self.createdAt = _iso(now)

    # -- test control -----------------------------------------------------------------------

    def start(self) -> None:
        self.queued_until = min(self.queued_until, self.world.clock())

    def complete(self, conclusion: str = "SUCCESS") -> None:
        self.start()
        self.done_at, self.final = self.world.clock(), conclusion.upper()

    # -- as GitHub shows it -----------------------------------------------------------------

    @property
    def status(self) -> str:
        now = self.world.clock()
        if now < self.queued_until:
            return "QUEUED"
        if self.done_at is None or now < self.done_at or self.final is None:
            return "IN_PROGRESS"
        return "COMPLETED"

    @property
    def conclusion(self) -> str | None:
        return self.final if self.status == "COMPLETED" else None

    @property
    def pending(self) -> bool:
        return self.status != "COMPLETED"

    @property
    def passed(self) -> bool:
        return self.conclusion in _PASSING

    def isRequired(
        self, info: Any, pullRequestId: str | None = None, pullRequestNumber: int | None = None
    ) -> bool:
        if pullRequestId is None and pullRequestNumber is None:
            raise _invalid("One of pullRequestId or pullRequestNumber must be provided")
        pr = next(
            (
                p
                for p in self.repository.pull_list
                if p.id == pullRequestId or p.number == pullRequestNumber
            ),
            None,
        )
        return pr is not None and self.name in pr.protection().checks

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repository.nameWithOwner}/runs/{self.databaseId}"

    detailsUrl = targetUrl = permalink = url

    @property
    def title(self) -> str:
        return self.name

    @property
    def text(self) -> str:
        return self.summary

    @property
    def startedAt(self) -> str:
        return _iso(self.queued_until)

    @property
    def completedAt(self) -> str | None:
        return _iso(self.done_at) if self.done_at is not None and not self.pending else None

    # StatusContext's names for the same things.
    @property
    def context(self) -> str:
        return self.name

    @property
    def state(self) -> str:
        conclusion = self.conclusion
        if conclusion is None:
            return "PENDING"
        return conclusion if conclusion in ("SUCCESS", "FAILURE") else "ERROR"

    @property
    def description(self) -> str:
        return self.summary


class Review(Node):
    typename = "PullRequestReview"

    def __init__(self, pr: PullRequest, author: Account, state: str, body: str) -> None:
        super().__init__(pr.world, "PRR_")
        self.pullRequest = pr
        self.repository = pr.repository
        self.author = author
        self.state = state
        self.body = self.bodyText = body
        self.databaseId = next(pr.world.database_ids)
        self.createdAt = self.updatedAt = _iso(pr.world.clock())
        self.submittedAt: str | None = None
        self.commit = {"oid": pr.head_oid()}
        self.url = f"{pr.url}#pullrequestreview-{self.databaseId}"
        #: Threads a pending review will open when it is submitted: (path, line, body).
        self.drafts: list[tuple[str, int, str]] = []
        self.comment_list: list[ReviewComment] = []

    @property
    def publishedAt(self) -> str | None:
        return self.submittedAt

    def comments(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self.comment_list, **page)


class ReviewThread(Node):
    typename = "PullRequestReviewThread"

    def __init__(self, pr: PullRequest, path: str, line: int, diff_hunk: str) -> None:
        super().__init__(pr.world, "PRRT_")
        self.pullRequest = pr
        self.repository = pr.repository
        self.path = path
        self.line = self.originalLine = line
        self.startLine = self.originalStartLine = self.startDiffSide = None
        self.diffSide = "RIGHT"
        self.subjectType = "LINE"
        self.diff_hunk = diff_hunk
        self.isResolved = False
        self.resolvedBy: Account | None = None
        self.isOutdated = False
        self.viewerCanReply = self.viewerCanResolve = self.viewerCanUnresolve = True
        self.comment_list: list[ReviewComment] = []

    @property
    def isCollapsed(self) -> bool:
        return self.isResolved

    def comments(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self.comment_list, **page)


class ReviewComment(Node):
    typename = "PullRequestReviewComment"

    def __init__(self, thread: ReviewThread, review: Review, author: Account, body: str) -> None:
        super().__init__(thread.world, "PRRC_")
        self.thread = thread
        self.pullRequest = thread.pullRequest
        self.pullRequestReview = review
        self.repository = thread.repository
        self.author = author
        self.body = self.bodyText = body
        self.path = thread.path
        self.line = self.originalLine = thread.line
        self.diffHunk = thread.diff_hunk
        self.replyTo = thread.comment_list[0] if thread.comment_list else None
        self.databaseId = next(thread.world.database_ids)
        self.createdAt = self.updatedAt = _iso(thread.world.clock())
        self.url = f"{self.pullRequest.url}#discussion_r{self.databaseId}"
        self.outdated = False
        self.state = "SUBMITTED"
        self.subjectType = "LINE"
        thread.comment_list.append(self)
        review.comment_list.append(self)


class MergeQueue(Node):
    typename = "MergeQueue"

    def __init__(self, repository: Repository, branch: str) -> None:
        super().__init__(repository.world, "MQ_")
        self.repository = repository
        self.branch = branch
        self.entry_list: list[MergeQueueEntry] = []
        self.url = f"https://github.com/{repository.nameWithOwner}/queue/{branch}"
        self.configuration = self.nextEntryEstimatedTimeToMerge = None

    def entries(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self.entry_list, **page)


class MergeQueueEntry(Node):
    typename = "MergeQueueEntry"

    def __init__(self, queue: MergeQueue, pr: PullRequest, enqueuer: Account) -> None:
        super().__init__(queue.world, "MQE_")
        self.mergeQueue = queue
        self.pullRequest = pr
        self.enqueuer = enqueuer
        self.enqueued = queue.world.clock()
        self.enqueuedAt = _iso(self.enqueued)
        self.state = "QUEUED"
        self.jump = self.solo = False
        self.estimatedTimeToMerge = None
        self.headCommit = {"oid": pr.head_oid()}
        self.baseCommit = None

    @property
    def position(self) -> int:
        return self.mergeQueue.entry_list.index(self) + 1


class PullRequest(Node):
    typename = "PullRequest"

    def __init__(
        self,
        repository: Repository,
        number: int,
        head: str,
        base: str,
        title: str,
        body: str,
        author: Account,
    ) -> None:
        world = repository.world
        super().__init__(world, "PR_")
        self.repository = repository
        self.number = number
        self.headRefName = head
        self.baseRefName = base
        self.title = title
        self.body = body
        self.author = author
        self.state = "OPEN"
        self.createdAt = self.updatedAt = _iso(world.clock())
        self.mergedAt: str | None = None
        self.mergedBy: Account | None = None
        self.url = f"https://github.com/{repository.nameWithOwner}/pull/{number}"
        self.merge_oid: str | None = None
        self.review_list: list[Review] = []
        self.thread_list: list[ReviewThread] = []
        self.requested: list[Account] = []
        #: Set by enablePullRequestAutoMerge: it merges (or joins the queue) once ready.
        self.autoMergeRequest: dict[str, Any] | None = None
        #: For a repository without a git side: the paths the pull request changes
        #: (None: any path takes a review thread).
        self.changed: set[str] | None = None
        self.isDraft = self.locked = self.isCrossRepository = False
        # What the last read saw: (head oid, base oid), how many heads it has had, the
        # base a head was pushed onto (up to date or BEHIND, without git) and how long
        # mergeability stays UNKNOWN.
        self._pair: tuple[str | None, str | None] | None = None
        self._observed = -1
        self.pushes = -1
        self._base_at_push: str | None = None
        self._reads_left = 0
        self._unknown_until = 0.0
        self._unknown_serial = -1
        self._unknown_now = False
        self._merge_cache: tuple[tuple[str | None, str | None], str] | None = None
        self.observe()

    # -- noticing pushes ------------------------------------------------------------------

    def observe(self) -> None:
        """Read the head and base commits (once per request): a moved one starts
        mergeability again, and a new head gets CI's checks."""
        world = self.world
        if self._observed == world.serial and self._pair is not None:
            return
        self._observed = world.serial
        if self.state != "OPEN" and self._pair is not None:
            return
        pair = (
            self.repository.oid_of(self.headRefName),
            self.repository.oid_of(self.baseRefName),
        )
        if pair == self._pair:
            return
        head_moved = self._pair is None or pair[0] != self._pair[0]
        self._pair = pair
        self._reads_left = world.mergeability.reads
        self._unknown_until = world.clock() + world.mergeability.seconds
        self._unknown_serial = -1
        if head_moved and pair[0] is not None:
            self.pushes += 1
            self._base_at_push = pair[1]
            self._new_head(pair[0])

    def _new_head(self, oid: str) -> None:
        records = self.repository.checks_on.setdefault(oid, [])
        have = {r.name for r in records}
        for plan in self.repository.ci:
            if plan.name not in have:
                records.append(
                    CheckRecord(
                        self.repository,
                        plan.name,
                        status_context=plan.status_context,
                        queued=plan.queued,
                        running=plan.running,
                        conclusion=plan.conclusion(self.pushes),
                        summary=plan.summary,
                    )
                )
        if self.pushes > 0 and self.protection().dismiss_stale:
            for review in self.review_list:
                if review.state == "APPROVED":
                    review.state = "DISMISSED"

    def head_oid(self) -> str:
        self.observe()
        assert self._pair is not None
        return self._pair[0] or "0" * 40

    @property
    def headRefOid(self) -> str:
        return self.head_oid()

    @property
    def baseRefOid(self) -> str:
        self.observe()
        assert self._pair is not None
        return self._pair[1] or "0" * 40

    # -- what GitHub computes -------------------------------------------------------------

    def protection(self) -> BranchProtection:
        return self.repository.protections.get(self.baseRefName) or BranchProtection()

    def _unknown(self) -> bool:
        """Whether this request sees mergeability as not computed yet (each request
        that reads it counts once)."""
        serial = self.world.serial
        if self._unknown_serial != serial:
            self._unknown_serial = serial
            self._unknown_now = self._reads_left > 0 or self.world.clock() < self._unknown_until
            self._reads_left = max(self._reads_left - 1, 0)
        return self._unknown_now

    def computed_mergeable(self) -> str:
        """Whether head merges into base, as git says (what GitHub computes)."""
        self.observe()
        assert self._pair is not None
        if self._merge_cache is None or self._merge_cache[0] != self._pair:
            ok = self.repository.can_merge(self.headRefName, self.baseRefName)
            answer = "UNKNOWN" if ok is None else ("MERGEABLE" if ok else "CONFLICTING")
            self._merge_cache = (self._pair, answer)
        return self._merge_cache[1]

    @property
    def mergeable(self) -> str:
        if self.state != "OPEN":
            return "UNKNOWN"
        self.observe()
        return "UNKNOWN" if self._unknown() else self.computed_mergeable()

    def head_checks(self) -> list[CheckRecord]:
        """The latest check run or status of each name on the head commit."""
        latest: dict[str, CheckRecord] = {}
        for record in self.repository.checks_on.get(self.head_oid(), []):
            latest[record.name] = record
        return list(latest.values())

    def _writer(self, account: Account) -> bool:
        role = self.repository.roles.get(
            account.login, "ADMIN" if account is self.repository.owner else "WRITE"
        )
        return role in _WRITERS

    def latest_opinions(self) -> dict[str, Review]:
        """Each reviewer's latest approval or change request (not dismissed)."""
        latest: dict[str, Review] = {}
        for review in self.review_list:
            if review.state in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED"):
                latest[review.author.login] = review
        return {login: r for login, r in latest.items() if r.state != "DISMISSED"}

    @property
    def reviewDecision(self) -> str | None:
        needed = self.protection().approvals
        if not needed:
            return None
        opinions = [r for r in self.latest_opinions().values() if self._writer(r.author)]
        if any(r.state == "CHANGES_REQUESTED" for r in opinions):
            return "CHANGES_REQUESTED"
        approvals = sum(r.state == "APPROVED" for r in opinions)
        return "APPROVED" if approvals >= needed else "REVIEW_REQUIRED"

    def blockers(self) -> list[str]:
        """What the base branch's protection still asks, in GitHub's words."""
        rules = self.protection()
        found = []
        if self.reviewDecision in ("REVIEW_REQUIRED", "CHANGES_REQUESTED"):
            reviews = "review is" if rules.approvals == 1 else "reviews are"
            found.append(
                f"At least {rules.approvals} approving {reviews} required by reviewers "
                "with write access."
            )
        checks = {record.name: record for record in self.head_checks()}
        for name in sorted(rules.checks):
            record = checks.get(name)
            if record is None:
                found.append(f'Required status check "{name}" is expected.')
            elif record.pending:
                found.append(f'Required status check "{name}" is in progress.')
            elif not record.passed:
                found.append(f'Required status check "{name}" is failing.')
        if rules.conversations and any(not t.isResolved for t in self.thread_list):
            found.append(_UNRESOLVED)
        return found

    def behind(self) -> bool:
        """Whether the head lacks base commits where the base wants it up to date."""
        rules = self.protection()
        if not (rules.strict and rules.checks):
            return False
        if self.repository.git_path is None:
            return self._base_at_push != self.baseRefOid
        return not self.repository.contains(self.headRefName, self.baseRefName)

    @property
    def mergeStateStatus(self) -> str:
        mergeable = self.mergeable
        if self.state != "OPEN" or mergeable == "UNKNOWN":
            return "UNKNOWN"
        if mergeable == "CONFLICTING":
            return "DIRTY"
        if self.blockers():
            return "BLOCKED"
        if self.behind():
            return "BEHIND"
        required = self.protection().checks
        if any(not r.passed for r in self.head_checks() if r.name not in required):
            return "UNSTABLE"
        return "CLEAN"

    def ready(self) -> bool:
        """Whether GitHub would merge it now (what a queue and auto-merge wait for)."""
        return (
            self.state == "OPEN"
            and self.computed_mergeable() == "MERGEABLE"
            and not self.blockers()
            and not self.behind()
        )

    def merge_refusal(self, method: str, expected_head: str | None) -> str | None:
        """Why ``mergePullRequest`` refuses, in GitHub's words (None: it merges)."""
        if self.state != "OPEN":
            return f"{NOT_MERGEABLE} (it is {self.state.lower()})"
        if expected_head is not None and expected_head != self.head_oid():
            return HEAD_MODIFIED
        if self.isMergeQueueEnabled:
            return _THROUGH_QUEUE
        if not getattr(self.repository, _METHOD_SETTING[method]):
            return _METHOD_REFUSED[method]
        if self.computed_mergeable() == "CONFLICTING":
            return NOT_MERGEABLE
        blockers = self.blockers()
        if blockers:
            return blockers[0]
        if self.behind():
            count = len(self.protection().checks)
            return f"{count} of {count} required status checks are expected."
        return None

    # -- merging ----------------------------------------------------------------------------

    def merge(self, method: str, headline: str | None, by: Account) -> None:
        repository = self.repository
        message = headline or f"Merge pull request #{self.number} from {self.headRefName}"
        self.merge_oid = repository.merge(
            self.headRefName, self.baseRefName, message, squash=method != "MERGE"
        )
        self.state = "MERGED"
        self.mergedAt = self.updatedAt = _iso(self.world.clock())
        self.mergedBy = by
        self.autoMergeRequest = None
        self._leave_queue()
        if self.baseRefName == repository.defaultBranchRef["name"]:
            for issue in repository.issue_list:
                if issue.number in self.closes and issue.state == "OPEN":
                    issue.state, issue.stateReason = "CLOSED", "COMPLETED"
                    issue.closedAt = self.mergedAt
                    issue.touch()

    def _leave_queue(self) -> None:
        queue = self.repository.merge_queues.get(self.baseRefName)
        if queue is not None:
            queue.entry_list = [e for e in queue.entry_list if e.pullRequest is not self]

    def close(self) -> None:
        self.state = "CLOSED"
        self.autoMergeRequest = None
        self._leave_queue()

    # -- fields ------------------------------------------------------------------------------

    @property
    def closes(self) -> tuple[int, ...]:
        return closing_references(self.body)

    @property
    def closed(self) -> bool:
        return self.state != "OPEN"

    @property
    def merged(self) -> bool:
        return self.state == "MERGED"

    @property
    def mergeCommit(self) -> dict[str, str] | None:
        return {"oid": self.merge_oid} if self.merge_oid else None

    @property
    def isMergeQueueEnabled(self) -> bool:
        return self.protection().merge_queue

    @property
    def mergeQueue(self) -> MergeQueue | None:
        found: MergeQueue | None = self.repository.merge_queues.get(self.baseRefName)
        return found

    @property
    def mergeQueueEntry(self) -> MergeQueueEntry | None:
        queue = self.mergeQueue
        if queue is None:
            return None
        return next((e for e in queue.entry_list if e.pullRequest is self), None)

    @property
    def isInMergeQueue(self) -> bool:
        return self.mergeQueueEntry is not None

    def viewerDidAuthor(self, info: Any) -> bool:
        return bool(self.author.login == info.context["login"])

    def _rollup(self) -> dict[str, Any] | None:
        records = self.head_checks()
        if not records:
            return None
        if any(r.conclusion is not None and not r.passed for r in records):
            state = "FAILURE"
        elif any(r.pending for r in records):
            state = "PENDING"
        else:
            state = "SUCCESS"
        return {"state": state, "contexts": lambda info, **p: connection(records, **p)}

    @property
    def statusCheckRollup(self) -> dict[str, Any] | None:
        return self._rollup()

    def commits(self, info: Any, **page: Any) -> dict[str, Any]:
        commit = {"oid": self.head_oid(), "statusCheckRollup": self._rollup()}
        return connection([{"commit": commit}], **page)

    def reviews(
        self, info: Any, states: list[str] | None = None, author: str | None = None, **page: Any
    ) -> dict[str, Any]:
        viewer = info.context["login"]
        found = [
            r
            for r in self.review_list
            if (r.state != "PENDING" or r.author.login == viewer)
            and (not states or r.state in states)
            and author in (None, r.author.login)
        ]
        return connection(found, **page)

    def latestReviews(self, info: Any, **page: Any) -> dict[str, Any]:
        latest: dict[str, Review] = {}
        for review in self.review_list:
            if review.state != "PENDING":
                latest[review.author.login] = review
        return connection(list(latest.values()), **page)

    def latestOpinionatedReviews(
        self, info: Any, writersOnly: bool = False, **page: Any
    ) -> dict[str, Any]:
        found = list(self.latest_opinions().values())
        if writersOnly:
            found = [r for r in found if self._writer(r.author)]
        return connection(found, **page)

    def reviewThreads(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self.thread_list, **page)

    def reviewRequests(self, info: Any, **page: Any) -> dict[str, Any]:
        nodes = [{"requestedReviewer": account, "asCodeOwner": False} for account in self.requested]
        return connection(nodes, **page)

    def files(self, info: Any, **page: Any) -> dict[str, Any]:
        paths = self.changed_paths() or []
        nodes = [
            {"path": p, "additions": 0, "deletions": 0, "changeType": "MODIFIED"} for p in paths
        ]
        return connection(nodes, **page)

    def changed_paths(self) -> list[str] | None:
        if self.changed is not None:
            return sorted(self.changed)
        return self.repository.changed_paths(self.baseRefName, self.headRefName)

    # -- a shorthand for tests -------------------------------------------------------------

    @property
    def check_runs(self) -> dict[str, str]:
        """name -> "pending" or a lower-case conclusion, of the head's checks."""
        return {r.name: (r.conclusion or "pending").lower() for r in self.head_checks()}

    @check_runs.setter
    def check_runs(self, states: Mapping[str, str]) -> None:
        """Report checks on the head: "pending" (in progress) or a conclusion."""
        records = self.repository.checks_on.setdefault(self.head_oid(), [])
        for name, state in states.items():
            done = None if state == "pending" else state
            records.append(
                CheckRecord(self.repository, name, running=0.0 if done else None, conclusion=done)
            )


def add_review(
    pr: PullRequest,
    author: Account,
    event: str | None,
    body: str,
    threads: Sequence[Mapping[str, Any]] = (),
) -> Review:
    """A review by ``author``: submitted with ``event``, or pending (None) until
    submitted; each of ``threads`` (path, line, body) opens a review thread. Refused in
    GitHub's words as GitHub refuses it."""
    drafts = [(str(t["path"]), int(t["line"]), str(t["body"])) for t in threads]
    for path, line, _ in drafts:
        _hunk(pr, path, line)
    if event is not None:
        _check_submission(pr, author, event, body, drafts)
    review = Review(pr, author, "PENDING", body)
    review.drafts = drafts
    if event is not None:
        submit_review(review, event, body)
    pr.review_list.append(review)
    return review


def _check_submission(
    pr: PullRequest, author: Account, event: str, body: str, drafts: Sequence[object]
) -> None:
    if event == "DISMISS":
        raise _invalid("A review can only be dismissed with dismissPullRequestReview")
    if author is pr.author and event in _OWN_REVIEW:
        raise _invalid(_OWN_REVIEW[event])
    if event != "APPROVE" and not body.strip() and not drafts:
        raise _invalid(_BLANK_REVIEW)


def submit_review(review: Review, event: str, body: str | None = None) -> None:
    """Submit a pending ``review`` as ``event`` (APPROVE, REQUEST_CHANGES, COMMENT)."""
    pr = review.pullRequest
    text = review.body if body is None else body
    _check_submission(pr, review.author, event, text, review.drafts)
    review.body = review.bodyText = text
    review.state = _REVIEW_STATES.get(event, "COMMENTED")
    review.submittedAt = _iso(pr.world.clock())
    review.commit = {"oid": pr.head_oid()}
    for path, line, comment in review.drafts:
        thread = ReviewThread(pr, path, line, _hunk(pr, path, line))
        pr.thread_list.append(thread)
        ReviewComment(thread, review, review.author, comment)
    review.drafts = []
    pr.requested = [a for a in pr.requested if a is not review.author]
    pr.updatedAt = review.submittedAt


def _hunk(pr: PullRequest, path: str, line: int) -> str:
    paths = pr.changed_paths()
    hunk = None
    if paths is None or path in paths:
        hunk = pr.repository.diff_hunk(pr.baseRefName, pr.headRefName, path, line)
    if hunk is None:
        raise _invalid(_NOT_IN_DIFF)
    return hunk


def reply(thread: ReviewThread, author: Account, body: str) -> ReviewComment:
    """A reply on ``thread``: GitHub files it under a review of its own (COMMENTED)."""
    if not body.strip():
        raise _invalid("Body can't be blank")
    pr = thread.pullRequest
    review = Review(pr, author, "COMMENTED", "")
    review.submittedAt = review.createdAt
    pr.review_list.append(review)
    return ReviewComment(thread, review, author, body)


def request_reviews(pr: PullRequest, accounts: Sequence[Account], *, union: bool) -> None:
    if pr.author in accounts:
        raise _invalid(_AUTHOR_REQUESTED)
    kept = pr.requested if union else []
    pr.requested = kept + [a for a in accounts if a not in kept]


def enqueue(pr: PullRequest, by: Account, expected_head: str | None) -> MergeQueueEntry:
    """``pr`` into its base branch's merge queue (it must meet the branch's rules)."""
    queue = pr.mergeQueue
    if pr.state != "OPEN":
        raise _invalid(f"{NOT_MERGEABLE} (it is {pr.state.lower()})")
    if queue is None or not pr.isMergeQueueEnabled:
        raise _invalid(_NO_QUEUE)
    if expected_head is not None and expected_head != pr.head_oid():
        raise _invalid(HEAD_MODIFIED)
    found = pr.mergeQueueEntry
    if found is not None:
        return found
    if pr.computed_mergeable() == "CONFLICTING":
        raise _invalid(NOT_MERGEABLE)
    blockers = pr.blockers()
    if blockers:
        raise _invalid(blockers[0])
    entry = MergeQueueEntry(queue, pr, by)
    queue.entry_list.append(entry)
    return entry


def enable_auto_merge(
    pr: PullRequest, by: Account, method: str, expected_head: str | None, headline: str | None
) -> None:
    """Merge ``pr`` (or queue it) once GitHub would: refused where auto-merge is not
    allowed, and for a pull request that could merge now (GitHub: merge it instead)."""
    if not pr.repository.autoMergeAllowed:
        raise _invalid(_NO_AUTO_MERGE)
    if pr.state != "OPEN":
        raise _invalid(f"{NOT_MERGEABLE} (it is {pr.state.lower()})")
    if expected_head is not None and expected_head != pr.head_oid():
        raise _invalid(HEAD_MODIFIED)
    if not pr.isMergeQueueEnabled:
        if not getattr(pr.repository, _METHOD_SETTING[method]):
            raise _invalid(_METHOD_REFUSED[method])
        if pr.ready():
            raise _invalid(_CLEAN_STATUS)
    pr.autoMergeRequest = {
        "enabledAt": _iso(pr.world.clock()),
        "enabledBy": by,
        "mergeMethod": method,
        "commitHeadline": headline,
        "commitBody": None,
        "authorEmail": None,
        "pullRequest": pr,
    }
    run_auto_merge(pr)


def run_auto_merge(pr: PullRequest) -> None:
    request = pr.autoMergeRequest
    if request is None or pr.state != "OPEN" or not pr.ready():
        return
    if pr.isMergeQueueEnabled:
        queue = pr.mergeQueue
        if queue is not None and not pr.isInMergeQueue:
            queue.entry_list.append(MergeQueueEntry(queue, pr, request["enabledBy"]))
        return
    pr.merge(request["mergeMethod"], request["commitHeadline"], request["enabledBy"])


def process_queue(queue: MergeQueue, *, due_only: bool = False) -> list[int]:
    """Merge the queue's entries in order (those that still meet the branch's rules; the
    rest leave it); ``due_only``: only entries in it for the queue's time. Returns the
    numbers merged."""
    rules = queue.repository.protections.get(queue.branch) or BranchProtection()
    now = queue.world.clock()
    merged = []
    for entry in list(queue.entry_list):
        if due_only and (rules.queue_seconds is None or now < entry.enqueued + rules.queue_seconds):
            break
        pr = entry.pullRequest
        if pr.ready():
            pr.merge(rules.queue_method, None, entry.enqueuer)
            merged.append(pr.number)
        else:
            entry.state = "UNMERGEABLE"
            queue.entry_list.remove(entry)
    return merged


def run_due(world: World) -> None:
    """What GitHub does on its own between requests: merge queues merge their due
    entries, and auto-merge merges what became ready."""
    for repository in world.repositories.values():
        for queue in repository.merge_queues.values():
            process_queue(queue, due_only=True)
        for pr in repository.pull_list:
            if pr.autoMergeRequest is not None and pr.state == "OPEN":
                run_auto_merge(pr)
