"""A merge batch whose conductor died, finished by the next conductor of the repository:
the cars merged meanwhile (by it, before it could say so, or by a person) landed and
finished, the rest on the base as it is."""

from __future__ import annotations

import dataclasses
from typing import Any

from ralph.phases._context import PhaseContext
from ralph.phases._control_hold import ControlFilesHeld
from ralph.phases._train_conductor import Conductor
from ralph.phases._train_riders import rider_of
from ralph.tasks import BatchStatus
from ralph.tracker import MergeStrategy, PullRequestState
from ralph.workflow import Train, after_conflict, after_landing

__all__ = ["MAX_RESUMES", "resume_batch"]

#: Takeovers of one batch before it is given up (a refusal or crash that never clears
#: would otherwise stop every merge of the repository).
MAX_RESUMES = 3


def _resumed(conductor: Conductor, train: Train) -> Train:
    """A dead conductor's train as things are now: the cars merged meanwhile (by it,
    before it could say so, or by a person) landed and finished; the rest on the base
    as it is."""
    host = conductor.host
    for landing in list(conductor.landings.values()):
        if not landing["finished"]:  # merged, then the conductor died
            landed = host.get_pull_request(int(landing["pr"]))
            before, by_person = str(landing["before"]), bool(landing["by_person"])
            conductor.landed(landed, before, by_person=by_person)
    merged = []
    for car in train.pending:
        pr = host.get_pull_request(car.pr)
        if pr.state is PullRequestState.MERGED:
            host.settle_merged(pr.number)
            # Merged before the dead conductor could say so: from the base it had.
            conductor.landed(pr, train.base, by_person=car.by_person)
            merged.append(car.pr)
        elif pr.state is not PullRequestState.OPEN or pr.head_oid != car.head:
            train = after_conflict(train, car.pr, f"Pull request #{car.pr} changed meanwhile.")
    pending = tuple(car.pr for car in train.pending)
    if merged and pending[: len(merged)] == tuple(merged):
        # What was tested holds on the base only where its tree is the one built then
        # (a push after the dead conductor's merge changes it): as land() checks.
        built = conductor.build(train, merged)
        tip = conductor.tip()
        tested = not isinstance(built, int) and (
            conductor.git.tree_of(built[-1]) == conductor.git.tree_of(tip)
        )
        train = after_landing(train, tuple(merged), tip)
        if not tested:
            runs = tuple(r for r in train.runs if not (r.carried and r.base == tip))
            train = dataclasses.replace(train, runs=runs)
    elif merged:
        train = dataclasses.replace(train, landed=(*train.landed, *merged))
    return conductor.on_current_base(train)


def resume_batch(ctx: PhaseContext, strategy: MergeStrategy, repo: str) -> Train | None:
    """Finish the repository's batch whose conductor died, if there is one, taken over
    first (its task and run this conductor's)."""
    store = ctx.project.store
    batch = store.unfinished_batch(repo)
    if batch is None:
        return None
    conductor = Conductor(ctx, strategy)
    conductor.fence()
    if ctx.task is not None:
        # Ours from now on, in one write: the former conductor's saves are refused.
        batch = store.take_over_batch(batch.id, ctx.task.run_id, ctx.task.id)
    fenced: dict[str, Any] = {
        "task_id": ctx.task.id if ctx.task is not None else None,
        "token": ctx.claim.token if ctx.claim is not None else None,
    }
    resumes = int(batch.train.get("resumes", 0))
    if resumes >= MAX_RESUMES:
        store.save_batch(batch.id, batch.train, BatchStatus.ABANDONED, **fenced)
        ctx.say(
            f"Merge train: batch {batch.id} failed to finish {resumes} times: abandoned; "
            "its pull requests go back to their own merge tasks."
        )
        return None
    conductor.resumes = resumes + 1
    conductor.landings = {int(n["pr"]): dict(n) for n in batch.train.get("landings", ())}
    # Counted before anything else: a takeover that crashes still counts.
    batch = store.save_batch(batch.id, {**batch.train, "resumes": resumes + 1}, None, **fenced)
    ctx.say(f"Merge train: taking over batch {batch.id}.")
    train = Train.from_record(batch.train)
    for car in train.pending:
        try:
            rider = rider_of(ctx, car)
        except ControlFilesHeld:  # a person's to let through: its own task says so
            reason = f"Pull request #{car.pr} changes control files a person has not accepted."
            train = after_conflict(train, car.pr, reason)
            continue
        if rider is not None:
            conductor.riders[car.pr] = rider
    train = _resumed(conductor, train)
    batch = conductor.save(batch, train)
    return conductor.drive(batch, train)
