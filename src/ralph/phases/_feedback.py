"""The pull request an issue is in review on, and the feedback on it the builder is to
address: failing required checks, change requests and unresolved review threads.

Address rounds are counted from the issues' own comments (``## Review Feedback
Addressed``, one per round, posted last): the count survives crashes and restarts, and
the time of the last one says which feedback was answered already (what a reviewer
wrote after it is new).
"""

from __future__ import annotations

from ralph.phases._context import PhaseContext
from ralph.runtimes import Feedback
from ralph.tracker import Issue, PullRequest, PullRequestState, ReviewThread
from ralph.workflow import open_feedback

__all__ = [
    "ROUND_HEADER",
    "AddressRounds",
    "address_rounds",
    "feedback_on",
    "found_pull_request",
    "pull_request_for",
    "queue_refusal",
    "review_members",
    "round_note",
]

#: How the note that ends an address round begins.
ROUND_HEADER = "## Review Feedback Addressed"


def pull_request_for(ctx: PhaseContext, issue: Issue) -> PullRequest | None:
    """The issue's latest pull request that is open or merged. The issue names the pull
    requests that close it (GitHub: those into the default branch), so those are read
    one by one; only an issue that names none has every pull request listed (on GitHub
    a scan of all of them)."""
    for number in reversed(issue.pull_requests):
        linked = ctx.code_host.get_pull_request(number)
        if linked.state is not PullRequestState.CLOSED and issue.number in linked.closes:
            return linked
    found = [
        pr
        for pr in ctx.code_host.list_pull_requests(issue=issue.number)
        if pr.state is not PullRequestState.CLOSED
    ]
    return found[-1] if found else None


def found_pull_request(ctx: PhaseContext, issue: Issue) -> PullRequest | None:
    """``pull_request_for``, looked up once a phase run (``PhaseContext``): for what a
    run only needs to find, not to judge afresh."""
    found = ctx.found_pull_requests
    if issue.number not in found:
        found[issue.number] = pull_request_for(ctx, issue)
    return found[issue.number]


def review_members(ctx: PhaseContext, issue: Issue, *, once: bool = False) -> list[Issue]:
    """The issue and every other issue its pull request closes (a group's one PR);
    ``once``: the pull request as this phase run found it (``found_pull_request``)."""
    pr = found_pull_request(ctx, issue) if once else pull_request_for(ctx, issue)
    if pr is None:
        return [issue]
    others = [ctx.tracker.get_issue(n) for n in pr.closes if n != issue.number]
    return [issue, *others]


def round_note(pr: int, round_: int) -> str:
    """The first line of round ``round_``'s note after its header."""
    return f"Pull request #{pr}, round {round_}:"


class AddressRounds:
    """The address rounds run on one pull request, from an issue's comments."""

    def __init__(self, issue: Issue, pr: int) -> None:
        times = [
            c.created_at
            for c in issue.comments
            if c.body.startswith(ROUND_HEADER) and f"\nPull request #{pr}, round " in c.body
        ]
        self.used = len(times)
        self.last_at: float | None = max(times) if times else None


def address_rounds(issue: Issue, pr: int) -> AddressRounds:
    return AddressRounds(issue, pr)


def _thread_text(thread: ReviewThread) -> str:
    where = f"{thread.path} line {thread.line}" if thread.line else thread.path
    parts = [f"On {where}:"]
    if thread.diff_hunk.strip():
        parts.append(thread.diff_hunk.rstrip())
    parts += ["", *(f"{c.author} wrote:\n{c.body.strip()}\n" for c in thread.comments)]
    return "\n".join(parts).strip()


def queue_refusal(pr: PullRequest) -> str | None:
    """Why the merge queue removed ``pr`` as it is now ("" when it gave no reason;
    None: it did not, or it removed an older head: a push since is queued again)."""
    if pr.queue_removal is None or pr.queue_removal_head not in (None, pr.head_oid):
        return None
    return pr.queue_removal


def feedback_on(pr: PullRequest, addressed_at: float | None) -> tuple[Feedback, ...]:
    """What the builder is to address on ``pr``, as the merge policy counts it: its
    failing required checks (their logs' end), the change requests and unresolved
    threads nobody has answered since the last round (``addressed_at``), and the merge
    queue's reason for removing its head."""
    found = open_feedback(pr, addressed_at)
    threads = {thread.id: thread for thread in pr.threads}
    refused = queue_refusal(pr)
    return (
        *(
            (Feedback(kind="check", where="the merge queue", text=refused or "(no reason given)"),)
            if refused is not None
            else ()
        ),
        *(
            Feedback(kind="check", where=f"check {c.name}", text=c.summary or "(no log)")
            for c in found.checks
        ),
        *(
            Feedback(kind="review", where=f"review by {r.author}", text=r.body or "(no text)")
            for r in found.change_requests
        ),
        *(
            Feedback(
                kind="thread",
                where=f"{t.path}:{t.line}" if t.line else t.path,
                text=_thread_text(threads[t.id]),
                id=t.id,
            )
            for t in found.threads
        ),
    )
