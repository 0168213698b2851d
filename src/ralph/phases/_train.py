"""The merge train's conductor: the merge task holding a repository's merge key lands its
own pull request together with the other ready ones waiting on that key (any run), tested
once on the base as they will land (``ralph.workflow``'s ``Train`` decides each step).

Cars: its own pull request first, then those of the merge tasks waiting on the key whose
pull request the merge policy judges ready (on the local host the required check not run
yet counts as passing: the train's test run is that check), by issue priority, then age,
at most ``merge_batch``. A car already sent back on its head, changing a control file
a person has not accepted, with an issue out of the merge phase's states (a person moved
it to Human Needed) or locked by another holder, waits for its own task. The riders'
issues are locked for the batch (``_train_locks.py``).

Each step: a prefix is built as it will land (a chain of merge commits made with git's
plumbing on the current base, one per car, squashed where the merge method says) and the
project's test command runs on it in a scratch checkout, sandboxed like every test run;
a car that does not merge onto the cars before it is left out without a run. A passing
prefix lands car by car (``merge_pull_request`` on the head judged ready), the base's
tree checked against the tree tested after each; a car the host will not merge (its
branch moved, blocked, behind) is left out with the host's words. A car that breaks the
tests goes back: the rejection in the batch record, which its own merge task finds
(``rejection_of``) and turns into an address round. Where Ralph runs the checks, the
train's run is each car's required check ``test``, recorded on its head (passing as it
lands, failing as it goes back). The record is saved after every step, so the next
conductor of the repository finishes a batch whose conductor died (``resume_batch``):
the merges it made recorded, runs kept only where the base's tree is the tree tested; a
batch whose takeovers keep failing is abandoned.
"""

from __future__ import annotations

from collections.abc import Sequence

from ralph.phases._context import PhaseContext
from ralph.phases._train_conductor import Conductor
from ralph.phases._train_resume import resume_batch
from ralph.phases._train_riders import gather
from ralph.tasks import Task
from ralph.tracker import Issue, MergeStrategy, PullRequest, PullRequestState
from ralph.workflow import Rejection, Train, numbered

__all__ = ["conduct", "rides_train", "sent_back", "train_repo"]


def train_repo(task: Task | None) -> str | None:
    """The repository a merge task's train serves (its key ``merge:<repo>``), or None
    outside a run."""
    key = task.serial_key if task is not None else None
    return key.removeprefix("merge:") if key and key.startswith("merge:") else None


def rides_train(ctx: PhaseContext) -> bool:
    """Whether this merge runs as a train: a run's merge task holding the repository's
    key, on a host without its own merge queue (where the host queues, it decides)."""
    return train_repo(ctx.task) is not None and not ctx.code_host.merge_settings().merge_queue


def conduct(
    ctx: PhaseContext,
    own: PullRequest,
    own_members: Sequence[Issue],
    strategy: MergeStrategy,
    *,
    by_person: bool,
) -> Train:
    """Run a train led by ``own`` (judged ready to merge), after finishing a dead
    conductor's batch of the repository. Returns the train; whether ``own`` landed is
    the pull request's to say."""
    task = ctx.task
    repo = train_repo(task)
    assert task is not None
    assert repo is not None
    conductor = Conductor(ctx, strategy)
    if own.head_oid is None:
        return Train(conductor.tip(), ())
    if resume_batch(ctx, strategy, repo) is not None:  # a dead conductor's batch finished
        now = ctx.code_host.get_pull_request(own.number)
        if now.state is not PullRequestState.OPEN:
            return Train(conductor.tip(), ())  # landed with the batch taken over, or closed
        if now.head_oid != own.head_oid:
            return Train(conductor.tip(), ())  # pushed to meanwhile: judged again
        if sent_back(ctx, now) is not None:
            return Train(conductor.tip(), ())  # the batch taken over sent it back
    limit = ctx.project.config.merge_batch
    riders = gather(ctx, own, own_members, by_person, limit, conductor.locks)
    conductor.riders = {rider.car.pr: rider for rider in riders}
    train = Train(conductor.tip(), tuple(rider.car for rider in riders))
    try:
        batch = ctx.project.store.open_batch(task.run_id, task.id, repo, train.to_record())
    except BaseException:
        conductor.locks.give_back_all()  # no batch: the riders are their own tasks' again
        raise
    if len(riders) > 1:
        ctx.say(f"Merge train: {numbered([r.car.pr for r in riders])} ride batch {batch.id}.")
    return conductor.drive(batch, train)


def sent_back(ctx: PhaseContext, pr: PullRequest) -> Rejection | None:
    """The rejection of ``pr`` on its current head by a train, if one sent it back."""
    if pr.head_oid is None:
        return None
    repo = ctx.project.repo_name  # as its merge key names it
    found = ctx.project.store.rejection_of(repo, pr.number, pr.head_oid)
    return Rejection.from_record(found) if found is not None else None
