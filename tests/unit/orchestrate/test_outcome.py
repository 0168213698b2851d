"""How a run ended, case by case, from the run and its tasks alone; and tasks done counted
without the ones a re-plan replaced."""

from __future__ import annotations

import pytest

from ralph.graph import Role
from ralph.orchestrate import ESCALATED, Outcome, run_outcome, tally
from ralph.tasks import Run, RunStatus, Task, TaskStatus

ACTIVE, FINISHED, CANCELED_RUN = RunStatus.ACTIVE, RunStatus.FINISHED, RunStatus.CANCELED
DONE, PENDING, RUNNING = TaskStatus.DONE, TaskStatus.PENDING, TaskStatus.RUNNING
FAILED, DEAD, CANCELED = TaskStatus.FAILED, TaskStatus.DEAD, TaskStatus.CANCELED


def run(status: RunStatus = FINISHED, *, stopping: bool = True) -> Run:
    return Run(
        id=1,
        name="hero GH-1",
        root_issue=1,
        mode="hero",
        status=status,
        shutdown_requested=stopping,
    )


def task(
    id_: int,
    status: TaskStatus,
    *,
    error: str | None = None,
    attempts: int = 1,
    role: str = "builder",
    metadata: dict[str, object] | None = None,
) -> Task:
    return Task(
        id=id_,
        run_id=1,
        key=f"t{id_}",
        kind="implement",
        role=role,
        issues=(1,),
        subject=f"Task {id_}",
        status=status,
        error=error,
        attempts=attempts,
        metadata=metadata or {},
    )


REPLACED = task(9, CANCELED, error="planned again after Triage GH-1", attempts=0)


def test_a_finished_run_with_every_task_done_succeeded():
    assert run_outcome(run(), [task(1, DONE), task(2, DONE), REPLACED]) is Outcome.SUCCEEDED


def test_an_escalated_task_means_the_run_needs_a_person():
    escalated = task(2, FAILED, error=f"{ESCALATED}the tests fail")
    dependent = task(3, CANCELED, error="canceled: depends on Task 2", attempts=0)
    assert run_outcome(run(), [task(1, DONE), escalated, dependent]) is Outcome.NEEDS_PERSON


def test_a_plan_to_approve_or_a_review_only_a_person_gives_needs_a_person():
    gate = task(2, PENDING, role=Role.HUMAN.value, attempts=0)
    assert run_outcome(run(ACTIVE), [task(1, DONE), gate]) is Outcome.NEEDS_PERSON
    review = Task(
        id=3,
        run_id=1,
        key="merge",
        kind="merge",
        role="integrator",
        issues=(1,),
        subject="Merge",
        status=PENDING,
        claim_token=1,
        metadata={"waiting_for": "review", "for_person": True, "waiting_token": 1},
    )
    assert run_outcome(run(ACTIVE), [task(1, DONE), review]) is Outcome.NEEDS_PERSON


@pytest.mark.parametrize("broke", [FAILED, DEAD])
def test_a_task_that_broke_for_good_fails_the_run_before_anything_waits(broke):
    escalated = task(3, FAILED, error=f"{ESCALATED}no plan")
    tasks = [task(1, DONE), task(2, broke, error="git push: permission denied"), escalated]
    assert run_outcome(run(ACTIVE), tasks) is Outcome.FAILED


def test_an_interrupted_run_with_work_left_is_stopped():
    assert run_outcome(run(ACTIVE), [task(1, DONE), task(2, PENDING)]) is Outcome.STOPPED


def test_a_run_a_process_still_works_on_is_running():
    assert run_outcome(run(ACTIVE, stopping=False), [task(1, PENDING)]) is Outcome.RUNNING
    # A resumed run keeps its old shutdown flag; a task running says it is alive.
    assert run_outcome(run(ACTIVE), [task(1, RUNNING), task(2, FAILED)]) is Outcome.RUNNING


def test_a_canceled_run_is_canceled_whatever_its_tasks_did():
    tasks = [task(1, DONE), task(2, FAILED, error="x"), task(3, CANCELED, error="run canceled")]
    assert run_outcome(run(CANCELED_RUN), tasks) is Outcome.CANCELED


def test_tasks_a_re_plan_replaced_are_not_counted_as_work_left():
    counted = tally([task(1, DONE), task(2, DONE), REPLACED, REPLACED])
    assert (counted.done, counted.total, counted.replaced) == (2, 2, 2)
    assert str(counted) == "2/2 done"  # the replaced never ran: history, not work
    assert str(tally([task(1, DONE), task(2, PENDING)])) == "1/2 done"


def test_the_outcome_reads_as_words():
    assert [o.words for o in Outcome] == [
        "running",
        "succeeded",
        "needs a person",
        "failed",
        "stopped",
        "canceled",
    ]
