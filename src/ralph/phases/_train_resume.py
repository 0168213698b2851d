"""A merge batch whose conductor died, finished by the next conductor of the repository:
the cars merged meanwhile (by it, before it could say so, or by a person) landed and
finished, the rest on the base as it is."""

from __future__ import annotations

import dataclasses

from ralph.phases._context import PhaseContext
from ralph.phases._train_conductor import Conductor
from ralph.phases._train_riders import rider_of
from ralph.tracker import MergeStrategy, PullRequestState
from ralph.workflow import Train, after_conflict, after_landing

__all__ = ["resume_batch"]


def _resumed(conductor: Conductor, train: Train) -> Train:
    """A dead conductor's train as things are now: the cars merged meanwhile (by it,
    before it could say so, or by a person) landed and finished; the rest on the base
    as it is."""
    host = conductor.host
    merged = []
    for car in train.pending:
        pr = host.get_pull_request(car.pr)
        if pr.state is PullRequestState.MERGED:
            host.settle_merged(pr.number)
            conductor.finish(pr)
            merged.append(car.pr)
        elif pr.state is not PullRequestState.OPEN or pr.head_oid != car.head:
            train = after_conflict(train, car.pr, f"Pull request #{car.pr} changed meanwhile.")
    pending = tuple(car.pr for car in train.pending)
    if merged and pending[: len(merged)] == tuple(merged):
        train = after_landing(train, tuple(merged), conductor.tip())
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
    ctx.say(f"Merge train: taking over batch {batch.id}.")
    for car in Train.from_record(batch.train).pending:
        rider = rider_of(ctx, car)
        if rider is not None:
            conductor.riders[car.pr] = rider
    train = _resumed(conductor, Train.from_record(batch.train))
    batch = conductor.save(batch, train)
    return conductor.drive(batch, train)
