"""The merge train's conductor: the merge task holding a repository's merge key lands its
own pull request together with the other ready ones waiting on that key (any run), tested
once on the base as they will land (``ralph.workflow``'s ``Train`` decides each step).

Cars: its own pull request first, then those of the merge tasks waiting on the key whose
pull request the merge policy judges ready (on the local host the required check not run
yet counts as passing: the train's test run is that check), by issue priority, then age,
at most ``merge_batch``. A car already sent back on its head, or changing a control file
a person has not accepted, waits for its own task.

Each step: a prefix is built as it will land (a chain of merge commits made with git's
plumbing on the current base, one per car, squashed where the merge method says) and the
project's test command runs on it in a scratch checkout, sandboxed like every test run; a
car that does not merge onto the cars before it is left out without a run. A passing
prefix lands car by car (``merge_pull_request`` on the head judged ready), the base's tree
checked against the tree tested after each. A car that breaks the tests goes back: the
rejection in the batch record, which its own merge task finds (``rejection_of``) and
turns into an address round. Where Ralph runs the checks, the train's run is each car's
required check ``test``, recorded on its head (passing as it lands, failing as it goes
back). The record is saved after every step, so the next conductor of the repository
finishes a batch whose conductor died (``resume_batch``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ralph.errors import HeadMoved, MergeConflict, TrackerError
from ralph.phases._branches import project_tests
from ralph.phases._context import PhaseContext
from ralph.phases._control_hold import ControlFilesHeld, hold_control_changes
from ralph.phases._feedback import address_rounds, pull_request_for, review_members
from ralph.phases._merged import finish_merged
from ralph.phases._required_check import required_check_of
from ralph.phases._worktree_hooks import after_create
from ralph.project import TEST_CHECK, record_ralph_merge
from ralph.tasks import BatchStatus, MergeBatch, Task
from ralph.tracker import (
    CheckConclusion,
    CheckRun,
    Issue,
    MergeState,
    MergeStrategy,
    PullRequest,
    PullRequestState,
)
from ralph.workflow import (
    Car,
    LandCars,
    MergeNow,
    Priority,
    RejectCar,
    Rejection,
    TestCars,
    TestRun,
    Train,
    TrainDone,
    after_conflict,
    after_landing,
    after_rejection,
    after_test,
    judge_merge,
    next_train_step,
)

__all__ = ["as_car", "conduct", "rides_train", "sent_back", "train_repo"]

#: Where Ralph's documents are: a base moved only there keeps what the train learned.
DOCUMENTS = "thoughts/"
#: Each priority's place, most urgent first.
_RANK = {priority: rank for rank, priority in enumerate(Priority)}
#: The end of a failing run's output kept in the batch record (and in the builder's
#: feedback).
_SUMMARY_CHARS = 2000


def train_repo(task: Task | None) -> str | None:
    """The repository a merge task's train serves (its key ``merge:<repo>``), or None
    outside a run."""
    key = task.serial_key if task is not None else None
    return key.removeprefix("merge:") if key and key.startswith("merge:") else None


def rides_train(ctx: PhaseContext) -> bool:
    """Whether this merge runs as a train: a run's merge task holding the repository's
    key, on a host without its own merge queue (where the host queues, it decides)."""
    return train_repo(ctx.task) is not None and not ctx.code_host.merge_settings().merge_queue


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


@dataclass(frozen=True)
class _Rider:
    """A car, with what landing it needs: its issues and its task."""

    car: Car
    #: The issues it closes, which the conductor finishes when it lands (none for the
    #: conductor's own: its merge phase finishes it).
    members: tuple[Issue, ...]
    task_id: int | None
    #: A person accepted the control files it changes.
    by_person: bool


class _Conductor:
    """Drives one batch: builds, tests, lands and sends back as the train says."""

    def __init__(self, ctx: PhaseContext, strategy: MergeStrategy) -> None:
        self.ctx = ctx
        self.strategy = strategy
        self.git = ctx.project.git
        self.host = ctx.code_host
        self.store = ctx.project.store
        self.riders: dict[int, _Rider] = {}

    # -- the record ---------------------------------------------------------------------

    def save(self, batch: MergeBatch, train: Train, *, done: bool = False) -> MergeBatch:
        status = BatchStatus.DONE if done else None
        return self.store.save_batch(batch.id, train.to_record(), status)

    # -- the base -----------------------------------------------------------------------

    def tip(self) -> str:
        if self.git.has_remote():  # the base as the host has it
            self.git.fast_forward_from(self.ctx.base)
        return self.git.resolve(f"refs/heads/{self.ctx.base}")

    def on_current_base(self, train: Train) -> Train:
        """The train on the base as it is: when someone else moved it, the runs on the
        old one no longer count (they stay in the history). Documents alone moving it
        (Ralph's plans and research, committed as other issues go on) keep them: what
        lands then differs from what was tested only under thoughts/, which no test
        runs, and a busy pipeline would otherwise restart every train."""
        tip = self.tip()
        if tip == train.base:
            return train
        if self.documents_only(train.base, tip):
            carried = tuple(
                dataclasses.replace(run, base=tip, carried=True)
                for run in train.runs
                if run.base == train.base
            )
            return dataclasses.replace(train, base=tip, runs=(*train.runs, *carried))
        self.ctx.say(f"Merge train: {self.ctx.base} moved to {tip[:7]}; testing on it.")
        return dataclasses.replace(train, base=tip)

    def documents_only(self, old: str, new: str) -> bool:
        """Whether ``new`` is ``old`` with commits that change only documents."""
        if not self.git.is_ancestor(old, new):
            return False
        changed = self.git.git("diff", "--name-only", old, new, what="list what the base changed")
        return all(path.startswith(DOCUMENTS) for path in changed.splitlines())

    # -- building and testing a prefix --------------------------------------------------

    def build(self, train: Train, cars: Sequence[int]) -> list[str] | int:
        """The commits of ``cars`` merged onto the train's base in order, one per car;
        or the first car that does not merge onto those before it."""
        built: list[str] = []
        at = train.base
        for pr in cars:
            car = train.car(pr)
            commit = self.git.merged_onto(
                at,
                car.head,
                f"Merge pull request #{pr} (merge train)",
                squash=self.strategy is MergeStrategy.SQUASH,
            )
            if commit is None:
                return pr
            built.append(commit)
            at = commit
        return built

    def test(self, batch: MergeBatch, train: Train, step: TestCars) -> Train:
        built = self.build(train, step.cars)
        if isinstance(built, int):
            before = step.cars[: step.cars.index(built)]
            on = f" on top of {_numbers(before)}" if before else ""
            reason = f"Pull request #{built} does not merge onto {self.ctx.base}{on}."
            self.ctx.say(f"Merge train: #{built} conflicts with {self.ctx.base}{on}: left out.")
            return after_conflict(train, built, reason)
        again = " again" if step.retry else ""
        self.ctx.say(
            f"Merge train: testing {_numbers(step.cars)} on {self.ctx.base}{again} "
            f"(run {train.test_runs + 1})."
        )
        started = time.monotonic()
        with self.ctx.worktrees.scratch(f"train-{batch.id}", self.ctx.base, at=built[-1]) as path:
            after_create(self.ctx, path)
            tests = project_tests(self.ctx, path)
        seconds = round(time.monotonic() - started, 2)
        # Redacted already (run_tests): it is kept, shown and sent to the builder.
        summary = "" if tests.passed else (tests.output or tests.tail)[-_SUMMARY_CHARS:]
        verdict = "pass" if tests.passed else "fail"
        self.ctx.say(f"Merge train: the tests {verdict} with {_numbers(step.cars)}.")
        run = TestRun(step.cars, train.base, tests.passed, summary, seconds)
        return after_test(train, run)

    # -- landing ------------------------------------------------------------------------

    def land(self, batch: MergeBatch, train: Train, step: LandCars) -> Train:
        """Land the prefix car by car, the record saved after each; stops early (the
        rest tested again) when the base moved or the host refused."""
        if self.tip() != train.base:
            return self.on_current_base(train)
        built = self.build(train, step.cars)
        assert not isinstance(built, int)  # it was tested so
        trees = [self.git.tree_of(commit) for commit in built]
        for pr, tree in zip(step.cars, trees, strict=True):
            before = train.base
            if self.tip() != before:
                return self.on_current_base(train)
            car = train.car(pr)
            prefix = _numbers(step.cars[: step.cars.index(pr) + 1])
            passed = f"The tests pass on {self.ctx.base} with {prefix} merged (a merge train)."
            self.record_check(pr, car.head, passed=True, summary=passed)
            merged = self._merge(car)
            if isinstance(merged, str):  # left out; the rest is tested again without it
                return after_conflict(train, pr, merged)
            tip = self.tip()
            train = after_landing(train, (pr,), tip)
            tested = self.git.tree_of(tip) == tree
            if not tested:
                # Not what was tested: what the train knew of this base no longer holds.
                self.ctx.say(
                    f"Merge train: {self.ctx.base} after #{pr} is not the tree tested; "
                    "testing the rest again."
                )
                train = dataclasses.replace(
                    train, runs=tuple(r for r in train.runs if not (r.carried and r.base == tip))
                )
            batch = self.save(batch, train)
            self._landed(merged, before)
            if not tested:
                return train
        self.ctx.say(f"Merge train: landed {_numbers(step.cars)} on {self.ctx.base}.")
        return train

    def _merge(self, car: Car) -> PullRequest | str:
        """The merged pull request, or why it was not merged: its branch moved since it
        was judged, or it no longer merges (its own task looks at it again)."""
        try:
            return self.host.merge_pull_request(car.pr, self.strategy, expected_head=car.head)
        except TrackerError as error:
            now = self.host.get_pull_request(car.pr)
            if now.state is PullRequestState.MERGED:  # it landed, whatever the answer said
                self.host.settle_merged(now.number)
                return now
            if isinstance(error, HeadMoved | MergeConflict):
                self.ctx.say(f"Merge train: #{car.pr} did not merge ({error}): left out.")
                return f"Pull request #{car.pr} did not merge: {error}"
            raise

    def _landed(self, merged: PullRequest, before: str) -> None:
        rider = self.riders.get(merged.number)
        if merged.merge_commit:
            by_person = rider.by_person if rider is not None else False
            record_ralph_merge(
                self.ctx.project.config,
                self.store,
                merged.merge_commit,
                before=before,
                by_person=by_person,
            )
        self.finish(merged)

    def finish(self, merged: PullRequest) -> None:
        """What follows a landed car for its issues, and its own task woken to see it."""
        rider = self.riders.get(merged.number)
        if rider is None or not rider.members:
            return  # the conductor's own: its merge phase finishes it
        finish_merged(self.ctx, merged, rider.members)
        if rider.task_id is not None:
            self.store.wake([rider.task_id])

    def record_check(self, number: int, head: str, *, passed: bool, summary: str) -> None:
        """The required check ``test`` on the car's head, where Ralph runs the checks:
        the train's run on what lands is that check (a head pushed to since has none)."""
        if not self.host.runs_own_checks:
            return
        pr = self.host.get_pull_request(number)
        if pr.state is not PullRequestState.OPEN or pr.head_oid != head:
            return
        conclusion = CheckConclusion.SUCCESS if passed else CheckConclusion.FAILURE
        check = CheckRun(name=TEST_CHECK, conclusion=conclusion, required=True, summary=summary)
        self.host.record_check(number, check)

    # -- sending back -------------------------------------------------------------------

    def reject(self, train: Train, step: RejectCar) -> Train:
        rejection = step.rejection
        after = f" on top of {_numbers(rejection.after)}" if rejection.after else ""
        self.ctx.say(f"Merge train: #{rejection.pr} breaks the tests{after}: sent back.")
        self.record_check(rejection.pr, rejection.head, passed=False, summary=rejection.reason)
        train = after_rejection(train, rejection)
        rider = self.riders.get(rejection.pr)
        if rider is not None and rider.task_id is not None:
            self.store.wake([rider.task_id])
        return train

    # -- driving ------------------------------------------------------------------------

    def drive(self, batch: MergeBatch, train: Train) -> Train:
        while True:
            step = next_train_step(train)
            if isinstance(step, TrainDone):
                self.save(batch, train, done=True)
                return train
            if isinstance(step, TestCars):
                moved = self.on_current_base(train)
                train = moved if moved is not train else self.test(batch, train, step)
            elif isinstance(step, LandCars):
                train = self.land(batch, train, step)
            else:
                train = self.reject(train, step)
            batch = self.save(batch, train)


def _numbers(prs: Sequence[int]) -> str:
    return ", ".join(f"#{pr}" for pr in prs)


def _gather(
    ctx: PhaseContext, own: PullRequest, own_members: Sequence[Issue], by_person: bool, limit: int
) -> list[_Rider]:
    """The conductor's own car, then the ready pull requests of the other merge tasks on
    its key by issue priority, then age."""
    task = ctx.task
    assert task is not None
    assert task.serial_key is not None
    assert own.head_oid is not None
    riders = [_Rider(Car(own.number, own.head_oid, _numbers_of(own_members)), (), None, by_person)]
    if limit <= 1:
        return riders
    repo = train_repo(task) or ""
    store = ctx.project.store
    candidates: list[tuple[tuple[int, float, int], _Rider]] = []
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


def _ready_rider(ctx: PhaseContext, repo: str, task: Task) -> _Rider | None:
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
    return _Rider(Car(pr.number, pr.head_oid, _numbers_of(members)), members, task.id, by_person)


def _resumed(conductor: _Conductor, train: Train) -> Train:
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
    """Finish the repository's batch whose conductor died, if there is one."""
    batch = ctx.project.store.unfinished_batch(repo)
    if batch is None:
        return None
    conductor = _Conductor(ctx, strategy)
    ctx.say(f"Merge train: taking over batch {batch.id}.")
    for car in Train.from_record(batch.train).pending:
        rider = _rider_of(ctx, car)
        if rider is not None:
            conductor.riders[car.pr] = rider
    train = _resumed(conductor, Train.from_record(batch.train))
    batch = conductor.save(batch, train)
    return conductor.drive(batch, train)


def _rider_of(ctx: PhaseContext, car: Car) -> _Rider | None:
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
    return _Rider(car, members, waiting.id if waiting else None, by_person)


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
    resume_batch(ctx, strategy, repo)
    now = ctx.code_host.get_pull_request(own.number)
    conductor = _Conductor(ctx, strategy)
    if now.state is not PullRequestState.OPEN or own.head_oid is None:
        return Train(conductor.tip(), ())  # landed with the batch taken over, or closed
    if now.head_oid != own.head_oid:
        return Train(conductor.tip(), ())  # pushed to meanwhile: judged again
    riders = _gather(ctx, own, own_members, by_person, ctx.project.config.merge_batch)
    conductor.riders = {rider.car.pr: rider for rider in riders}
    train = Train(conductor.tip(), tuple(rider.car for rider in riders))
    batch = ctx.project.store.open_batch(task.run_id, task.id, repo, train.to_record())
    if len(riders) > 1:
        ctx.say(f"Merge train: {_numbers([r.car.pr for r in riders])} ride batch {batch.id}.")
    return conductor.drive(batch, train)


def sent_back(ctx: PhaseContext, pr: PullRequest) -> Rejection | None:
    """The rejection of ``pr`` on its current head by a train, if one sent it back."""
    if pr.head_oid is None:
        return None
    repo = ctx.project.config.repo or ctx.project.git.path.name  # as its merge key names it
    found = ctx.project.store.rejection_of(repo, pr.number, pr.head_oid)
    return Rejection.from_record(found) if found is not None else None
