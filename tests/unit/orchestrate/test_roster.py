"""A team session's roster applied to its crew: the ready tasks counted per role (a
repository's merges once, and not while one runs), workers hired with new names while a
queue outgrows them, the newest idle ones retired once it has stayed empty, within the
session's bound."""

from __future__ import annotations

from typing import Any, cast

import pytest

from ralph.orchestrate._roster import (
    INTEGRATOR_CAP,
    Roster,
    ready_by_role,
    team_workers_for_machine,
)
from ralph.orchestrate._roster_sizing import SHRINK_AFTER_SECONDS
from ralph.orchestrate._worker import Crew, Worker
from ralph.tasks import Claim, Task, TaskStatus

pytestmark = pytest.mark.timeout(10)

DONE, PENDING, RUNNING = TaskStatus.DONE, TaskStatus.PENDING, TaskStatus.RUNNING


def task(id_: int, role: str, status: TaskStatus = PENDING, **fields: Any) -> Task:
    kind = fields.pop("kind", "review")
    return Task(
        id=id_,
        run_id=1,
        key=f"t{id_}",
        kind=kind,
        role=role,
        issues=(id_,),
        subject="",
        status=status,
        **fields,
    )


class UnstartedCrew(Crew):
    """A crew whose workers are not run: the roster's choices are what is looked at."""

    def _start(self, worker: Worker) -> None:
        pass


def worker(name: str, role: str) -> Worker:
    return Worker(cast(Any, None), 1, name, (role,), lambda claim, stop: cast(Any, None), since=0)


def roster(crew: Crew, starting: dict[str, int], *, now: list[float], **given: Any) -> Roster:
    return Roster(
        crew,
        lambda role, name: worker(name, role),
        starting,
        caps=given.pop("caps", {}),
        total=given.pop("total", 0),
        clock=lambda: now[0],
    )


def busy(member: Worker) -> None:
    member.current = cast(Claim, object())


def test_ready_counts_pending_tasks_whose_dependencies_are_done():
    tasks = [
        task(1, "analyst", DONE),
        task(2, "validator", deps=(1,)),
        task(3, "validator", deps=(4,)),
        task(4, "builder", RUNNING),
        task(5, "validator", not_before=2e9),  # a backoff not run out
        task(6, "human", deps=(1,)),
    ]
    assert ready_by_role(tasks, now=1e9) == {"validator": 1}


def test_ready_counts_a_repositorys_merges_once_and_not_while_one_runs():
    merges = [task(i, "integrator", kind="merge", serial_key="merge:r") for i in (1, 2, 3)]
    prs = [task(i, "integrator", kind="pr") for i in (4, 5)]
    assert ready_by_role([*merges, *prs], now=0.0) == {"integrator": 3}
    running = task(9, "integrator", RUNNING, kind="merge", serial_key="merge:r")
    assert ready_by_role([*merges, *prs, running], now=0.0) == {"integrator": 2}


def test_ready_keeps_to_the_sessions_phases():
    tasks = [task(1, "builder", kind="plan"), task(2, "builder", kind="implement")]
    assert ready_by_role(tasks, now=0.0, phases={"plan"}) == {"builder": 1}


def test_a_queue_grows_its_role_with_new_names_and_says_so():
    crew = UnstartedCrew([worker("validator-1", "validator"), worker("builder-1", "builder")])
    busy(crew.workers[0])
    kept = roster(crew, {"validator": 1, "builder": 1}, now=[0.0])
    said = kept.look([task(i, "validator") for i in range(1, 4)])
    assert said == ["validators: 1 -> 4 (3 ready)"]
    assert [w.name for w in crew.active] == [
        "validator-1",
        "builder-1",
        "validator-2",
        "validator-3",
        "validator-4",
    ]
    assert all(w.roles == ("validator",) for w in crew.active if w.name.startswith("validator"))


def test_the_sessions_bound_holds_across_roles():
    crew = UnstartedCrew([worker("validator-1", "validator"), worker("builder-1", "builder")])
    kept = roster(crew, {"validator": 1, "builder": 1}, now=[0.0], total=4)
    kept.look([*(task(i, "validator") for i in range(10)), *(task(i, "builder") for i in range(9))])
    assert len(crew.active) == 4


def test_integrators_grow_to_their_own_cap_unless_told():
    crew = UnstartedCrew([worker("integrator-1", "integrator")])
    kept = roster(crew, {"integrator": 1}, now=[0.0])
    kept.look([task(i, "integrator", kind="pr") for i in range(20)])
    assert len(crew.active) == INTEGRATOR_CAP
    told = UnstartedCrew([worker("integrator-1", "integrator")])
    roster(told, {"integrator": 1}, now=[0.0], caps={"integrator": 2}).look(
        [task(i, "integrator", kind="pr") for i in range(20)]
    )
    assert len(told.active) == 2


def test_idle_extras_retire_newest_first_after_the_quiet_while():
    crew = UnstartedCrew([worker("validator-1", "validator")])
    busy(crew.workers[0])
    now = [0.0]
    kept = roster(crew, {"validator": 1}, now=now)
    kept.look([task(i, "validator") for i in range(3)])  # 1 -> 4
    busy(crew.workers[1])  # validator-2 still reviews; the others are idle
    assert kept.look([]) == []  # the quiet while starts
    now[0] = SHRINK_AFTER_SECONDS
    assert kept.look([]) == ["validators: 4 -> 2 (0 ready)"]
    assert [w.name for w in crew.active] == ["validator-1", "validator-2"]
    assert [(r.role, r.start, r.peak, r.end) for r in kept.lines()] == [("validator", 1, 4, 2)]


def test_the_machines_bound_scales_with_its_cores_within_a_range():
    assert team_workers_for_machine(1) == 16
    assert team_workers_for_machine(4) == 32
    assert team_workers_for_machine(32) == 64
