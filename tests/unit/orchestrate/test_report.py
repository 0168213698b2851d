"""The run report from what the store keeps: work streams from the stream tasks' metadata,
waiting tasks from theirs, and running time from the events."""

from __future__ import annotations

import dataclasses
import io

from ralph.cli._console import Console
from ralph.cli._report import print_report
from ralph.graph import TaskKind
from ralph.orchestrate import build_report, dollars
from ralph.orchestrate._execute import WORKER_BROKE
from ralph.tasks import Charge, Event, EventKind, Run, Task, TaskStatus

DONE, PENDING, CANCELED = TaskStatus.DONE, TaskStatus.PENDING, TaskStatus.CANCELED


def task(id_, kind, status, stream=None, members=(), subject=""):
    metadata = {"issue_number": members[0] if members else 1}
    if stream:
        metadata |= {
            "stream_id": stream,
            "stream_members": list(members),
            "epic_issue": 1,
            "worktree": f"GH-1-{stream}",
        }
    return Task(
        id=id_,
        run_id=1,
        key=f"{kind}:{id_}",
        kind=kind.value,
        role="builder",
        issues=tuple(members) or (1,),
        subject=subject or f"{kind} {id_}",
        metadata=metadata,
        status=status,
    )


def test_each_stream_says_where_it_is_built_and_how_far_it_got():
    tasks = [
        task(1, TaskKind.PLAN, CANCELED, subject="Plan group GH-2"),
        task(2, TaskKind.PLAN, DONE, "stream-2", [2]),
        task(3, TaskKind.MERGE, DONE, "stream-2", [2]),
        task(4, TaskKind.PLAN, DONE, "stream-3-4", [3, 4]),
        task(5, TaskKind.IMPLEMENT, PENDING, "stream-3-4", [3, 4], "Implement GH-3"),
        task(6, TaskKind.MERGE, PENDING, "stream-3-4", [3, 4]),
        task(7, TaskKind.REVIEW, CANCELED, "stream-3-4", [3, 4]),
    ]
    report = build_report(Run(id=1, name="hero GH-1", root_issue=1, mode="hero"), tasks, [], [], [])
    first, second = report.streams
    assert (first.id, first.issues, first.worktree, first.branch) == (
        "stream-2",
        (2,),
        "GH-1-stream-2",
        "feature/GH-1-stream-2",
    )
    assert (first.done, first.total, first.merged, first.at) == (2, 2, True, "")
    assert (second.id, second.issues) == ("stream-3-4", (3, 4))
    assert (second.done, second.total, second.merged, second.at) == (1, 3, False, "Implement GH-3")
    assert report.to_dict()["streams"][0]["worktree"] == "GH-1-stream-2"


def test_a_run_without_streams_reports_none():
    tasks = [task(1, TaskKind.PLAN, DONE)]
    assert (
        build_report(Run(id=1, name="r", root_issue=1, mode="hero"), tasks, [], [], []).streams
        == ()
    )


def _waiting(id_: int, reason: str, *, for_person: bool, token: int = 1) -> Task:
    return Task(
        id=id_,
        run_id=1,
        key=f"merge:{id_}",
        kind=TaskKind.MERGE.value,
        role="integrator",
        issues=(id_,),
        subject=f"Merge PR for GH-{id_}",
        metadata={
            "waiting_for": reason,
            "for_person": for_person,
            "waits": 2,
            "waiting_since": 900.0,
            "waiting_token": 1,
        },
        status=PENDING,
        claim_token=token,
        not_before=1015.0,
    )


def test_waiting_tasks_say_what_they_wait_for_and_when_they_look_again():
    tasks = [
        _waiting(2, "checks (2 pending)", for_person=False),
        _waiting(3, "review", for_person=True),
        _waiting(4, "review", for_person=True, token=2),  # taken since: not waiting now
    ]
    run = Run(id=1, name="hero GH-2", root_issue=2, mode="hero")
    report = build_report(run, tasks, [], [], [])
    checks, review, taken = report.tasks
    assert (checks.waiting_for, checks.for_person, checks.next_check) == (
        "checks (2 pending)",
        False,
        1015.0,
    )
    assert (review.waiting_for, review.for_person) == ("review", True)
    assert (taken.waiting_for, taken.next_check) == (None, None)
    assert report.needs_person == (
        "Merge PR for GH-3: waiting for: review; `ralph hero 2` looks again "
        "(--wait keeps it waiting)",
    )
    assert report.to_dict()["tasks"][1]["waiting_for"] == "review"


def test_a_wait_ends_a_stretch_of_running_and_the_next_claim_is_no_overlap():
    task_ = _waiting(2, "checks (1 pending)", for_person=False, token=2)
    events = [
        Event(id=1, run_id=1, task_id=2, kind=EventKind.TASK_CLAIMED, at=100.0),
        Event(id=2, run_id=1, task_id=2, kind=EventKind.TASK_WAITING, at=103.0),
        Event(id=3, run_id=1, task_id=2, kind=EventKind.TASK_WOKEN, at=110.0),
        Event(id=4, run_id=1, task_id=2, kind=EventKind.TASK_CLAIMED, at=110.0),
        Event(id=5, run_id=1, task_id=2, kind=EventKind.TASK_DONE, at=112.0),
    ]
    report = build_report(Run(id=1, name="r", root_issue=2, mode="hero"), [task_], events, [], [])
    assert report.tasks[0].seconds == 5.0  # waiting time is not running time
    assert report.counters.claimed_while_running == 0
    assert report.counters.claims == 2


def test_time_a_task_sat_claimed_by_a_dead_worker_is_a_stall_not_work():
    first = task(1, TaskKind.TRIAGE, DONE)
    second = dataclasses.replace(task(2, TaskKind.RESEARCH, DONE), deps=(1,))
    events = [
        Event(id=1, run_id=1, task_id=1, kind=EventKind.TASK_CLAIMED, at=100.0),
        Event(id=2, run_id=1, task_id=1, kind=EventKind.TASK_EXPIRED, at=160.0),
        Event(id=3, run_id=1, task_id=1, kind=EventKind.TASK_CLAIMED, at=160.0),
        Event(id=4, run_id=1, task_id=1, kind=EventKind.TASK_DONE, at=161.0),
        Event(id=5, run_id=1, task_id=2, kind=EventKind.TASK_CLAIMED, at=161.0),
        Event(id=6, run_id=1, task_id=2, kind=EventKind.TASK_DONE, at=163.0),
    ]
    report = build_report(
        Run(id=1, name="r", root_issue=1, mode="team"), [first, second], events, [], []
    )
    assert report.makespan == 63.0
    assert (report.critical_path, report.work, report.stalled) == (3.0, 3.0, 60.0)
    assert report.counters.leases_expired == 1
    assert report.to_dict()["stalled"] == 60.0


def test_a_lease_that_ran_out_on_the_last_attempt_is_a_stall_and_a_broken_worker_is_counted():
    events = [
        Event(id=1, run_id=1, task_id=1, kind=EventKind.TASK_CLAIMED, at=100.0),
        Event(
            id=2,
            run_id=1,
            task_id=1,
            kind=EventKind.TASK_FAILED,
            at=101.0,
            data={"error": f"{WORKER_BROKE}OSError: disk full"},
        ),
        Event(id=3, run_id=1, task_id=1, kind=EventKind.TASK_CLAIMED, at=101.0),
        Event(
            id=4,
            run_id=1,
            task_id=1,
            kind=EventKind.TASK_DEAD,
            at=161.0,
            data={"error": "lease expired", "expired": True},
        ),
    ]
    dead = task(1, TaskKind.TRIAGE, TaskStatus.DEAD)
    report = build_report(Run(id=1, name="r", root_issue=1, mode="team"), [dead], events, [], [])
    assert (report.stalled, report.work) == (60.0, 1.0)
    assert (report.counters.leases_expired, report.counters.worker_broke) == (1, 1)


def test_the_plan_gate_needs_a_person_only_once_the_review_before_it_is_done():
    run = Run(id=1, name="hero GH-5", root_issue=5, mode="hero")
    review = task(1, TaskKind.REVIEW, TaskStatus.RUNNING, members=[5], subject="Review GH-5")
    gate = dataclasses.replace(
        task(2, TaskKind.REVIEW, PENDING, members=[5], subject="Approve plan for GH-5"),
        role="human",
        deps=(1,),
    )
    assert build_report(run, [review, gate], [], [], []).needs_person == ()
    reviewed = dataclasses.replace(review, status=DONE)
    (need,) = build_report(run, [reviewed, gate], [], [], []).needs_person
    assert need.startswith("Approve plan for GH-5: approve with `ralph approve 5`")


def test_a_cost_that_includes_a_model_without_a_price_reads_as_unknown():

    tasks = [task(1, TaskKind.PLAN, DONE), task(2, TaskKind.IMPLEMENT, DONE)]
    charges = [
        Charge(id=1, run_id=1, task_id=1, usd=0.25, tokens=100),
        Charge(id=2, run_id=1, task_id=2, usd=0.0, tokens=900, unpriced_model="mystery"),
    ]
    run = Run(id=1, name="hero GH-1", root_issue=1, mode="hero")
    report = build_report(run, tasks, [], charges, [])
    priced, unknown = report.tasks
    assert (priced.unpriced, unknown.unpriced, report.unpriced) == ((), ("mystery",), ("mystery",))
    assert dollars(priced.cost_usd, priced.unpriced) == "$0.25"
    assert dollars(unknown.cost_usd, unknown.unpriced) == "?"
    assert dollars(report.cost_usd, report.unpriced) == "?"
    assert dollars(0.0, blank_zero=True) == ""
    shown = report.to_dict()
    assert (shown["costKnown"], shown["unpricedModels"]) == (False, ["mystery"])
    out = io.StringIO()
    print_report(report, Console(file=out, width=120, color_system=None))
    assert " · tasks 2/2 done · ? · " in out.getvalue()
    assert "$0.25" in out.getvalue()
    assert "$0.00" not in out.getvalue()
    assert 'Cost unknown: Ralph has no price for model mystery; add [prices."mystery"]' in (
        out.getvalue()
    )
