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
from ralph.workflow import Car, MergeNow, Priority, judge_merge

__all__ = ["as_car", "gather", "rider_of"]

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
    ctx: PhaseContext, own: PullRequest, own_members: Sequence[Issue], by_person: bool, limit: int
) -> list[Rider]:
    """The conductor's own car, then the ready pull requests of the other merge tasks on
    its key by issue priority, then age."""
    task = ctx.task
    assert task is not None
    assert task.serial_key is not None
    assert own.head_oid is not None
    riders = [Rider(Car(own.number, own.head_oid, _numbers_of(own_members)), (), None, by_person)]
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
    return riders + [rider for _, rider in candidates[: limit - 1]]


def _numbers_of(members: Sequence[Issue]) -> tuple[int, ...]:
    return tuple(issue.number for issue in members)


def _ready_rider(ctx: PhaseContext, repo: str, task: Task) -> Rider | None:
    """The car of another merge task, when its pull request is ready to merge now."""
    config = ctx.project.config
    issue = ctx.tracker.get_issue(task.issues[0])
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
    if git.run("cat-file", "-e", f"{pr.head_oid}^{{commit}}").returncode != 0:
        return None  # not here (a push not fetched yet): its own task merges it
    try:
        by_person = hold_control_changes(ctx, pr.head, issue.number, head=pr.head_oid, pr=pr.number)
    except ControlFilesHeld:
        return None  # a person's to let through: its own task says so
    members = tuple(review_members(ctx, issue))
    return Rider(Car(pr.number, pr.head_oid, _numbers_of(members)), members, task.id, by_person)


def rider_of(ctx: PhaseContext, car: Car) -> Rider | None:
    """A resumed car's rider: its issues, the merge task waiting for it (None when it
    has none now) and whether a person accepted the control files it changes."""
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
    try:
        by_person = hold_control_changes(ctx, pr.head, car.issues[0], head=car.head, pr=car.pr)
    except ControlFilesHeld:
        by_person = False  # not as a person accepted it
    return Rider(car, members, waiting.id if waiting else None, by_person)
