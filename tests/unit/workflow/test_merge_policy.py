"""The merge policy as a table: a pull request as the host shows it, the repository's
merge settings and the policy in, one decision out."""

from __future__ import annotations

import dataclasses

import pytest

from ralph.tracker import (
    CheckConclusion,
    CheckRun,
    CheckStatus,
    MergeSettings,
    MergeState,
    PullRequest,
    PullRequestState,
    Review,
    ReviewDecision,
    ReviewState,
    ReviewThread,
    ThreadComment,
)
from ralph.workflow import (
    AddressFeedback,
    AlreadyMerged,
    Enqueue,
    EscalateMerge,
    MergeNow,
    MergePolicy,
    RebaseFirst,
    WaitFor,
    choose_merge_method,
    judge_merge,
)

GREEN = CheckRun(name="test", conclusion=CheckConclusion.SUCCESS, required=True)
RED = CheckRun(
    name="test", conclusion=CheckConclusion.FAILURE, required=True, summary="E 1 != 2\n1 failed"
)
RUNNING = CheckRun(name="test", status=CheckStatus.IN_PROGRESS, required=True)
QUEUED_LINT = CheckRun(name="lint", status=CheckStatus.QUEUED, required=True)
OPTIONAL_RED = CheckRun(name="docs", conclusion=CheckConclusion.FAILURE)
OPTIONAL_RUNNING = CheckRun(name="slow", status=CheckStatus.IN_PROGRESS)

APPROVAL = Review(id="r1", author="alice", state=ReviewState.APPROVED, submitted_at=10.0)
CHANGES = Review(
    id="r2",
    author="bob",
    state=ReviewState.CHANGES_REQUESTED,
    body="Please rename x.\nAnd more.",
    submitted_at=20.0,
)
THREAD = ReviewThread(
    id="t1",
    path="src/app.py",
    line=3,
    comments=(ThreadComment(id="c1", author="bob", body="rename x", created_at=20.0),),
)
RESOLVED = dataclasses.replace(THREAD, id="t2", resolved=True)

ALL = MergeSettings()
NO_MERGE_COMMITS = MergeSettings(merge_commit=False)
ONLY_REBASE = MergeSettings(merge_commit=False, squash=False)
NONE_ALLOWED = MergeSettings(merge_commit=False, squash=False, rebase=False)
QUEUE = MergeSettings(merge_queue=True)


def pr(**changes: object) -> PullRequest:
    base = PullRequest(
        number=7,
        title="t",
        body="Closes #1",
        head="feature/GH-1",
        base="main",
        mergeable=True,
        merge_state=MergeState.CLEAN,
        review_decision=ReviewDecision.REVIEW_REQUIRED,
        checks=(GREEN,),
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def approved(**changes: object) -> PullRequest:
    return pr(review_decision=ReviewDecision.APPROVED, reviews=(APPROVAL,), **changes)


def case(
    name: str,
    pull: PullRequest,
    expected: object,
    *,
    rules: MergeSettings = ALL,
    policy: str = "checks",
    method: str | None = None,
    rounds: int = 0,
) -> object:
    return pytest.param(pull, rules, policy, method, rounds, expected, id=name)


CASES = [
    # -- checks policy: only required checks gate --------------------------------------
    case("green", pr(), MergeNow("merge")),
    case("optional red", pr(checks=(GREEN, OPTIONAL_RED)), MergeNow("merge")),
    case("optional pending", pr(checks=(GREEN, OPTIONAL_RUNNING)), MergeNow("merge")),
    case("no checks at all", pr(checks=()), MergeNow("merge")),
    case(
        "required pending",
        pr(checks=(RUNNING, QUEUED_LINT), merge_state=MergeState.BLOCKED),
        WaitFor("checks (2 pending)", False, "test, lint"),
    ),
    case(
        "required failed",
        pr(checks=(RED,), merge_state=MergeState.BLOCKED),
        AddressFeedback(("required check test failed: 1 failed",)),
    ),
    case(
        "required failed, rounds used",
        pr(checks=(RED,)),
        EscalateMerge(
            "pull request #7 is not ready after 2 fix round(s) (max_fix_rounds = 2): "
            "required check test failed: 1 failed"
        ),
        rounds=2,
    ),
    case(
        "failed beats pending",
        pr(checks=(RED, QUEUED_LINT)),
        AddressFeedback(("required check test failed: 1 failed",)),
    ),
    case(
        "checks ignores reviews",
        pr(reviews=(CHANGES,), threads=(THREAD,), review_decision=ReviewDecision.CHANGES_REQUESTED),
        MergeNow("merge"),
    ),
    # -- mergeability --------------------------------------------------------------------
    case(
        "mergeable unknown",
        pr(mergeable=None, merge_state=MergeState.UNKNOWN),
        WaitFor("mergeability", False),
    ),
    case(
        "mergeable none, state not said",
        pr(mergeable=None, merge_state=None),
        WaitFor("mergeability", False),
    ),
    case("mergeable, state not said", pr(merge_state=None), MergeNow("merge")),
    case(
        "conflicting",
        pr(mergeable=False, merge_state=MergeState.DIRTY),
        RebaseFirst("pull request #7 conflicts with its base (mergeable: CONFLICTING)", True),
    ),
    case(
        "dirty",
        pr(merge_state=MergeState.DIRTY),
        RebaseFirst("pull request #7 conflicts with its base (mergeable: CONFLICTING)", True),
        policy="approval",
    ),
    case(
        "behind",
        pr(merge_state=MergeState.BEHIND),
        RebaseFirst(
            "pull request #7 is behind its base (mergeStateStatus BEHIND) and the "
            "repository requires branches to be up to date",
            False,
        ),
    ),
    case(
        "unstable (optional red)",
        pr(merge_state=MergeState.UNSTABLE, checks=(GREEN, OPTIONAL_RED)),
        MergeNow("merge"),
    ),
    case("has hooks", pr(merge_state=MergeState.HAS_HOOKS), MergeNow("merge")),
    case(
        "blocked for no visible reason",
        pr(merge_state=MergeState.BLOCKED, review_decision=None),
        EscalateMerge(
            "pull request #7: the base branch policy prohibits the merge (mergeStateStatus BLOCKED)"
        ),
    ),
    case(
        "blocked before any check reported",
        pr(merge_state=MergeState.BLOCKED, checks=(), review_decision=None),
        WaitFor("checks (none reported yet)", False),
    ),
    case(
        "blocked by required review under checks",
        pr(merge_state=MergeState.BLOCKED),
        WaitFor("review", True, "an approving review"),
    ),
    case(
        "blocked by a change request under checks",
        pr(
            merge_state=MergeState.BLOCKED,
            reviews=(CHANGES,),
            review_decision=ReviewDecision.CHANGES_REQUESTED,
        ),
        AddressFeedback(("bob requests changes: Please rename x.",)),
    ),
    case(
        "draft", pr(merge_state=MergeState.DRAFT), WaitFor("a person to mark the draft ready", True)
    ),
    # -- approval policy -----------------------------------------------------------------
    case("no review yet", pr(), WaitFor("review", True, "an approving review"), policy="approval"),
    case("approved", approved(), MergeNow("merge"), policy="approval"),
    case(
        "approved but checks pending",
        approved(checks=(RUNNING,)),
        WaitFor("checks (1 pending)", False, "test"),
        policy="approval",
    ),
    case(
        "review missing and checks pending: checks first",
        pr(checks=(RUNNING,)),
        WaitFor("checks (1 pending)", False, "test"),
        policy="approval",
    ),
    case(
        "changes requested",
        pr(reviews=(CHANGES,), review_decision=ReviewDecision.CHANGES_REQUESTED),
        AddressFeedback(("bob requests changes: Please rename x.",)),
        policy="approval",
    ),
    case(
        "changes requested with a thread",
        pr(
            reviews=(CHANGES,),
            threads=(THREAD, RESOLVED),
            review_decision=ReviewDecision.CHANGES_REQUESTED,
        ),
        AddressFeedback(
            (
                "bob requests changes: Please rename x.",
                "unresolved review thread on src/app.py:3 (bob)",
            )
        ),
        policy="approval",
    ),
    case(
        "approved with an unresolved thread",
        approved(threads=(THREAD,)),
        AddressFeedback(("unresolved review thread on src/app.py:3 (bob)",)),
        policy="approval",
    ),
    case(
        "failed check and a change request: one round",
        pr(checks=(RED,), reviews=(CHANGES,), review_decision=ReviewDecision.CHANGES_REQUESTED),
        AddressFeedback(
            ("required check test failed: 1 failed", "bob requests changes: Please rename x.")
        ),
        policy="approval",
    ),
    case(
        "changes requested, rounds used",
        pr(reviews=(CHANGES,), review_decision=ReviewDecision.CHANGES_REQUESTED),
        EscalateMerge(
            "pull request #7 is not ready after 2 fix round(s) (max_fix_rounds = 2): "
            "bob requests changes: Please rename x."
        ),
        policy="approval",
        rounds=2,
    ),
    case(
        "resolved threads only", approved(threads=(RESOLVED,)), MergeNow("merge"), policy="approval"
    ),
    case(
        "the host has no review rule: the reviews decide",
        pr(review_decision=None, reviews=(APPROVAL,)),
        MergeNow("merge"),
        policy="approval",
    ),
    case(
        "no rule, no review",
        pr(review_decision=None),
        WaitFor("review", True, "an approving review"),
        policy="approval",
    ),
    case(
        "a later approval replaces the reviewer's change request",
        pr(
            review_decision=None,
            reviews=(
                CHANGES,
                dataclasses.replace(APPROVAL, id="r3", author="bob", submitted_at=30.0),
            ),
        ),
        MergeNow("merge"),
        policy="approval",
    ),
    case(
        "a comment does not replace a verdict",
        pr(
            review_decision=None,
            reviews=(
                CHANGES,
                Review(id="r4", author="bob", state=ReviewState.COMMENTED, submitted_at=40.0),
            ),
        ),
        AddressFeedback(("bob requests changes: Please rename x.",)),
        policy="approval",
    ),
    # -- manual policy -------------------------------------------------------------------
    case("manual", approved(), WaitFor("a person to merge", True), policy="manual"),
    case(
        "manual, merged by a person",
        approved(state=PullRequestState.MERGED),
        AlreadyMerged(),
        policy="manual",
    ),
    case(
        "closed",
        pr(state=PullRequestState.CLOSED),
        EscalateMerge("pull request #7 was closed without merging"),
    ),
    # -- methods and the queue -----------------------------------------------------------
    case("merge commits forbidden", pr(), MergeNow("squash"), rules=NO_MERGE_COMMITS),
    case("only rebase", pr(), MergeNow("rebase"), rules=ONLY_REBASE),
    case("method asked for and allowed", pr(), MergeNow("rebase"), method="rebase"),
    case(
        "method asked for, forbidden",
        pr(),
        EscalateMerge(
            "Merge commits are not allowed on this repository (merge_method = 'merge' in "
            "ralph.toml); it allows: squash, rebase"
        ),
        rules=NO_MERGE_COMMITS,
        method="merge",
    ),
    case(
        "nothing allowed",
        pr(),
        EscalateMerge("the repository allows no merge method (merge, squash or rebase)"),
        rules=NONE_ALLOWED,
    ),
    case("merge queue", pr(), Enqueue(), rules=QUEUE),
    case(
        "merge queue waits for checks first",
        pr(checks=(RUNNING,)),
        WaitFor("checks (1 pending)", False, "test"),
        rules=QUEUE,
    ),
]


@pytest.mark.parametrize(
    ("pull", "rules", "policy", "method", "rounds", "expected"),
    CASES,
)
def test_the_policy_decides(pull, rules, policy, method, rounds, expected):
    decision = judge_merge(
        pull, rules, policy=policy, method=method, rounds_used=rounds, max_rounds=2
    )
    assert decision == expected


def test_feedback_answered_in_the_last_round_waits_for_the_reviewer():
    after_round = pr(
        reviews=(CHANGES,), threads=(THREAD,), review_decision=ReviewDecision.CHANGES_REQUESTED
    )
    decision = judge_merge(after_round, ALL, policy="approval", rounds_used=1, addressed_at=25.0)
    assert decision == WaitFor("review", True, "the changes asked for are pushed")


def test_a_reviewer_answering_after_the_round_is_feedback_again():
    reply = ThreadComment(id="c2", author="bob", body="still wrong", created_at=30.0)
    thread = dataclasses.replace(THREAD, comments=(*THREAD.comments, reply))
    decision = judge_merge(
        pr(reviews=(CHANGES,), threads=(thread,), review_decision=ReviewDecision.CHANGES_REQUESTED),
        ALL,
        policy="approval",
        rounds_used=1,
        addressed_at=25.0,
    )
    assert decision == AddressFeedback(("unresolved review thread on src/app.py:3 (bob)",))


def test_a_new_change_request_after_the_round_is_feedback_again():
    again = dataclasses.replace(CHANGES, id="r5", body="No.", submitted_at=40.0)
    decision = judge_merge(
        pr(reviews=(CHANGES, again), review_decision=ReviewDecision.CHANGES_REQUESTED),
        ALL,
        policy="approval",
        rounds_used=1,
        addressed_at=25.0,
    )
    assert decision == AddressFeedback(("bob requests changes: No.",))


def test_a_failed_check_counts_whatever_the_round():
    """A check reruns on each push: failing on the current head is new feedback."""
    decision = judge_merge(pr(checks=(RED,)), ALL, policy="checks", rounds_used=1, addressed_at=99)
    assert decision == AddressFeedback(("required check test failed: 1 failed",))


def test_a_dismissed_review_counts_for_nothing():
    dismissed = dataclasses.replace(CHANGES, id="r6", state=ReviewState.DISMISSED, submitted_at=50)
    decision = judge_merge(
        pr(review_decision=None, reviews=(APPROVAL, CHANGES, dismissed)), ALL, policy="approval"
    )
    assert decision == MergeNow("merge")


def test_long_feedback_is_cut_to_one_line():
    body = "x" * 300
    decision = judge_merge(
        pr(
            reviews=(dataclasses.replace(CHANGES, body=body),),
            review_decision=ReviewDecision.CHANGES_REQUESTED,
        ),
        ALL,
        policy="approval",
    )
    assert isinstance(decision, AddressFeedback)
    assert len(decision.reasons[0]) < 160
    assert decision.reasons[0].endswith("…")


def test_a_head_the_merge_queue_removed_goes_back_to_the_builder_not_into_the_queue():
    refused = "Required status check test failed in the merge group"
    decision = judge_merge(pr(), QUEUE, policy="checks", queue_refusal=refused)
    assert decision == AddressFeedback((f"the merge queue removed it: {refused}",))
    silent = judge_merge(pr(), QUEUE, policy="checks", queue_refusal="")
    assert silent == AddressFeedback(("the merge queue removed it",))


def test_a_head_the_merge_queue_keeps_removing_goes_to_a_person_after_the_rounds():
    decision = judge_merge(pr(), QUEUE, policy="checks", rounds_used=2, queue_refusal="CI failed")
    assert decision == EscalateMerge(
        "pull request #7 is not ready after 2 fix round(s) (max_fix_rounds = 2): "
        "the merge queue removed it: CI failed"
    )


def test_the_method_choice_prefers_merge_then_squash_then_rebase():
    assert choose_merge_method(ALL) == MergeNow("merge")
    assert choose_merge_method(NO_MERGE_COMMITS) == MergeNow("squash")
    assert choose_merge_method(ONLY_REBASE) == MergeNow("rebase")
    assert choose_merge_method(ONLY_REBASE, "rebase") == MergeNow("rebase")
    assert isinstance(choose_merge_method(ONLY_REBASE, "squash"), EscalateMerge)


def test_policies_by_name():
    assert [p.value for p in MergePolicy] == ["checks", "approval", "manual"]
    with pytest.raises(ValueError, match="sometimes"):
        judge_merge(pr(), ALL, policy="sometimes")
