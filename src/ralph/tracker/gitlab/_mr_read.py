"""GitLab's merge requests as tracker values (pure): a merge request with its head
pipeline's jobs as the checks, its approvals and Ralph's review notes as the reviews,
its diff discussions as the review threads, and GitLab's ``detailed_merge_status``
judged as GitHub's merge state; the project's merge settings.

GitLab's REST API has approvals but no change request a client can make (the
"requested changes" reviewer state is set only from GitLab's own page), so Ralph writes
a review as a note that starts with a hidden marker naming its verdict and head
(``<!-- ralph:review CHANGES_REQUESTED <sha> -->``); a person's approval on GitLab's
page and their "requested changes" state are read too."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from ralph._text import one_line
from ralph.tracker._model import PullRequest, PullRequestState
from ralph.tracker._pull_state import review_decision
from ralph.tracker._reviews import (
    CheckConclusion,
    CheckRun,
    CheckStatus,
    MergeSettings,
    MergeState,
    Review,
    ReviewDecision,
    ReviewEvent,
    ReviewState,
    ReviewThread,
    ThreadComment,
)

__all__ = [
    "checks_from",
    "epoch",
    "merge_settings_from",
    "merge_state_from",
    "mergeable_from",
    "pull_request_from",
    "review_from_note",
    "review_note",
    "reviews_from",
    "thread_comment_from",
    "thread_from",
]

_PULL_STATES = {
    "opened": PullRequestState.OPEN,
    # "locked": GitLab is merging it right now; it is still open until merged.
    "locked": PullRequestState.OPEN,
    "merged": PullRequestState.MERGED,
    "closed": PullRequestState.CLOSED,
}
#: A job's status -> (status, conclusion). GitLab's waiting states all mean not done yet.
_JOB_STATUS: dict[str, tuple[CheckStatus, CheckConclusion | None]] = {
    "created": (CheckStatus.QUEUED, None),
    "waiting_for_resource": (CheckStatus.QUEUED, None),
    "preparing": (CheckStatus.QUEUED, None),
    "pending": (CheckStatus.QUEUED, None),
    "scheduled": (CheckStatus.QUEUED, None),
    "manual": (CheckStatus.QUEUED, None),
    "waiting_for_callback": (CheckStatus.IN_PROGRESS, None),
    "running": (CheckStatus.IN_PROGRESS, None),
    "success": (CheckStatus.COMPLETED, CheckConclusion.SUCCESS),
    "failed": (CheckStatus.COMPLETED, CheckConclusion.FAILURE),
    "canceled": (CheckStatus.COMPLETED, CheckConclusion.CANCELLED),
    "canceling": (CheckStatus.COMPLETED, CheckConclusion.CANCELLED),
    "skipped": (CheckStatus.COMPLETED, CheckConclusion.SKIPPED),
}
#: ``detailed_merge_status`` values that mean GitLab's rules hold the merge back.
_BLOCKED = frozenset(
    {
        "blocked_status",
        "ci_must_pass",
        "ci_still_running",
        "commits_status",
        "discussions_not_resolved",
        "external_status_checks",
        "jira_association_missing",
        "locked_lfs_files",
        "locked_paths",
        "merge_request_blocked",
        "merge_time",
        "not_approved",
        "requested_changes",
        "security_policy_violations",
        "security_policy_pipeline_check",
        "title_regex",
    }
)
#: Values while GitLab is still working it out.
_UNKNOWN = frozenset({"checking", "unchecked", "approvals_syncing", "preparing"})
_MARKER = re.compile(r"\A<!-- ralph:review (APPROVED|CHANGES_REQUESTED|COMMENTED) (\w*) -->\n?")
#: Notes GitLab writes itself ("approved this merge request", "added 1 commit").
_SYSTEM = "system"
#: How much of a job's name stands for its summary: GitLab's job list carries no log.
_FAILURE_REASON = "failure_reason"


def epoch(text: str | None) -> float | None:
    if not text:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _user(node: Mapping[str, Any] | None) -> str:
    return str((node or {}).get("username") or "ghost")


# -- checks ------------------------------------------------------------------------------------


def checks_from(
    mr: Mapping[str, Any], jobs: Iterable[Mapping[str, Any]], *, must_succeed: bool
) -> tuple[CheckRun, ...]:
    """The head pipeline's jobs as check runs (a job run again: its latest run), when
    the pipeline ran on the merge request's head; none else (checks belong to a head).
    ``must_succeed``: the project's "pipelines must succeed", which makes every job that
    may not fail a required one."""
    pipeline = mr.get("head_pipeline") or {}
    if not pipeline or pipeline.get("sha") != mr.get("sha"):
        return ()
    latest: dict[str, Mapping[str, Any]] = {}
    for job in sorted(jobs, key=lambda j: int(j.get("id") or 0)):
        latest[str(job["name"])] = job
    return tuple(_check(job, must_succeed) for job in latest.values())


def _check(job: Mapping[str, Any], must_succeed: bool) -> CheckRun:
    status, conclusion = _JOB_STATUS.get(str(job.get("status")), (CheckStatus.IN_PROGRESS, None))
    return CheckRun(
        name=str(job["name"]),
        status=status,
        conclusion=conclusion,
        required=must_succeed and not job.get("allow_failure"),
        summary=str(job.get(_FAILURE_REASON) or ""),
        url=str(job.get("web_url") or ""),
    )


# -- judgement ---------------------------------------------------------------------------------


def mergeable_from(mr: Mapping[str, Any]) -> bool | None:
    """Whether head merges into base as GitLab last worked it out (None: not yet)."""
    if _PULL_STATES.get(str(mr.get("state"))) is not PullRequestState.OPEN:
        return None
    detailed = str(mr.get("detailed_merge_status") or "")
    if detailed in _UNKNOWN:
        return None
    return not (mr.get("has_conflicts") or detailed == "conflict")


def merge_state_from(mr: Mapping[str, Any], checks: Sequence[CheckRun]) -> MergeState | None:
    """GitLab's ``detailed_merge_status`` in GitHub's words: ``mergeable`` is CLEAN, or
    UNSTABLE while an optional job fails or runs (GitLab merges then, as GitHub does);
    a conflict DIRTY; ``need_rebase`` (fast-forward merges) BEHIND; a draft DRAFT; a rule
    unmet BLOCKED; a status newer than this code UNKNOWN. None once it is not open."""
    if _PULL_STATES.get(str(mr.get("state"))) is not PullRequestState.OPEN:
        return None
    detailed = str(mr.get("detailed_merge_status") or "")
    if detailed == "mergeable":
        return MergeState.UNSTABLE if any(not c.passed for c in checks) else MergeState.CLEAN
    if detailed == "conflict" or mr.get("has_conflicts"):
        return MergeState.DIRTY
    if detailed == "need_rebase":
        return MergeState.BEHIND
    if detailed == "draft_status":
        return MergeState.DRAFT
    if detailed in _BLOCKED:
        return MergeState.BLOCKED
    return MergeState.UNKNOWN


def merge_settings_from(project: Mapping[str, Any]) -> MergeSettings:
    """The project's merge method as Ralph's three: ``merge`` and ``rebase_merge`` make
    merge commits (the latter once the head is rebased), ``ff`` only fast-forwards
    (Ralph's rebase: the head rebased, then the base moved to it); squashing unless
    the project says never. GitLab has merge trains (Premium), not GitHub's queue."""
    method = str(project.get("merge_method") or "merge")
    return MergeSettings(
        merge_commit=method in ("merge", "rebase_merge"),
        squash=project.get("squash_option", "default_off") != "never",
        rebase=method == "ff",
        merge_queue=False,
    )


# -- reviews -----------------------------------------------------------------------------------

_STATE_OF = {
    ReviewEvent.APPROVE: ReviewState.APPROVED,
    ReviewEvent.REQUEST_CHANGES: ReviewState.CHANGES_REQUESTED,
    ReviewEvent.COMMENT: ReviewState.COMMENTED,
}


#: What a person reading the note on GitLab sees of the verdict (the marker is hidden).
_SHOWN = {ReviewState.CHANGES_REQUESTED: "**Changes requested.**\n\n"}


def review_note(event: ReviewEvent, body: str, head: str) -> str:
    """The note a review is on GitLab: the hidden marker, a change request said in
    words, then its text."""
    state = _STATE_OF[event]
    return f"<!-- ralph:review {state.value} {head} -->\n{_SHOWN.get(state, '')}{body}"


def review_from_note(note: Mapping[str, Any]) -> Review | None:
    """A review Ralph wrote (None for any other note)."""
    if note.get(_SYSTEM):
        return None
    found = _MARKER.match(str(note.get("body") or ""))
    if found is None:
        return None
    state = ReviewState(found[1])
    return Review(
        id=str(note["id"]),
        author=_user(note.get("author")),
        state=state,
        body=str(note["body"])[found.end() :].removeprefix(_SHOWN.get(state, "")),
        submitted_at=epoch(note.get("created_at")) or 0.0,
        commit=found[2],
    )


def reviews_from(
    notes: Iterable[Mapping[str, Any]],
    approvals: Mapping[str, Any],
    reviewers: Iterable[Mapping[str, Any]] = (),
) -> tuple[Review, ...]:
    """Ralph's review notes, oldest first; an approval that was taken back since
    (unapprove) DISMISSED; and what people did on GitLab's page without a note of
    Ralph's: their approval, their "requested changes"."""
    approved_by = {_user(entry.get("user")): entry for entry in approvals.get("approved_by") or ()}
    found: list[Review] = []
    for note in notes:
        review = review_from_note(note)
        if review is None:
            continue
        if review.state is ReviewState.APPROVED and review.author not in approved_by:
            review = Review(
                id=review.id,
                author=review.author,
                state=ReviewState.DISMISSED,
                body=review.body,
                submitted_at=review.submitted_at,
                commit=review.commit,
            )
        found.append(review)
    noted = {(r.author, r.state) for r in found}
    for who, entry in approved_by.items():
        if (who, ReviewState.APPROVED) not in noted:
            found.append(
                Review(
                    id=f"approval-{who}",
                    author=who,
                    state=ReviewState.APPROVED,
                    submitted_at=epoch(entry.get("approved_at")) or 0.0,
                )
            )
    for reviewer in reviewers:
        who = _user(reviewer.get("user"))
        asked = (who, ReviewState.CHANGES_REQUESTED)
        if reviewer.get("state") == "requested_changes" and asked not in noted:
            found.append(
                Review(
                    id=f"requested-changes-{who}",
                    author=who,
                    state=ReviewState.CHANGES_REQUESTED,
                    submitted_at=epoch(reviewer.get("created_at")) or 0.0,
                )
            )
    return tuple(sorted(found, key=lambda r: r.submitted_at))


# -- threads -----------------------------------------------------------------------------------


def thread_comment_from(note: Mapping[str, Any]) -> ThreadComment:
    return ThreadComment(
        id=str(note["id"]),
        author=_user(note.get("author")),
        body=str(note.get("body") or ""),
        created_at=epoch(note.get("created_at")) or 0.0,
    )


def thread_from(
    discussion: Mapping[str, Any], hunk: Callable[[str, int], str] | None = None
) -> ReviewThread | None:
    """A discussion on a line of the diff as a review thread (None for a discussion
    that is not on the diff); ``hunk(path, line)``: the diff's lines around it, which
    GitLab's discussion does not carry."""
    notes = [n for n in discussion.get("notes") or () if not n.get(_SYSTEM)]
    if not notes:
        return None
    position = notes[0].get("position") or {}
    path = position.get("new_path") or position.get("old_path")
    if not path:
        return None
    line = position.get("new_line") or position.get("old_line")
    resolvable = [n for n in notes if n.get("resolvable")]
    return ReviewThread(
        id=str(discussion["id"]),
        path=str(path),
        line=int(line) if line is not None else None,
        resolved=bool(resolvable) and all(n.get("resolved") for n in resolvable),
        diff_hunk=hunk(str(path), int(line)) if hunk and line else "",
        comments=tuple(thread_comment_from(n) for n in notes),
    )


# -- the merge request -------------------------------------------------------------------------


def _merge_commit(mr: Mapping[str, Any]) -> str | None:
    """What the base holds of it: the merge commit, else the squash commit, else (a
    fast-forward) the head itself."""
    found = mr.get("merge_commit_sha") or mr.get("squash_commit_sha") or mr.get("sha")
    return str(found) if found else None


def pull_request_from(
    mr: Mapping[str, Any],
    *,
    checks: tuple[CheckRun, ...] = (),
    reviews: tuple[Review, ...] = (),
    threads: tuple[ReviewThread, ...] = (),
    approvals_required: int | None = None,
    closed_by: Callable[[str], tuple[int, ...]] | None = None,
) -> PullRequest:
    """The merge request ``mr`` (from a list: no checks, reviews or threads, and no
    judgement of them). ``approvals_required``: GitLab's approval rule (None: a summary;
    0: no rule, so no review decision, as on GitHub without protection)."""
    state = _PULL_STATES.get(str(mr.get("state")), PullRequestState.CLOSED)
    decision: ReviewDecision | None = None
    if approvals_required:
        decision = review_decision(reviews)
        approving = {r.author for r in reviews if r.state is ReviewState.APPROVED}
        if decision is ReviewDecision.APPROVED and len(approving) < approvals_required:
            decision = ReviewDecision.REVIEW_REQUIRED
    summary = approvals_required is None
    body = str(mr.get("description") or "")
    return PullRequest(
        number=int(mr["iid"]),
        title=one_line(str(mr["title"])),
        body=body,
        head=str(mr["source_branch"]),
        base=str(mr["target_branch"]),
        state=state,
        mergeable=None if summary else mergeable_from(mr),
        checks=checks,
        reviews=reviews,
        threads=threads,
        review_decision=decision,
        merge_state=None if summary else merge_state_from(mr, checks),
        head_oid=mr.get("sha"),
        author=_user(mr.get("author")),
        merge_commit=_merge_commit(mr) if state is PullRequestState.MERGED else None,
        created_at=epoch(mr.get("created_at")) or 0.0,
        merged_at=epoch(mr.get("merged_at")),
        url=str(mr.get("web_url") or ""),
        closing=closed_by(body) if closed_by else None,
    )
