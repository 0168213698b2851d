"""Code review (validator; In Review, with ``review_code = true``): the agent reviews the
pull request's diff in a checkout of its branch, and Ralph posts the verdict as a real
review of the pull request: APPROVE, or REQUEST_CHANGES with inline comments, each of
which opens a review thread the builder's address round answers. The issues stay In
Review; the merge policy reads the review like anyone's.

A review is given on a head commit, and the review's body names it: the phase is done
for a head once such a review is there (a rerun after a crash posts none again), and a
new commit (an address round) is reviewed again.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ralph._secrets import redact
from ralph.errors import InvalidInput
from ralph.phases._context import PhaseContext
from ralph.phases._feedback import pull_request_for, review_members
from ralph.phases._phase import AlreadyDone, Attempt, Phase, PhaseRefused, Workspace
from ralph.phases._schemas import TEXT, result_schema
from ralph.runtimes import AgentResult, Feedback
from ralph.tracker import Issue, PullRequest, PullRequestState, ReviewComment, ReviewEvent

__all__ = ["CodeReviewPhase", "review_mark"]

#: How GitHub words its refusal of a review by the pull request's own author.
_OWN = "your own pull request"
#: Verdicts the agent may give, as the host's review events.
_VERDICTS = (ReviewEvent.APPROVE.value, ReviewEvent.REQUEST_CHANGES.value)


def review_mark(head: str) -> str:
    """What ends Ralph's review of the head commit ``head``."""
    return f"(Ralph's code review of {head[:7]})"


def _open_request(ctx: PhaseContext, issue: Issue) -> PullRequest:
    found = pull_request_for(ctx, issue)
    if found is None:
        n = issue.number
        raise PhaseRefused(f"no pull request closes #{n}; run ralph run pr {n} first")
    return ctx.code_host.get_pull_request(found.number)


def _head(ctx: PhaseContext, pr: PullRequest) -> str:
    return pr.head_oid or ctx.project.git.resolve(f"refs/heads/{pr.head}")


def _reviewed(ctx: PhaseContext, pr: PullRequest) -> bool:
    mark = review_mark(_head(ctx, pr))
    return any(mark in review.body for review in pr.reviews)


class CodeReviewPhase(Phase):
    name = "code_review"
    result_schema = result_schema(
        ["verdict", "body"],
        {
            "verdict": {"enum": list(_VERDICTS)},
            "body": TEXT,
            "comments": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["path", "line", "body"],
                    "properties": {
                        "path": TEXT,
                        "line": {"type": "integer", "minimum": 1},
                        "body": TEXT,
                    },
                },
            },
        },
    )

    def members(self, ctx: PhaseContext, issue: Issue) -> list[Issue]:
        return review_members(ctx, issue)

    def check(self, ctx: PhaseContext, members: Sequence[Issue]) -> None:
        issue = members[0]
        pr = _open_request(ctx, issue)
        if pr.state is PullRequestState.MERGED:
            raise AlreadyDone(f"pull request #{pr.number} for #{issue.number} is merged already")
        super().check(ctx, members)
        if _reviewed(ctx, pr):
            raise AlreadyDone(
                f"pull request #{pr.number} is reviewed already at {_head(ctx, pr)[:7]}; "
                f"next: ralph run merge {issue.number}"
            )

    def _changed(self, ctx: PhaseContext, pr: PullRequest) -> list[str]:
        return ctx.project.git.changed_files(pr.base, pr.head)

    def feedback(self, ctx: PhaseContext, members: Sequence[Issue]) -> tuple[Feedback, ...]:
        pr = _open_request(ctx, members[0])
        diff = ctx.project.git.git(
            "diff", f"refs/heads/{pr.base}...refs/heads/{pr.head}", what="diff the pull request"
        )
        where = f"pull request #{pr.number} ({pr.base}...{pr.head})"
        return (Feedback(kind="diff", where=where, text=diff or "(no changes)"),)

    @contextmanager
    def workspace(self, ctx: PhaseContext, members: Sequence[Issue]) -> Iterator[Workspace]:
        pr = _open_request(ctx, members[0])
        with ctx.worktrees.scratch(f"code-review-GH-{members[0].number}", pr.head) as path:
            yield Workspace(
                path,
                facts={
                    "date": ctx.day.isoformat(),
                    "branch": pr.head,
                    "base_branch": pr.base,
                    "pull_request": f"#{pr.number}",
                    "changed_files": ", ".join(self._changed(ctx, pr)),
                },
            )

    def validate(
        self, ctx: PhaseContext, members: Sequence[Issue], space: Workspace, result: AgentResult
    ) -> list[str]:
        changed = set(space.facts["changed_files"].split(", "))
        payload = result.result or {}
        stray = sorted({c["path"] for c in payload.get("comments", [])} - changed)
        if stray:
            return [
                f"inline comments on files the pull request does not change: {', '.join(stray)} "
                f"(it changes {space.facts['changed_files'] or 'nothing'})"
            ]
        return []

    def apply(self, ctx: PhaseContext, members: Sequence[Issue], attempt: Attempt) -> None:
        pr = _open_request(ctx, members[0])
        verdict = ReviewEvent(attempt.result["verdict"])
        head = _head(ctx, pr)
        if not _reviewed(ctx, pr):
            comments = [
                ReviewComment(path=c["path"], line=int(c["line"]), body=redact(c["body"]))
                for c in attempt.result.get("comments", [])
            ]
            body = redact(f"{attempt.result['body'].strip()}\n\n{review_mark(head)}")
            try:
                ctx.code_host.submit_review(pr.number, verdict, body, comments=comments)
            except InvalidInput as refused:
                if _OWN not in str(refused):
                    raise
                # GitHub: the account that opened a pull request cannot approve it or ask
                # for changes. The verdict goes in a comment; its inline comments still
                # open threads the builder addresses, and an approval needs a person.
                said = f"Verdict: {verdict.value}\n\n{body}"
                ctx.code_host.submit_review(pr.number, ReviewEvent.COMMENT, said, comments=comments)
                ctx.say(
                    "GitHub lets only another account approve or request changes: the "
                    "verdict is posted as a comment review."
                )
        said = "approves" if verdict is ReviewEvent.APPROVE else "requests changes"
        inline = len(attempt.result.get("comments", []))
        ctx.say(
            f"Reviewed pull request #{pr.number} at {head[:7]}: {said}"
            + (f", {inline} inline comment(s)" if inline else "")
            + f"; next: ralph run merge {members[0].number}"
        )
