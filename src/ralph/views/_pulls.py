"""A pull request as a document: what ``ralph pr show --json`` and ``ralph pr list
--json`` print, in GitHub's camelCase words."""

from __future__ import annotations

from typing import Any

from ralph.tracker import CheckRun, PullRequest, ReviewThread, iso

__all__ = ["pull_request_dict"]


def _check_dict(check: CheckRun) -> dict[str, Any]:
    return {
        "name": check.name,
        "status": check.status.value,
        "conclusion": check.conclusion.value if check.conclusion else None,
        "required": check.required,
        "summary": check.summary,
        "url": check.url,
    }


def _thread_dict(thread: ReviewThread) -> dict[str, Any]:
    return {
        "id": thread.id,
        "path": thread.path,
        "line": thread.line,
        "isResolved": thread.resolved,
        "diffHunk": thread.diff_hunk,
        "comments": [
            {"id": c.id, "author": c.author, "body": c.body, "createdAt": iso(c.created_at)}
            for c in thread.comments
        ],
    }


def pull_request_dict(pr: PullRequest, *, full: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {
        "number": pr.number,
        "title": pr.title,
        "state": pr.state.value,
        "head": pr.head,
        "base": pr.base,
        "headOid": pr.head_oid,
        "author": pr.author,
        "mergeable": pr.mergeable,
        "mergeState": pr.merge_state.value if pr.merge_state else None,
        "reviewDecision": pr.review_decision.value if pr.review_decision else None,
        "checks": [_check_dict(check) for check in pr.checks],
        "closes": list(pr.closes),
        "mergeCommit": pr.merge_commit,
        "createdAt": iso(pr.created_at),
        "mergedAt": iso(pr.merged_at),
        "url": pr.url,
    }
    if full:
        data |= {
            "body": pr.body,
            "reviews": [
                {
                    "id": r.id,
                    "author": r.author,
                    "state": r.state.value,
                    "body": r.body,
                    "submittedAt": iso(r.submitted_at),
                    "commit": r.commit,
                }
                for r in pr.reviews
            ],
            "threads": [_thread_dict(thread) for thread in pr.threads],
        }
    return data
