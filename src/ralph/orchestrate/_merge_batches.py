"""The merge batches a run's report shows, and the words for each: the trains that
concern the run (conducted by one of its tasks, or carrying a pull request of one of
its issues), each said in a line or two: who rode it, how many test runs it took, what
landed, which change broke it and why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ralph._reason import one_line
from ralph._text import short_line
from ralph.tasks import MergeBatch, Run, Task, TaskStore

__all__ = ["BatchWords", "batch_words", "run_batches"]

#: The most of a reason a batch's words keep: the whole reason is in ``ralph runs show
#: --json`` and in the feedback its builder got.
WHY_LIMIT = 200


def run_batches(store: TaskStore, run: Run, tasks: Sequence[Task]) -> tuple[MergeBatch, ...]:
    """The batches conducted in ``run`` or carrying a pull request of one of ``tasks``'
    issues (a train of another run that took this run's change along), oldest first."""
    issues = {number for task in tasks for number in task.issues}
    return tuple(
        batch
        for batch in store.batches(since=run.created_at)
        if batch.run_id == run.id
        or any(issues.intersection(member["issues"]) for member in batch.members)
    )


@dataclass(frozen=True)
class BatchWords:
    """One merge batch for people: its name, who rode it, its test runs, its outcome,
    and why each change that did not land was left out (one line each)."""

    title: str
    riders: str
    tests: str
    outcome: str
    why: tuple[str, ...]

    @property
    def lines(self) -> tuple[str, ...]:
        """The terminal's line or two."""
        return (f"{self.title}: {self.riders}; {self.tests}; {self.outcome}", *self.why)


def _why(reason: str) -> str:
    """The reason's first line, and the line of the failing output that says what
    failed when the first line introduces it."""
    return short_line(one_line(reason), WHY_LIMIT)


def batch_words(batch: MergeBatch, run_id: int | None = None) -> BatchWords:
    """``batch`` in words; ``run_id``: the run whose report says it (a batch another run
    conducted names that run)."""
    title = f"Merge batch {batch.id} ({short_line(batch.repo, 80)})"
    if run_id is not None and batch.run_id != run_id:
        title += f", run {batch.run_id}'s"
    riders = ", ".join(
        f"#{m['pr']}" + (f" for {', '.join(f'#{n}' for n in m['issues'])}" if m["issues"] else "")
        for m in batch.members
    )
    runs = batch.runs
    seconds = sum(run["seconds"] for run in runs)
    tests = f"{batch.test_runs} test run{'' if batch.test_runs == 1 else 's'}"
    if seconds:
        minutes, rest = divmod(round(seconds), 60)
        tests += f" ({f'{minutes}m{rest:02d}s' if minutes else f'{seconds:.1f}s'})"
    why = tuple(
        f"#{r['pr']} {'left out (conflict)' if r['conflict'] else 'broke it'}: {_why(r['reason'])}"
        for r in batch.rejected
    )
    return BatchWords(title, riders or "no pull requests", tests, batch.outcome, why)
