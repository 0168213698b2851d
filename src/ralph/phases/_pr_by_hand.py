"""A person's part in a pull request: their review (``ralph pr review``) and their merge
(``ralph pr merge``), after which Ralph finishes the issues' pipeline as the merge phase
would (``_merged``)."""

from __future__ import annotations

import os

from ralph._text import check_text
from ralph.errors import InvalidInput, IssueNotFound, PullRequestNotOpen
from ralph.git import GitRepo
from ralph.phases._context import PhaseContext
from ralph.phases._merged import finish_merged, noted
from ralph.project import Project
from ralph.tracker import (
    Issue,
    MergeSettings,
    MergeStrategy,
    PullRequest,
    PullRequestState,
    Review,
    ReviewComment,
    ReviewEvent,
)

__all__ = ["allowed_methods", "merge_by_hand", "person_name", "review_by_hand"]


def person_name(git: GitRepo) -> str:
    """Who a person's review is by: git's ``user.name``, else the login ($USER)."""
    configured = git.run("config", "user.name").stdout.strip()
    name = configured or os.environ.get("USER", "").strip()
    if not name:
        raise InvalidInput(
            "cannot tell who you are: set git's user.name (git config user.name 'Your Name')"
        )
    return name


def review_by_hand(
    project: Project,
    number: int,
    event: ReviewEvent,
    text: str = "",
    *,
    path: str | None = None,
    line: int | None = None,
) -> Review:
    """A person's review of pull request ``number``; with ``path`` and ``line`` the text
    also opens a thread on that line."""
    if (path is None) != (line is None):
        raise InvalidInput("give --file and --line together: the line of that file to discuss")
    if line is not None and line < 1:
        raise InvalidInput(f"--line {line} is not a line; lines start at 1")
    if event is not ReviewEvent.APPROVE or text:
        check_text(text, "the review's text")
    if path is not None and event is ReviewEvent.APPROVE:
        raise InvalidInput("an approval has no text to put on a line; use --comment with --file")
    comments: tuple[ReviewComment, ...] = ()
    if path is not None and line is not None:
        comments = (ReviewComment(path=path, line=line, body=text),)
    author = person_name(project.git)
    return project.code_host.submit_review(number, event, text, comments=comments, author=author)


def allowed_methods(settings: MergeSettings) -> list[MergeStrategy]:
    """The merge methods the repository allows, merge first (the preferred order)."""
    allowed = {
        MergeStrategy.MERGE: settings.merge_commit,
        MergeStrategy.SQUASH: settings.squash,
        MergeStrategy.REBASE: settings.rebase,
    }
    return [method for method, ok in allowed.items() if ok]


def _closed_by(ctx: PhaseContext, pr: PullRequest) -> list[Issue]:
    found = []
    for number in pr.closes:
        try:
            found.append(ctx.tracker.get_issue(number))
        except IssueNotFound:
            continue
    return found


def merge_by_hand(
    ctx: PhaseContext, number: int, method: MergeStrategy | None = None
) -> PullRequest:
    """Merge pull request ``number`` as a person would (``method``, else the first the
    repository allows) on the head read now, then finish its issues' pipeline; where
    merges queue, it joins the queue (still open: the merge phase finishes it once it
    merged). A merged one whose follow-ups a crash cut short is finished; one already
    finished, or closed, is refused."""
    host = ctx.code_host
    pr = host.get_pull_request(number)
    if pr.state is PullRequestState.MERGED:
        members = _closed_by(ctx, pr)
        if all(noted(issue, pr) for issue in members):
            raise PullRequestNotOpen(number, pr.state.value)
        host.settle_merged(number)
        finish_merged(ctx, pr, members)
        return pr
    if pr.state is not PullRequestState.OPEN:
        raise PullRequestNotOpen(number, pr.state.value)
    settings = host.merge_settings()
    allowed = allowed_methods(settings)
    if method is None:
        if not allowed:
            raise InvalidInput("the repository allows no merge method; allow one in its settings")
        method = allowed[0]
    elif method not in allowed:
        listed = ", ".join(m.value for m in allowed) or "none"
        raise InvalidInput(f"the repository does not allow {method.value} merges; use {listed}")
    if settings.merge_queue:  # merges go through the queue there: no way around it
        return host.enqueue_pull_request(number, expected_head=pr.head_oid)
    merged = host.merge_pull_request(number, method, expected_head=pr.head_oid)
    finish_merged(ctx, merged, _closed_by(ctx, merged))
    return merged
