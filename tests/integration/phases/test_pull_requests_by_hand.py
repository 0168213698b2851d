"""The local required check and a person's merge, on a pull request the pipeline opened:
the project's tests run on what the pull request would merge and are recorded on the
head they tested; a person's merge finishes the pipeline the merge phase would, so the
merge phase then has nothing left to do."""

from __future__ import annotations

from datetime import date

import pytest

from ralph.phases import (
    PhaseContext,
    PhaseStatus,
    merge_by_hand,
    required_check_of,
    run_required_check,
)
from ralph.phases import _required_check as required_check_module
from ralph.tracker import CheckConclusion, MergeState, MergeStrategy, PullRequestState
from ralph.workflow import WorkflowState

from .conftest import Sample


def opened(sample: Sample) -> tuple[int, int]:
    """An issue taken through the pipeline to an open pull request: (issue, pull request)."""
    number = sample.issue()
    sample.through(number, "research", "plan", "review", "implement", "pr")
    [pr] = sample.code_host.list_pull_requests(issue=number)
    return number, pr.number


@pytest.fixture
def ctx(sample: Sample) -> PhaseContext:
    return PhaseContext(sample.project, date(2026, 11, 22))


def test_the_required_check_runs_the_tests_on_the_merge_result_and_unblocks_the_merge(sample, ctx):
    _, number = opened(sample)
    pr = sample.code_host.get_pull_request(number)
    assert pr.merge_state is MergeState.BLOCKED  # the test command is required, not run yet

    ran = run_required_check(ctx, number)

    assert ran.recorded
    assert ran.head_oid == pr.head_oid
    assert ran.check.conclusion is CheckConclusion.SUCCESS
    after = sample.code_host.get_pull_request(number)
    assert required_check_of(after) == ran.check
    assert after.merge_state is MergeState.CLEAN
    assert not list((sample.repo.path / ".ralph" / "scratch").glob("*"))  # checkout gone


def test_a_failing_suite_is_a_failed_required_check_with_the_end_of_its_output(sample, ctx):
    _, number = opened(sample)
    head = sample.code_host.get_pull_request(number).head
    sample.repo.commit(head, {"tests/test_broken.py": "import nothing_here\n"}, "broken")

    ran = run_required_check(ctx, number)

    assert ran.check.conclusion is CheckConclusion.FAILURE
    assert "nothing_here" in ran.check.summary
    assert sample.code_host.get_pull_request(number).merge_state is MergeState.BLOCKED


def test_a_result_of_a_head_that_moved_while_the_tests_ran_is_not_recorded(
    sample, ctx, monkeypatch
):
    _, number = opened(sample)
    head = sample.code_host.get_pull_request(number).head
    tested = required_check_module.project_tests  # type: ignore[attr-defined]

    def pushed_meanwhile(context, checkout):
        sample.repo.commit(head, {"later.txt": "later\n"}, "a push while testing")
        return tested(context, checkout)

    monkeypatch.setattr(required_check_module, "project_tests", pushed_meanwhile)
    ran = run_required_check(ctx, number)

    assert not ran.recorded
    assert sample.code_host.get_pull_request(number).checks == ()


def test_a_person_s_merge_leaves_the_merge_phase_nothing_to_do(sample, ctx):
    issue, number = opened(sample)

    merged = merge_by_hand(ctx, number, MergeStrategy.SQUASH)

    assert merged.state is PullRequestState.MERGED
    assert sample.state(issue) is WorkflowState.DONE
    assert any(line.startswith(f"Merged pull request #{number} into main") for line in ctx.said)
    assert sample.comments(issue)[-1].startswith(f"Merged pull request #{number} (")
    assert sample.run("merge", issue).status is PhaseStatus.ALREADY_DONE
