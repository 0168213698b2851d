"""The merge train's conductor at work on one batch: each prefix built as it will land
(git's plumbing on the current base), tested in a scratch checkout, landed car by car
(the base's tree checked against the tree tested) or a car sent back; the record saved
after every step (``ralph.workflow``'s ``Train`` decides each step)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ralph.artifacts import DOCUMENTS_ROOT
from ralph.errors import TrackerError
from ralph.phases._branches import project_tests
from ralph.phases._context import PhaseContext
from ralph.phases._merged import finish_merged
from ralph.phases._train_locks import RiderLocks
from ralph.phases._worktree_hooks import after_create
from ralph.project import TEST_CHECK, record_ralph_merge
from ralph.tasks import BatchStatus, MergeBatch
from ralph.tracker import (
    CheckConclusion,
    CheckRun,
    Issue,
    MergeStrategy,
    PullRequest,
    PullRequestState,
)
from ralph.workflow import (
    Car,
    LandCars,
    RejectCar,
    TestCars,
    TestRun,
    Train,
    TrainDone,
    after_conflict,
    after_landing,
    after_rejection,
    after_test,
    next_train_step,
    numbered,
)

__all__ = ["DOCUMENTS", "Conductor", "Rider"]

#: Where Ralph's documents are: a base moved only there keeps what the train learned.
DOCUMENTS = DOCUMENTS_ROOT
#: The end of a failing run's output kept in the batch record (and in the builder's
#: feedback).
_SUMMARY_CHARS = 2000


@dataclass(frozen=True)
class Rider:
    """A car, with what landing it needs: its issues and its task."""

    car: Car
    #: The issues it closes, which the conductor finishes when it lands (none for the
    #: conductor's own: its merge phase finishes it).
    members: tuple[Issue, ...]
    task_id: int | None


class Conductor:
    """Drives one batch: builds, tests, lands and sends back as the train says."""

    def __init__(self, ctx: PhaseContext, strategy: MergeStrategy) -> None:
        self.ctx = ctx
        self.strategy = strategy
        self.git = ctx.project.git
        self.host = ctx.code_host
        self.store = ctx.project.store
        self.riders: dict[int, Rider] = {}
        #: How many conductors took this batch over (kept in its record): a batch whose
        #: takeover keeps failing is given up rather than holding the key for good.
        self.resumes = 0
        #: Each landed car's merge (its pull request, merge commit, the base before it,
        #: whether a person accepted its control files, whether it was finished), kept
        #: in the record: a conductor killed between the merge and recording it leaves
        #: that to the next one.
        self.landings: dict[int, dict[str, Any]] = {}
        #: The riders' issue locks, given back as each leaves the train.
        self.locks = RiderLocks(self.store, ctx.project.repo_name)
        #: Each car's head merged onto a commit (None: they conflict), by both.
        self.merged: dict[tuple[str, str], str | None] = {}
        #: Each car's merge commit message (``message``).
        self.messages: dict[int, str] = {}

    # -- the record ---------------------------------------------------------------------

    def save(self, batch: MergeBatch, train: Train, *, done: bool = False) -> MergeBatch:
        """Keep the train; refused (BatchRefused) once another conductor took the batch
        over, or the task was claimed again: this conductor then stops."""
        status = BatchStatus.DONE if done else None
        record = train.to_record()
        if self.resumes:
            record["resumes"] = self.resumes
        if self.landings:
            record["landings"] = list(self.landings.values())
        claim, task = self.ctx.claim, self.ctx.task
        return self.store.save_batch(
            batch.id,
            record,
            status,
            task_id=task.id if task is not None else None,
            token=claim.token if claim is not None else None,
        )

    def fence(self) -> None:
        """Raises LeaseLost when the task is no longer this worker's (its lease ran out,
        the task reaped and maybe claimed again: another conductor may hold the batch
        now). Asked before each test run and each merge."""
        if self.ctx.claim is not None:
            self.store.heartbeat(self.ctx.claim)

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
            moved = dataclasses.replace(train, base=tip)
            # A run counts there only while its cars still merge onto it (a car changing
            # the same document no longer does): tested again otherwise.
            carried = tuple(
                dataclasses.replace(run, base=tip, carried=True)
                for run in train.runs
                if run.base == train.base and not isinstance(self.build(moved, run.cars), int)
            )
            return dataclasses.replace(moved, runs=(*train.runs, *carried))
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
            key = (at, car.head)
            if key not in self.merged:  # the prefix tested is built once, not again to land
                self.merged[key] = self.git.merged_onto(
                    at, car.head, self.message(pr), squash=self.strategy is MergeStrategy.SQUASH
                )
            commit = self.merged[key]
            if commit is None:
                return pr
            built.append(commit)
            at = commit
        return built

    def message(self, pr: int) -> str:
        """The message of the commit merging ``pr``: the host's own where the commit
        built is the commit that lands (the local host), so that what lands is what was
        tested, not a copy made again; asked once per car."""
        if pr not in self.messages:
            own = self.host.merge_message(pr) if self.strategy is not MergeStrategy.REBASE else None
            self.messages[pr] = own or f"Merge pull request #{pr} (merge train)"
        return self.messages[pr]

    def left_out(self, train: Train, cars: Sequence[int], pr: int) -> Train:
        """``pr`` does not merge onto the base with the cars before it in ``cars``."""
        before = cars[: cars.index(pr)]
        on = f" on top of {numbered(before)}" if before else ""
        reason = f"Pull request #{pr} does not merge onto {self.ctx.base}{on}."
        self.ctx.say(f"Merge train: #{pr} conflicts with {self.ctx.base}{on}: left out.")
        return after_conflict(train, pr, reason)

    def test(self, batch: MergeBatch, train: Train, step: TestCars) -> Train:
        built = self.build(train, step.cars)
        if isinstance(built, int):
            return self.left_out(train, step.cars, built)
        again = " again" if step.retry else ""
        self.ctx.say(
            f"Merge train: testing {numbered(step.cars)} on {self.ctx.base}{again} "
            f"(run {train.test_runs + 1})."
        )
        self.fence()
        started = time.monotonic()
        with self.ctx.worktrees.scratch(f"train-{batch.id}", self.ctx.base, at=built[-1]) as path:
            after_create(self.ctx, path)
            tests = project_tests(self.ctx, path, scratch=True)
        seconds = round(time.monotonic() - started, 2)
        # Redacted already (run_tests): it is kept, shown and sent to the builder.
        summary = "" if tests.passed else (tests.output or tests.tail)[-_SUMMARY_CHARS:]
        verdict = "pass" if tests.passed else "fail"
        self.ctx.say(f"Merge train: the tests {verdict} with {numbered(step.cars)}.")
        run = TestRun(step.cars, train.base, tests.passed, summary, seconds)
        return after_test(train, run)

    # -- landing ------------------------------------------------------------------------

    def land(self, batch: MergeBatch, train: Train, step: LandCars) -> Train:
        """Land the prefix car by car, the record saved after each; stops early (the
        rest tested again) when the base moved or the host refused."""
        if self.tip() != train.base:
            return self.on_current_base(train)
        built = self.build(train, step.cars)
        if isinstance(built, int):  # no longer merges (a carried run): left out
            return self.left_out(train, step.cars, built)
        trees = [self.git.tree_of(commit) for commit in built]
        for pr, tree in zip(step.cars, trees, strict=True):
            before = train.base
            if self.tip() != before:
                return self.on_current_base(train)
            self.fence()
            car = train.car(pr)
            prefix = numbered(step.cars[: step.cars.index(pr) + 1])
            passed = f"The tests pass on {self.ctx.base} with {prefix} merged (a merge train)."
            self.record_check(pr, car.head, passed=True, summary=passed)
            merged = self._merge(car)
            if isinstance(merged, str):  # left out; the rest is tested again without it
                return after_conflict(train, pr, merged)
            self.ctx.merged[pr] = merged
            self.landings[pr] = {
                "pr": pr,
                "commit": merged.merge_commit or "",
                "before": before,
                "by_person": car.by_person,
                "finished": False,
            }
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
            self.landed(merged, before, by_person=car.by_person)
            batch = self.save(batch, train)
            if not tested:
                return train
        self.ctx.say(f"Merge train: landed {numbered(step.cars)} on {self.ctx.base}.")
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
            # Its branch moved, it no longer merges, or the host will not merge it now
            # (blocked, behind a base that must be up to date): its own task judges it.
            self.ctx.say(f"Merge train: #{car.pr} did not merge ({error}): left out.")
            return f"Pull request #{car.pr} did not merge: {error}"

    def landed(self, merged: PullRequest, before: str, *, by_person: bool) -> None:
        """Ralph's merge recorded (what the control-file guard trusts) and the car
        finished, once."""
        landing = self.landings.get(merged.number)
        if landing is not None and landing["finished"]:
            return
        if merged.merge_commit:
            record_ralph_merge(
                self.ctx.project.config,
                self.store,
                merged.merge_commit,
                before=before,
                by_person=by_person,
            )
        self.finish(merged)
        if landing is not None:
            landing["finished"] = True

    def finish(self, merged: PullRequest) -> None:
        """What follows a landed car for its issues, and its own task woken to see it."""
        rider = self.riders.get(merged.number)
        if rider is None or not rider.members:
            return  # the conductor's own: its merge phase finishes it
        finish_merged(self.ctx, merged, rider.members)
        self.locks.give_back(merged.number)
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
        after = f" on top of {numbered(rejection.after)}" if rejection.after else ""
        self.ctx.say(f"Merge train: #{rejection.pr} breaks the tests{after}: sent back.")
        self.record_check(rejection.pr, rejection.head, passed=False, summary=rejection.reason)
        train = after_rejection(train, rejection)
        rider = self.riders.get(rejection.pr)
        self.locks.give_back(rejection.pr)
        if rider is not None and rider.task_id is not None:
            self.store.wake([rider.task_id])
        return train

    # -- driving ------------------------------------------------------------------------

    def drive(self, batch: MergeBatch, train: Train) -> Train:
        """Run the batch to its end; the riders' locks given back whatever happens."""
        try:
            return self._drive(batch, train)
        finally:
            self.locks.give_back_all()

    def _drive(self, batch: MergeBatch, train: Train) -> Train:
        while True:
            self.locks.refresh()
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
