"""GitHub's pull requests as tracker values (pure): a pull request node with its head's
checks (required or not, as ``isRequired`` says), its reviews and review threads, and
what GitHub judges of it (mergeability, review decision, merge state); the repository's
merge settings."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ralph._text import one_line
from ralph.github import strip_markers
from ralph.tracker._model import PullRequest, PullRequestState
from ralph.tracker._reviews import (
    CheckConclusion,
    CheckRun,
    CheckStatus,
    MergeSettings,
    MergeState,
    Review,
    ReviewDecision,
    ReviewState,
    ReviewThread,
    ThreadComment,
)
from ralph.tracker.github._read import epoch

__all__ = [
    "merge_settings_from",
    "pull_request_from",
    "review_from",
    "thread_comment_from",
    "thread_from",
]

_PULL_STATES = {
    "OPEN": PullRequestState.OPEN,
    "MERGED": PullRequestState.MERGED,
    "CLOSED": PullRequestState.CLOSED,
}
#: GitHub's other states (WAITING, PENDING, REQUESTED) all mean "not done yet".
_CHECK_STATUS = {"COMPLETED": CheckStatus.COMPLETED, "QUEUED": CheckStatus.QUEUED}
#: A commit status: EXPECTED is one branch protection waits for that has not reported.
_STATUS_CONTEXT = {
    "SUCCESS": (CheckStatus.COMPLETED, CheckConclusion.SUCCESS),
    "FAILURE": (CheckStatus.COMPLETED, CheckConclusion.FAILURE),
    "ERROR": (CheckStatus.COMPLETED, CheckConclusion.FAILURE),
    "EXPECTED": (CheckStatus.QUEUED, None),
}
#: How much of a check's summary is kept: its end, where a failure usually is.
_SUMMARY_TAIL = 4000


def _conclusion(value: str | None) -> CheckConclusion | None:
    try:
        return CheckConclusion(value.lower()) if value else None
    except ValueError:  # a conclusion newer than this code: not a pass
        return CheckConclusion.FAILURE


def _checks(node: Mapping[str, Any]) -> tuple[CheckRun, ...]:
    checks: list[CheckRun] = []
    for commit in (node.get("commits") or {}).get("nodes", []):
        rollup = (commit.get("commit") or {}).get("statusCheckRollup")
        for context in ((rollup or {}).get("contexts") or {}).get("nodes", []):
            required = bool(context.get("isRequired"))
            if context.get("__typename") == "CheckRun":
                status = _CHECK_STATUS.get(context.get("status", ""), CheckStatus.IN_PROGRESS)
                checks.append(
                    CheckRun(
                        name=context["name"],
                        status=status,
                        conclusion=_conclusion(context.get("conclusion")),
                        required=required,
                        summary=(context.get("summary") or "")[-_SUMMARY_TAIL:],
                        url=context.get("detailsUrl") or "",
                    )
                )
            elif context.get("__typename") == "StatusContext":
                status, conclusion = _STATUS_CONTEXT.get(
                    context["state"], (CheckStatus.IN_PROGRESS, None)
                )
                checks.append(
                    CheckRun(
                        name=context["context"],
                        status=status,
                        conclusion=conclusion,
                        required=required,
                        summary=context.get("description") or "",
                        url=context.get("targetUrl") or "",
                    )
                )
    return tuple(checks)


def _login(node: Mapping[str, Any]) -> str:
    return str((node.get("author") or {}).get("login") or "ghost")


def review_from(node: Mapping[str, Any]) -> Review:
    return Review(
        id=node["id"],
        author=_login(node),
        state=ReviewState(node["state"]),
        body=strip_markers(node.get("body") or ""),
        submitted_at=epoch(node.get("submittedAt")) or 0.0,
        commit=(node.get("commit") or {}).get("oid") or "",
    )


def thread_comment_from(node: Mapping[str, Any]) -> ThreadComment:
    return ThreadComment(
        id=node["id"],
        author=_login(node),
        body=strip_markers(node.get("body") or ""),
        created_at=epoch(node.get("createdAt")) or 0.0,
    )


def thread_from(node: Mapping[str, Any]) -> ReviewThread:
    comments = (node.get("comments") or {}).get("nodes", [])
    line = node.get("line")
    return ReviewThread(
        id=node["id"],
        path=node["path"],
        line=line if line is not None else node.get("originalLine"),
        resolved=bool(node.get("isResolved")),
        diff_hunk=comments[0].get("diffHunk") or "" if comments else "",
        comments=tuple(thread_comment_from(c) for c in comments),
    )


def _enum(kind: type[Any], value: str | None) -> Any:
    try:
        return kind(value) if value else None
    except ValueError:
        return None


def pull_request_from(
    node: Mapping[str, Any],
    threads: list[Mapping[str, Any]] | None = None,
    *,
    closed_by: Callable[[str], tuple[int, ...]] | None = None,
) -> PullRequest:
    """The pull request ``node`` is (a summary has no checks, reviews or threads);
    ``threads``: every review thread, when more were paged in than the node holds;
    ``closed_by``: how the tracker reads the issues a body closes (GitHub's words when
    None)."""
    mergeable = {"MERGEABLE": True, "CONFLICTING": False}.get(node.get("mergeable") or "")
    if threads is None:
        threads = (node.get("reviewThreads") or {}).get("nodes", [])
    reviews = (node.get("reviews") or {}).get("nodes", [])
    return PullRequest(
        number=node["number"],
        title=one_line(node["title"]),
        body=strip_markers(node["body"]),
        head=node["headRefName"],
        base=node["baseRefName"],
        state=_PULL_STATES[node["state"]],
        mergeable=mergeable,
        checks=_checks(node),
        # A pending review is the viewer's own draft: nobody else sees it yet.
        reviews=tuple(review_from(r) for r in reviews if r["state"] != "PENDING"),
        threads=tuple(thread_from(t) for t in threads),
        review_decision=_enum(ReviewDecision, node.get("reviewDecision")),
        merge_state=_enum(MergeState, node.get("mergeStateStatus")),
        head_oid=node.get("headRefOid"),
        author=_login(node),
        merge_commit=(node.get("mergeCommit") or {}).get("oid"),
        created_at=epoch(node["createdAt"]) or 0.0,
        merged_at=epoch(node.get("mergedAt")),
        url=node.get("url", ""),
        closing=closed_by(strip_markers(node["body"])) if closed_by else None,
        **_queue_removal(node),
    )


def _queue_removal(node: Mapping[str, Any]) -> dict[str, Any]:
    """Why the merge queue last removed the pull request, and from which head, while
    it is out of the queue (a removal before its present entry says nothing now)."""
    if node.get("isInMergeQueue") or node.get("state") != "OPEN":
        return {}
    events = [e for e in (node.get("timelineItems") or {}).get("nodes") or [] if e]
    if not events:
        return {}
    last = events[-1]
    return {
        "queue_removal": one_line(last.get("reason") or ""),
        "queue_removal_head": (last.get("beforeCommit") or {}).get("oid"),
    }


def merge_settings_from(repository: Mapping[str, Any]) -> MergeSettings:
    """How the repository lets pull requests merge (its default branch's queue)."""
    return MergeSettings(
        merge_commit=bool(repository.get("mergeCommitAllowed", True)),
        squash=bool(repository.get("squashMergeAllowed", True)),
        rebase=bool(repository.get("rebaseMergeAllowed", True)),
        merge_queue=repository.get("mergeQueue") is not None,
    )
