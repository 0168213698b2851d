"""How the merge train judges a car: where Ralph runs the required check itself, the
check not run yet on the head counts as passing (the train's run on what lands is that
check); a check that ran counts as it came out; and which merges ride a train."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from ralph.phases._context import PhaseContext
from ralph.phases._train import train_repo
from ralph.phases._train_riders import as_car
from ralph.tasks import Task
from ralph.tracker import CheckConclusion, CheckRun, MergeSettings, MergeState, PullRequest
from ralph.workflow import AddressFeedback, MergeNow, WaitFor, judge_merge


def _context(runs_own_checks: bool) -> PhaseContext:
    host = SimpleNamespace(runs_own_checks=runs_own_checks)
    return cast(PhaseContext, SimpleNamespace(code_host=host))


def _pr(**fields: Any) -> PullRequest:
    return PullRequest(
        number=7,
        title="t",
        body="Closes #3",
        head="feature/GH-3",
        base="main",
        mergeable=True,
        head_oid="abc",
        **fields,
    )


def _judge(pr: PullRequest) -> object:
    return judge_merge(pr, MergeSettings(), policy="checks")


def test_a_local_pull_request_without_its_check_is_ready_as_a_car():
    pr = _pr(merge_state=MergeState.BLOCKED)
    assert isinstance(_judge(pr), WaitFor)  # alone, it waits for its check
    assert _judge(as_car(_context(True), pr)) == MergeNow("merge")


def test_a_failed_check_on_the_head_still_counts():
    failed = CheckRun(name="test", conclusion=CheckConclusion.FAILURE, required=True)
    pr = _pr(checks=(failed,), merge_state=MergeState.BLOCKED)
    assert isinstance(_judge(as_car(_context(True), pr)), AddressFeedback)


def test_a_host_whose_ci_runs_the_checks_is_judged_as_it_says():
    pr = _pr(merge_state=MergeState.BLOCKED)
    assert as_car(_context(False), pr) == pr


def test_only_a_task_on_a_merge_key_conducts_a_train():
    def task(key: str | None) -> Task:
        return Task(
            id=1,
            run_id=1,
            key="merge:3",
            kind="merge",
            role="integrator",
            issues=(3,),
            subject="Merge #3",
            serial_key=key,
        )

    assert train_repo(task("merge:owner/repo")) == "owner/repo"
    assert train_repo(task(None)) is None
    assert train_repo(None) is None
