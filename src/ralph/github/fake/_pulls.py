"""Pull requests on the fake, as GitHub judges them: the head commit and its check runs,
reviews and review threads, ``reviewDecision`` and ``mergeStateStatus`` computed from the
base branch's protection, ``mergeable`` UNKNOWN for a while after a push, a merge queue
and auto-merge, and the words GitHub refuses a merge with.

A pull request notices a push (a new head or base commit) when it is next read: then
mergeability is computed again and CI (``Repository.ci``) starts on a new head."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ralph.github._closing import closing_references
from ralph.github.fake._checks import CheckRecord
from ralph.github.fake._model import Account, Node, Repository, _iso, connection
from ralph.github.fake._rules import BranchProtection

if TYPE_CHECKING:
    from ralph.github.fake._queue import MergeQueue, MergeQueueEntry
    from ralph.github.fake._reviewing import Review, ReviewThread

__all__ = [
    "BASE_MODIFIED",
    "HEAD_MODIFIED",
    "METHOD_REFUSED",
    "METHOD_SETTING",
    "NOT_MERGEABLE",
    "PullRequest",
]

# GitHub's words (quoted in reports of its API; see github-realism.md §2.5).
BASE_MODIFIED = "Base branch was modified. Review and try the merge again."
HEAD_MODIFIED = "Head branch was modified. Review and try the merge again."
NOT_MERGEABLE = "Pull Request is not mergeable"
METHOD_REFUSED = {
    "MERGE": "Merge commits are not allowed on this repository.",
    "SQUASH": "Squash merges are not allowed on this repository.",
    "REBASE": "Rebase merges are not allowed on this repository.",
}
#: The repository setting that allows each method.
METHOD_SETTING = {
    "MERGE": "mergeCommitAllowed",
    "SQUASH": "squashMergeAllowed",
    "REBASE": "rebaseMergeAllowed",
}
_THROUGH_QUEUE = "Changes must be made through the merge queue"
# Wording of ours: GitHub's is not known.
_UNRESOLVED = "A conversation must be resolved before this pull request can be merged."

_WRITERS = frozenset({"ADMIN", "MAINTAIN", "WRITE"})


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
        #: Timeline events the fake records (its merge queue's), oldest first.
        self.timeline: list[dict[str, Any]] = []
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
        if not getattr(self.repository, METHOD_SETTING[method]):
            return METHOD_REFUSED[method]
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
                    issue.close("COMPLETED")

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

    def labels(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection([], **page)

    def assignees(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection([], **page)

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

    def timelineItems(
        self,
        info: Any,
        itemTypes: list[str] | None = None,
        since: str | None = None,
        skip: int | None = None,
        **page: Any,
    ) -> dict[str, Any]:
        """The recorded events (the merge queue's only), of ``itemTypes`` (GitHub's
        PullRequestTimelineItemsItemType: each event's type name in upper snake case)."""
        found = [
            event
            for event in self.timeline
            if not itemTypes or _item_type(event["__typename"]) in itemTypes
        ]
        found = [e for e in found if since is None or e["createdAt"] >= since][skip or 0 :]
        return connection(found, **page)

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


def _item_type(typename: str) -> str:
    """RemovedFromMergeQueueEvent -> REMOVED_FROM_MERGE_QUEUE_EVENT."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", typename).upper()
