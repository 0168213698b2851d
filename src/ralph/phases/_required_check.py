"""The local code host's required check: the project's test command, run on what the pull
request would merge (its head merged into its base, in a throwaway checkout, sandboxed
like every test run, after the worktree's ``after_create`` hook), recorded as the check
run ``test`` on the head commit it tested. GitHub's checks come from its CI instead."""

from __future__ import annotations

from dataclasses import dataclass

from ralph.errors import InvalidInput, MergeConflict, PullRequestNotOpen
from ralph.phases._branches import project_tests
from ralph.phases._context import PhaseContext
from ralph.phases._worktree_hooks import after_create
from ralph.project import TEST_CHECK
from ralph.tracker import CheckConclusion, CheckRun, PullRequest, PullRequestState

__all__ = ["RequiredCheck", "required_check_of", "run_required_check"]


@dataclass(frozen=True)
class RequiredCheck:
    check: CheckRun
    #: The head commit it tested.
    head_oid: str
    #: False when the branch moved while the tests ran: the result is of an old head,
    #: so it was not recorded (run it again).
    recorded: bool


def required_check_of(pr: PullRequest) -> CheckRun | None:
    """The required check recorded on the pull request's current head, if any."""
    return next((check for check in pr.checks if check.name == TEST_CHECK), None)


def run_required_check(ctx: PhaseContext, number: int) -> RequiredCheck:
    """Run the required check of pull request ``number`` now and record it.
    InvalidInput when the project has no test command (then nothing is required) or the
    branch is gone; MergeConflict when there is no merge result to test."""
    project = ctx.project
    if not project.config.test_command.strip():
        raise InvalidInput(
            "test_command is empty in ralph.toml, so pull requests have no required check; "
            "set it (ralph doctor says how) to have one"
        )
    pr = project.code_host.get_pull_request(number)
    if pr.state is not PullRequestState.OPEN:
        raise PullRequestNotOpen(number, pr.state.value)
    head = pr.head_oid
    if head is None:
        raise InvalidInput(f"pull request #{number}'s branch {pr.head} is gone; nothing to test")
    merged = project.git.merge_result(head, pr.base)
    if merged is None:
        raise MergeConflict(number, pr.head, pr.base, ())
    with ctx.worktrees.scratch(f"check-{number}", pr.base, at=merged) as checkout:
        after_create(ctx, checkout)
        tests = project_tests(ctx, checkout)
    check = CheckRun(
        name=TEST_CHECK,
        conclusion=CheckConclusion.SUCCESS if tests.passed else CheckConclusion.FAILURE,
        required=True,
        summary=tests.output or tests.tail,
    )
    if project.code_host.get_pull_request(number).head_oid != head:
        return RequiredCheck(check, head, recorded=False)
    project.code_host.record_check(number, check)
    return RequiredCheck(check, head, recorded=True)
