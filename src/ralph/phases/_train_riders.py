"""The merge train's riders: the other merge tasks waiting on the conductor's key whose
pull request the merge policy judges ready now (on the local host the required check not
run yet counts as passing: the train's test run is that check), by issue priority, then
age; and a resumed batch's cars as riders again."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ralph.phases._context import PhaseContext
from ralph.phases._control_hold import ControlFilesHeld, hold_control_changes
from ralph.phases._feedback import address_rounds, pull_request_for, review_members
from ralph.phases._required_check import required_check_of
from ralph.phases._train_conductor import Rider
from ralph.phases._train_locks import RiderLocks
from ralph.project import TEST_CHECK
from ralph.tasks import Task
from ralph.tracker import (
    CheckConclusion,
    CheckRun,
    Issue,
    MergeState,
    PullRequest,
    PullRequestState,
)
from ralph.workflow import PHASE_SPECS, Car, MergeNow, Priority, WorkflowState, judge_merge

__all__ = ["as_car", "gather", "rider_of"]


#: The merge phase, whose input states a rider's issues are in.
_MERGE = next(spec for spec in PHASE_SPECS if spec.name == "merge")
#: Each priority's place, most urgent first.
_RANK = {priority: rank for rank, priority in enumerate(Priority)}


def as_car(ctx: PhaseContext, pr: PullRequest) -> PullRequest:
    """``pr`` as the train judges it: where Ralph runs the required check itself and has
    not on this head, it counts as passing, as the train's own run on what lands is
    that check."""
    if not ctx.code_host.runs_own_checks or required_check_of(pr) is not None:
        return pr
    check = CheckRun(name=TEST_CHECK, conclusion=CheckConclusion.SUCCESS, required=True)
    state = pr.merge_state
    if state is MergeState.BLOCKED and all(c.passed for c in pr.checks if c.required):
        state = MergeState.CLEAN
    return dataclasses.replace(pr, checks=(*pr.checks, check), merge_state=state)


def gather(
    ctx: PhaseContext,
    own: PullRequest,
    own_members: Sequence[Issue],
    by_person: bool,
    limit: int,
    locks: RiderLocks,
) -> list[Rider]:
    """The conductor's own car, then the ready pull requests of the other merge tasks on
    its key by issue priority, then age; each rider's issues locked in ``locks`` (one
    another holder has stays out)."""
    task = ctx.task
    assert task is not None
    assert task.serial_key is not None
    assert own.head_oid is not None
    own_car = Car(own.number, own.head_oid, _numbers_of(own_members), by_person)
    riders = [Rider(own_car, (), None)]
    if limit <= 1:
        return riders
    repo = ctx.project.repo_name  # as its merge key names it
    store = ctx.project.store
    candidates: list[tuple[tuple[int, float, int], Rider]] = []
    seen = {own.number}
    for waiting in store.waiting_on_key(task.serial_key):
        if waiting.id == task.id or not waiting.issues:
            continue
        rider = _ready_rider(ctx, repo, waiting)
        if rider is None or rider.car.pr in seen:
            continue
        seen.add(rider.car.pr)
        primary = rider.members[0]
        priority = _RANK[primary.priority] if primary.priority is not None else len(_RANK)
        candidates.append(((priority, waiting.created_at, waiting.id), rider))
    candidates.sort(key=lambda pair: pair[0])
    for _, rider in candidates:
        if len(riders) >= limit:
            break
        if locks.take(rider.car.pr, rider.car.issues):
            riders.append(rider)
    return riders


def _numbers_of(members: Sequence[Issue]) -> tuple[int, ...]:
    return tuple(issue.number for issue in members)


def _ready_rider(ctx: PhaseContext, repo: str, task: Task) -> Rider | None:
    """The car of another merge task, when its pull request is ready to merge now and
    every issue it closes waits to be merged (a person moving one to Human Needed, or
    back, takes it off the train)."""
    config = ctx.project.config
    issue = ctx.tracker.get_issue(task.issues[0])
    members = tuple(review_members(ctx, issue))
    if not all(_waits_to_merge(member) for member in members):
        return None
    found = pull_request_for(ctx, issue)
    if found is None or found.state is not PullRequestState.OPEN:
        return None
    pr = ctx.code_host.get_pull_request(found.number)
    if pr.state is not PullRequestState.OPEN or pr.head_oid is None or pr.base != ctx.base:
        return None
    if ctx.project.store.rejection_of(repo, pr.number, pr.head_oid) is not None:
        return None  # sent back on this head: its own task says so
    rounds = address_rounds(issue, pr.number)
    decision = judge_merge(
        as_car(ctx, pr),
        ctx.code_host.merge_settings(),
        policy=config.merge_policy,
        method=config.merge_method or None,
        rounds_used=rounds.used,
        max_rounds=config.max_fix_rounds,
        addressed_at=rounds.last_at,
    )
    if not isinstance(decision, MergeNow):
        return None
    git = ctx.project.git
    if git.has_remote():  # its head as the code host has it
        git.fast_forward_from(pr.head)
    # Where the host merges here its head is read from this repository: here, surely.
    here = ctx.code_host.merges_here
    if not here and git.run("cat-file", "-e", f"{pr.head_oid}^{{commit}}").returncode != 0:
        return None  # not here (a push not fetched yet): its own task merges it
    try:
        by_person = hold_control_changes(ctx, pr.head, issue.number, head=pr.head_oid, pr=pr.number)
    except ControlFilesHeld:
        return None  # a person's to let through: its own task says so
    car = Car(pr.number, pr.head_oid, _numbers_of(members), by_person)
    return Rider(car, members, task.id)


def _waits_to_merge(issue: Issue) -> bool:
    """Whether ``issue`` is where the merge phase takes it from (never Human Needed)."""
    state = issue.workflow_state
    return state is not WorkflowState.HUMAN_NEEDED and state in _MERGE.contract.input_states


def rider_of(ctx: PhaseContext, car: Car) -> Rider | None:
    """A resumed car's rider: its issues and the merge task waiting for it (None when it
    has none now). Raises ControlFilesHeld when it changes control files a person has
    not accepted (whether one did is the car's ``by_person``)."""
    store = ctx.project.store
    task = ctx.task
    assert task is not None
    assert task.serial_key is not None
    if not car.issues:
        return None
    if task.issues and task.issues[0] in car.issues:
        return None  # the conductor's own now: its merge phase finishes it
    waiting = next(
        (t for t in store.waiting_on_key(task.serial_key) if t.issues[:1] == car.issues[:1]),
        None,
    )
    members = tuple(ctx.tracker.get_issue(n) for n in car.issues)
    pr = ctx.code_host.get_pull_request(car.pr)
    # ControlFilesHeld: not accepted (now): left out, its own task says so.
    if pr.state is PullRequestState.OPEN:  # one merged meanwhile is finished, held or not
        hold_control_changes(ctx, pr.head, car.issues[0], head=car.head, pr=car.pr)
    return Rider(car, members, waiting.id if waiting else None)
