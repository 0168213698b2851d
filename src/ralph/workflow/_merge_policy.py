"""The merge policy: whether a pull request merges now, and if not, what happens instead.

``judge_merge`` reads what the host says of an open pull request (its required checks,
reviews, review threads, ``mergeable``, ``mergeStateStatus`` and the repository's merge
settings) and decides one thing: merge now (with which method), enqueue it, wait (for
checks, for mergeability, for a person), have the builder address feedback, rebase it,
or hand it to a person in the host's own words. Pure: the merge phase does the I/O.

It reads pull requests through protocols, so the tracker's records (``ralph.tracker``,
a layer above) fit without this core importing them. Only required checks gate; a
failed one, a change request or an unresolved review thread is feedback for the builder
(``AddressFeedback``) while fix rounds remain, then a person's. Feedback given before
the last fix round (``addressed_at``) is answered already: the reviewer has the next
word, so the merge waits for them instead of addressing it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ralph.workflow._merge_settings import MERGE_METHODS, MergePolicy

__all__ = [
    "AddressFeedback",
    "AlreadyMerged",
    "Enqueue",
    "EscalateMerge",
    "MergeDecision",
    "MergeNow",
    "OpenFeedback",
    "RebaseFirst",
    "WaitFor",
    "choose_merge_method",
    "judge_merge",
    "open_feedback",
]

# -- what the policy reads (the tracker's records have these fields) --------------------


class CheckFacts(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def required(self) -> bool: ...
    @property
    def pending(self) -> bool: ...
    @property
    def failed(self) -> bool: ...
    @property
    def summary(self) -> str: ...


class ReviewFacts(Protocol):
    @property
    def author(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def body(self) -> str: ...
    @property
    def submitted_at(self) -> float: ...


class CommentFacts(Protocol):
    @property
    def author(self) -> str: ...
    @property
    def body(self) -> str: ...
    @property
    def created_at(self) -> float: ...


class ThreadFacts(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int | None: ...
    @property
    def resolved(self) -> bool: ...
    @property
    def diff_hunk(self) -> str: ...
    @property
    def comments(self) -> Sequence[CommentFacts]: ...


class PullRequestFacts(Protocol):
    @property
    def number(self) -> int: ...
    @property
    def state(self) -> str: ...
    @property
    def mergeable(self) -> bool | None: ...
    @property
    def checks(self) -> Sequence[CheckFacts]: ...
    @property
    def reviews(self) -> Sequence[ReviewFacts]: ...
    @property
    def threads(self) -> Sequence[ThreadFacts]: ...
    @property
    def review_decision(self) -> str | None: ...
    @property
    def merge_state(self) -> str | None: ...


class MergeRules(Protocol):
    @property
    def merge_commit(self) -> bool: ...
    @property
    def squash(self) -> bool: ...
    @property
    def rebase(self) -> bool: ...
    @property
    def merge_queue(self) -> bool: ...


# -- what it decides ----------------------------------------------------------------------


@dataclass(frozen=True)
class MergeNow:
    method: str


@dataclass(frozen=True)
class Enqueue:
    """The repository merges through a merge queue: enqueue, then wait for it."""


@dataclass(frozen=True)
class WaitFor:
    """Not ready yet; nothing is wrong. ``reason`` is what the merge waits for."""

    reason: str
    for_person: bool
    detail: str = ""


@dataclass(frozen=True)
class AddressFeedback:
    """Failing required checks, change requests or review threads for the builder,
    one line each (the address phase reads the pull request itself for the whole text)."""

    reasons: tuple[str, ...]


@dataclass(frozen=True)
class EscalateMerge:
    """Only a person can go on; ``reason`` keeps the host's own words."""

    reason: str


@dataclass(frozen=True)
class RebaseFirst:
    """The branch must be brought onto its base before it can merge: it conflicts
    (CONFLICTING / DIRTY) or the host wants it up to date (BEHIND)."""

    reason: str
    conflict: bool


@dataclass(frozen=True)
class AlreadyMerged:
    """Merged already (by a person, a queue, or a run that crashed before its notes)."""


MergeDecision = (
    MergeNow | Enqueue | WaitFor | AddressFeedback | EscalateMerge | RebaseFirst | AlreadyMerged
)


def choose_merge_method(rules: MergeRules, wanted: str | None = None) -> MergeNow | EscalateMerge:
    """``wanted`` (``merge_method`` in ralph.toml) when the repository allows it, else the
    first it allows of merge, squash, rebase."""
    allowed = [
        method
        for method, ok in zip(
            MERGE_METHODS, (rules.merge_commit, rules.squash, rules.rebase), strict=True
        )
        if ok
    ]
    if wanted:
        if wanted in allowed:
            return MergeNow(wanted)
        words = {"merge": "Merge commits", "squash": "Squash merges", "rebase": "Rebase merges"}
        return EscalateMerge(
            f"{words.get(wanted, wanted)} are not allowed on this repository "
            f"(merge_method = {wanted!r} in ralph.toml); it allows: "
            f"{', '.join(allowed) or 'none'}"
        )
    if not allowed:
        return EscalateMerge("the repository allows no merge method (merge, squash or rebase)")
    return MergeNow(allowed[0])


def _first_line(text: str, limit: int = 120) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _latest_reviews(reviews: Sequence[ReviewFacts]) -> list[ReviewFacts]:
    """Each author's latest review that approves or requests changes (a comment does not
    change a reviewer's verdict; a dismissed review counts for nothing)."""
    latest: dict[str, ReviewFacts] = {}
    for review in sorted(reviews, key=lambda r: r.submitted_at):
        if review.state in ("APPROVED", "CHANGES_REQUESTED"):
            latest[review.author] = review
        elif review.state == "DISMISSED":
            latest.pop(review.author, None)
    return list(latest.values())


def review_decision(pr: PullRequestFacts) -> str:
    """The host's ``reviewDecision``, or where it has no rule, GitHub's reading of the
    reviews: any outstanding change request, else any approval, else review required."""
    if pr.review_decision:
        return pr.review_decision
    states = {review.state for review in _latest_reviews(pr.reviews)}
    if "CHANGES_REQUESTED" in states:
        return "CHANGES_REQUESTED"
    return "APPROVED" if "APPROVED" in states else "REVIEW_REQUIRED"


def _since(at: float, addressed_at: float | None) -> bool:
    return addressed_at is None or at > addressed_at


@dataclass(frozen=True)
class OpenFeedback:
    """What the builder has to address on a pull request now."""

    #: Required checks that failed on the current head.
    checks: tuple[CheckFacts, ...] = ()
    #: Reviewers' change requests nobody has answered (newer than the last round).
    change_requests: tuple[ReviewFacts, ...] = ()
    #: Unresolved review threads with a comment newer than the last round.
    threads: tuple[ThreadFacts, ...] = ()

    def reasons(self) -> list[str]:
        """One line per item, for reports and escalations."""
        found = [
            f"required check {check.name} failed"
            + (f": {_first_line(check.summary.strip().splitlines()[-1])}" if check.summary else "")
            for check in self.checks
        ]
        found += [
            f"{review.author} requests changes"
            + (f": {_first_line(review.body)}" if review.body.strip() else "")
            for review in self.change_requests
        ]
        for thread in self.threads:
            where = f"{thread.path}:{thread.line}" if thread.line else thread.path
            found.append(f"unresolved review thread on {where} ({thread.comments[0].author})")
        return found


def open_feedback(
    pr: PullRequestFacts, addressed_at: float | None = None, *, reviews: bool = True
) -> OpenFeedback:
    """The failing required checks of ``pr`` and, with ``reviews``, its change requests
    and unresolved threads nobody has answered since the last address round (at
    ``addressed_at``): what a reviewer wrote before it is answered already."""
    checks = tuple(check for check in pr.checks if check.required and check.failed)
    if not reviews:
        return OpenFeedback(checks=checks)
    requests = tuple(
        review
        for review in _latest_reviews(pr.reviews)
        if review.state == "CHANGES_REQUESTED" and _since(review.submitted_at, addressed_at)
    )
    threads = tuple(
        thread
        for thread in pr.threads
        if not thread.resolved
        and thread.comments
        and _since(thread.comments[-1].created_at, addressed_at)
    )
    return OpenFeedback(checks, requests, threads)


def judge_merge(
    pr: PullRequestFacts,
    rules: MergeRules,
    *,
    policy: MergePolicy | str,
    method: str | None = None,
    rounds_used: int = 0,
    max_rounds: int = 2,
    addressed_at: float | None = None,
    queue_refusal: str | None = None,
) -> MergeDecision:
    """What to do with ``pr`` now. ``method`` is ralph.toml's ``merge_method`` (None:
    the repository's first); ``rounds_used`` address rounds have run on it (the last at
    ``addressed_at``), of ``max_rounds``. ``queue_refusal``: why the merge queue
    removed this head of it ("" when it gave no reason): the builder's to address, not
    enqueued again as it is (the queue would drop it again, and the merge wait for ever)."""
    policy = MergePolicy(policy)
    number = pr.number
    if pr.state == "merged":
        return AlreadyMerged()
    if pr.state != "open":
        return EscalateMerge(f"pull request #{number} was closed without merging")
    if pr.merge_state == "DRAFT":
        return WaitFor("a person to mark the draft ready", for_person=True)
    if policy is MergePolicy.MANUAL:
        return WaitFor("a person to merge", for_person=True)
    chosen = choose_merge_method(rules, method)
    if isinstance(chosen, EscalateMerge) and not rules.merge_queue:
        return chosen
    if pr.mergeable is False or pr.merge_state == "DIRTY":
        return RebaseFirst(
            f"pull request #{number} conflicts with its base (mergeable: CONFLICTING)",
            conflict=True,
        )

    failing = open_feedback(pr, reviews=False).checks
    pending = [check for check in pr.checks if check.required and check.pending]
    # Under the checks policy reviews count only where the host blocks the merge for
    # them (branch protection): BLOCKED with no required check to explain it.
    blocked_by_reviews = pr.merge_state == "BLOCKED" and not failing and not pending
    reviews_gate = policy is MergePolicy.APPROVAL or blocked_by_reviews
    feedback = open_feedback(pr, addressed_at, reviews=reviews_gate).reasons()
    if feedback:
        if rounds_used < max_rounds:
            return AddressFeedback(tuple(feedback))
        return EscalateMerge(
            f"pull request #{number} is not ready after {rounds_used} fix round(s) "
            f"(max_fix_rounds = {max_rounds}): {'; '.join(feedback)}"
        )
    if pending:
        return WaitFor(
            f"checks ({len(pending)} pending)",
            for_person=False,
            detail=", ".join(check.name for check in pending),
        )
    if reviews_gate and (policy is MergePolicy.APPROVAL or pr.review_decision):
        decision = review_decision(pr)
        if decision == "CHANGES_REQUESTED":
            return WaitFor("review", for_person=True, detail="the changes asked for are pushed")
        if decision != "APPROVED":
            return WaitFor("review", for_person=True, detail="an approving review")
    if pr.mergeable is None or pr.merge_state == "UNKNOWN":  # the host is computing it
        return WaitFor("mergeability", for_person=False)
    if pr.merge_state == "BEHIND":
        return RebaseFirst(
            f"pull request #{number} is behind its base (mergeStateStatus BEHIND) and the "
            "repository requires branches to be up to date",
            conflict=False,
        )
    if pr.merge_state == "BLOCKED":
        if not pr.checks:  # a required check not reported yet: CI has not started
            return WaitFor("checks (none reported yet)", for_person=False)
        return EscalateMerge(
            f"pull request #{number}: the base branch policy prohibits the merge "
            "(mergeStateStatus BLOCKED)"
        )
    if rules.merge_queue:
        if queue_refusal is None:
            return Enqueue()
        why = "the merge queue removed it" + (f": {queue_refusal}" if queue_refusal else "")
        if rounds_used < max_rounds:
            return AddressFeedback((why,))
        return EscalateMerge(
            f"pull request #{number} is not ready after {rounds_used} fix round(s) "
            f"(max_fix_rounds = {max_rounds}): {why}"
        )
    assert isinstance(chosen, MergeNow)
    return chosen
