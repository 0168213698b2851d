"""Merge (integrator; In Review): merge the pull request when the merge policy says so
(``ralph.workflow.judge_merge``: required checks, reviews, mergeability, the methods the
repository allows, a merge queue), then Done, the parent advanced, the worktree pruned.
No agent.

What is not ready yet waits (``Waiting``: checks running, mergeability being computed,
a review or a person's merge missing, the merge queue's turn) and is looked at again
later; feedback to address (a failed required check, a change request, review threads,
a head the merge queue removed: its checks failed there, or a person took it out) ends
the phase for an address round by the builder, with the queue's reason, rather than
enqueueing it again for ever; a conflict or a base that moved on is rebased once in the
worktree with the tests run again; anything else goes to a person in the host's words.

On the local tracker the one required check is the project's test command run on the
merge result; the merge runs it when the pull request's head has none recorded. A merge
names the head it decided on (``expected_head``); after any error the pull request is
read again, and MERGED is success whatever the error said. A pull request merged as a
commit the base no longer holds (a force-push over it) is opened again from its branch
and merged anew (``_merge_again``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ralph.errors import HeadMoved, MergeConflict, TrackerError
from ralph.phases._branches import project_tests
from ralph.phases._context import PhaseContext
from ralph.phases._control_hold import hold_control_changes
from ralph.phases._feedback import (
    address_rounds,
    found_pull_request,
    queue_refusal,
    review_members,
)
from ralph.phases._merge_again import open_again
from ralph.phases._merge_look import merge_on_base
from ralph.phases._merged import finish_merged, noted
from ralph.phases._phase import (
    AlreadyDone,
    Attempt,
    FeedbackToAddress,
    Impasse,
    NeedsHuman,
    Phase,
    PhaseRefused,
    Waiting,
)
from ralph.phases._required_check import required_check_of, run_required_check
from ralph.phases._train import conduct, rides_train, sent_back
from ralph.phases._train_riders import as_car
from ralph.phases._worktree_hooks import after_create
from ralph.project import record_ralph_merge
from ralph.tracker import Issue, MergeStrategy, PullRequest, PullRequestState
from ralph.workflow import (
    AddressFeedback,
    AlreadyMerged,
    Enqueue,
    EscalateMerge,
    MergeDecision,
    MergeNow,
    MergePolicy,
    RebaseFirst,
    WaitFor,
    WorkflowState,
    judge_merge,
)

__all__ = ["MergePhase"]

#: GitHub's words for a merge refused because the base moved during it: try again.
BASE_MODIFIED = "Base branch was modified"
#: Looks at the pull request in one run: a retry after a moved base or head, a rebase.
_LOOKS = 4
_RETRY_PAUSE_SECONDS = 1.0


class MergePhase(Phase):
    name = "merge"

    def members(self, ctx: PhaseContext, issue: Issue) -> list[Issue]:
        return review_members(ctx, issue, once=True)

    def check(self, ctx: PhaseContext, members: Sequence[Issue]) -> None:
        issue = members[0]
        pr = found_pull_request(ctx, issue)  # as members found it, in the same snapshot
        if pr is not None and pr.state is PullRequestState.MERGED:
            lost = not merge_on_base(ctx.project, pr)  # merged again by apply
            if not lost and all(noted(member, pr) for member in members):
                raise AlreadyDone(
                    f"pull request #{pr.number} for #{issue.number} is merged already"
                )
            return  # merged (by a person, or a run that crashed before its follow-ups)
        if pr is None:
            if issue.workflow_state is WorkflowState.DONE:
                raise AlreadyDone(f"#{issue.number} is Done already")
            raise PhaseRefused(
                f"no pull request closes #{issue.number}; run ralph run pr {issue.number} first"
            )
        git = ctx.project.git
        if not git.has_remote() and not git.has_branch(pr.head):  # a remote's is GitHub's
            n = issue.number
            raise Impasse(
                f"pull request #{pr.number} has nothing to merge: its branch {pr.head} no "
                f'longer exists; implement it again: ralph issue move {n} "In Progress", '
                f"then ralph hero {n} (or restore {pr.head} if you still have its commits)"
            )
        super().check(ctx, members)

    def apply(self, ctx: PhaseContext, members: Sequence[Issue], attempt: Attempt) -> None:
        found = found_pull_request(ctx, members[0])
        assert found is not None  # checked
        # Mergeability, checks and reviews read again after the issue's lock: what was
        # read before it may have changed (a person's review, a check failing on the head).
        pr = ctx.code_host.get_pull_request(found.number)
        if pr.state is PullRequestState.MERGED and not merge_on_base(ctx.project, pr):
            pr = open_again(ctx, pr, members[0].number)  # the base lost its merge
        if pr.state is PullRequestState.MERGED:  # by a person, or a run that crashed
            ctx.code_host.settle_merged(pr.number)
            merged = pr
        else:
            # Before any merge, however the branch got here (by hand, best of N, a push).
            before = ctx.project.git.resolve(f"refs/heads/{ctx.base}")
            merged, by_person = self._merge(ctx, members, pr)
            # Ralph's own: its ralph.toml is not a person's (a train records its own).
            if merged.merge_commit and not rides_train(ctx):
                config, store = ctx.project.config, ctx.project.store
                record_ralph_merge(
                    config, store, merged.merge_commit, before=before, by_person=by_person
                )
        finish_merged(ctx, merged, members)

    def _hold(self, ctx: PhaseContext, primary: Issue, pr: PullRequest) -> bool:
        git = ctx.project.git
        if git.has_remote():  # the base and head as the code host has them
            git.fast_forward_from(pr.base)
            git.fast_forward_from(pr.head)
        # Where the host merges here its head is read from this repository: here, surely.
        here = ctx.code_host.merges_here or (
            pr.head_oid and git.run("cat-file", "-e", f"{pr.head_oid}^{{commit}}").returncode == 0
        )
        head = pr.head_oid if pr.head_oid and here else ""
        return hold_control_changes(ctx, pr.head, primary.number, head=head, pr=pr.number)

    def _merge(
        self, ctx: PhaseContext, members: Sequence[Issue], pr: PullRequest
    ) -> tuple[PullRequest, bool]:
        """The merged pull request, and whether a person accepted the control files it
        changes. The head merged is the head held: a rebase or a push meanwhile is
        looked at again before it merges. In a run it merges as a merge train
        (``phases._train``), whose test run on what lands is the required check."""
        config = ctx.project.config
        host = ctx.code_host
        primary = members[0]
        rounds = address_rounds(primary, pr.number)
        rebased = False
        train = rides_train(ctx)
        by_person, held = self._hold(ctx, primary, pr), pr.head_oid
        for _ in range(_LOOKS):
            if train:
                self._sent_back(ctx, pr, rounds.used)
            else:
                pr = self._checked(ctx, pr)
            if pr.head_oid != held:
                by_person, held = self._hold(ctx, primary, pr), pr.head_oid
            decision: MergeDecision | None = judge_merge(
                as_car(ctx, pr) if train else pr,
                host.merge_settings(),
                policy=config.merge_policy,
                method=config.merge_method or None,
                rounds_used=rounds.used,
                max_rounds=config.max_fix_rounds,
                addressed_at=rounds.last_at,
                queue_refusal=queue_refusal(pr),
            )
            if isinstance(decision, MergeNow) and train:
                strategy = MergeStrategy(decision.method)
                conduct(ctx, pr, members, strategy, by_person=by_person)
                pr = ctx.merged.get(pr.number) or host.get_pull_request(pr.number)
                if pr.state is PullRequestState.MERGED:
                    return pr, by_person
                continue  # sent back, left out or moved: looked at again
            if isinstance(decision, MergeNow):
                outcome = self._merge_now(ctx, pr, MergeStrategy(decision.method))
                if isinstance(outcome, PullRequest):
                    return outcome, by_person
                decision = outcome
            if isinstance(decision, AlreadyMerged):
                host.settle_merged(pr.number)
                return pr, by_person
            if isinstance(decision, WaitFor):
                raise Waiting(
                    decision.reason, for_person=decision.for_person, detail=decision.detail
                )
            if isinstance(decision, AddressFeedback):
                raise FeedbackToAddress(pr.number, decision.reasons)
            if isinstance(decision, EscalateMerge):
                raise NeedsHuman(decision.reason)
            if isinstance(decision, Enqueue):
                host.enqueue_pull_request(pr.number, expected_head=pr.head_oid)
                ctx.say(f"Pull request #{pr.number} is in the merge queue.")
                raise Waiting("the merge queue", for_person=False)
            if isinstance(decision, RebaseFirst):
                if rebased:
                    raise NeedsHuman(f"{decision.reason}, still after rebasing it")
                self._rebase(ctx, pr)
                rebased = True
            pr = host.get_pull_request(pr.number)
        raise Waiting("the pull request to settle", for_person=False)

    def _merge_now(
        self, ctx: PhaseContext, pr: PullRequest, strategy: MergeStrategy
    ) -> PullRequest | RebaseFirst | None:
        """The merged pull request; a conflict to rebase; or None: look again (the base
        or the head moved meanwhile)."""
        host = ctx.code_host
        try:
            merged = host.merge_pull_request(pr.number, strategy, expected_head=pr.head_oid)
        except TrackerError as error:
            now = host.get_pull_request(pr.number)
            if now.state is PullRequestState.MERGED:  # it landed, whatever the answer said
                host.settle_merged(now.number)
                return now
            if isinstance(error, MergeConflict):
                return RebaseFirst(f"pull request #{pr.number} does not merge: {error}", True)
            if BASE_MODIFIED in str(error):
                time.sleep(_RETRY_PAUSE_SECONDS)
                return None
            if isinstance(error, HeadMoved):  # decide again on the new head
                return None
            raise NeedsHuman(f"pull request #{pr.number} did not merge: {error}") from None
        if strategy is not MergeStrategy.MERGE:
            ctx.say(f"Merged by {strategy.value}.")
        return merged

    def _sent_back(self, ctx: PhaseContext, pr: PullRequest, rounds_used: int) -> None:
        """A merge train sent ``pr`` back on this head: its builder addresses the
        failure, or a person once the fix rounds are used up."""
        rejection = sent_back(ctx, pr)
        if rejection is None:
            return
        max_rounds = ctx.project.config.max_fix_rounds
        if rounds_used < max_rounds:
            raise FeedbackToAddress(pr.number, (rejection.reason,))
        raise NeedsHuman(
            f"pull request #{pr.number} is not ready after {rounds_used} fix round(s) "
            f"(max_fix_rounds = {max_rounds}): {rejection.reason}"
        )

    def _checked(self, ctx: PhaseContext, pr: PullRequest) -> PullRequest:
        """``pr`` with the local required check run on its head when none is recorded
        (GitHub's checks come from its CI)."""
        config = ctx.project.config
        local = ctx.code_host.runs_own_checks and config.test_command.strip()
        if not local or config.merge_policy is MergePolicy.MANUAL or pr.mergeable is False:
            return pr
        if pr.state is not PullRequestState.OPEN or required_check_of(pr) is not None:
            return pr
        ran = run_required_check(ctx, pr.number)
        if not ran.recorded:  # it tested a head that is gone: test the new one later
            raise Waiting("checks (the branch moved while they ran)", for_person=False)
        verdict = "passes" if ran.check.passed else "fails"
        ctx.say(f"Ran the required check on pull request #{pr.number}'s merge result: {verdict}.")
        return ctx.code_host.get_pull_request(pr.number)

    def _rebase(self, ctx: PhaseContext, pr: PullRequest) -> None:
        """Rebase the branch onto the base once, in its worktree, and re-run the tests."""
        git = ctx.project.git
        if git.has_remote():  # onto the base as GitHub has it, from the branch as pushed
            git.fast_forward_from(pr.base)
            git.fast_forward_from(pr.head)
        made = ctx.worktrees.ensure(pr.head.removeprefix("feature/"), pr.head, pr.base)
        after_create(ctx, made.path)  # the tests below may need what it installs
        rebased = git.run("rebase", f"refs/heads/{pr.base}", cwd=made.path, env=git.identity_env())
        if rebased.returncode != 0:
            conflicted = git.run("diff", "--name-only", "--diff-filter=U", cwd=made.path)
            git.run("rebase", "--abort", cwd=made.path)
            files = ", ".join(conflicted.stdout.split()) or "unknown files"
            raise NeedsHuman(
                f"{pr.head} conflicts with {pr.base} and does not rebase cleanly ({files})"
            )
        tests = project_tests(ctx, made.path)
        if not tests.passed:
            raise NeedsHuman(
                f"{pr.head} rebased onto {pr.base} but the tests fail (`{tests.command}`): "
                f"{tests.tail}"
            )
        if git.has_remote():
            git.git("push", "--force-with-lease", "origin", pr.head, what=f"push {pr.head}")
        ctx.say(f"Rebased {pr.head} onto {pr.base}; the tests pass.")
