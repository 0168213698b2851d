"""Merging without the client's merge call: a branch's merge queue (entries join with
``enqueuePullRequest`` and merge in order on the queue's turn, or after the time the
branch gives it) and auto-merge (``enablePullRequestAutoMerge``: merged, or queued, once
GitHub would merge it)."""

from __future__ import annotations

from typing import Any

from ralph.github.fake._model import (
    Account,
    GraphQLFault,
    Node,
    Repository,
    World,
    _iso,
    connection,
)
from ralph.github.fake._pulls import (
    HEAD_MODIFIED,
    METHOD_REFUSED,
    METHOD_SETTING,
    NOT_MERGEABLE,
    PullRequest,
)
from ralph.github.fake._rules import BranchProtection

__all__ = [
    "MergeQueue",
    "MergeQueueEntry",
    "enable_auto_merge",
    "enqueue",
    "join",
    "leave",
    "process_queue",
    "run_due",
]

_NO_AUTO_MERGE = "Auto merge is not allowed for this repository"
_CLEAN_STATUS = "Pull request is in clean status"
# Wording of ours: GitHub's is not known.
_NO_QUEUE = "Merge queue is not enabled for the base branch of this pull request"
#: Why the queue removed an entry that no longer met the branch's rules (ours too).
NOT_READY = "The pull request no longer meets the branch's rules"


def _invalid(message: str) -> GraphQLFault:
    return GraphQLFault("UNPROCESSABLE", message)


class MergeQueue(Node):
    typename = "MergeQueue"

    def __init__(self, repository: Repository, branch: str) -> None:
        super().__init__(repository.world, "MQ_")
        self.repository = repository
        self.branch = branch
        self.entry_list: list[MergeQueueEntry] = []
        self.url = f"https://github.com/{repository.nameWithOwner}/queue/{branch}"
        self.configuration = self.nextEntryEstimatedTimeToMerge = None
        #: Scripted: pull request number -> why its checks fail in the queue's merge
        #: group (the branch built on what is ahead of it): the queue removes it.
        self.failing: dict[int, str] = {}

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
    return join(queue, pr, by)


def join(queue: MergeQueue, pr: PullRequest, by: Account) -> MergeQueueEntry:
    """``pr`` at the end of ``queue``, with the event on its timeline."""
    entry = MergeQueueEntry(queue, pr, by)
    queue.entry_list.append(entry)
    pr.timeline.append(_event("AddedToMergeQueueEvent", queue, pr, by))
    return entry


def leave(entry: MergeQueueEntry, reason: str, by: Account | None = None) -> None:
    """``entry`` out of its queue unmerged, for ``reason`` (on the pull request's
    timeline as a RemovedFromMergeQueueEvent, naming the head it left with)."""
    queue, pr = entry.mergeQueue, entry.pullRequest
    entry.state = "UNMERGEABLE"
    queue.entry_list.remove(entry)
    event = _event("RemovedFromMergeQueueEvent", queue, pr, by or entry.enqueuer)
    event.update(reason=reason, beforeCommit={"oid": pr.head_oid()})
    pr.timeline.append(event)


def _event(typename: str, queue: MergeQueue, pr: PullRequest, by: Account) -> dict[str, Any]:
    return {
        "__typename": typename,
        "id": queue.world.new_id("MQEV_"),
        "actor": by,
        "enqueuer": by,
        "createdAt": _iso(queue.world.clock()),
        "mergeQueue": queue,
        "pullRequest": pr,
    }


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
        if not getattr(pr.repository, METHOD_SETTING[method]):
            raise _invalid(METHOD_REFUSED[method])
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
            join(queue, pr, request["enabledBy"])
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
        if pr.number in queue.failing:
            leave(entry, queue.failing.pop(pr.number))
        elif pr.ready():
            pr.merge(rules.queue_method, None, entry.enqueuer)
            merged.append(pr.number)
        else:
            leave(entry, NOT_READY)
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
