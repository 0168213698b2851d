"""The project's workspace hooks: after_create runs once per worktree and its failure
fails the task with its last lines; a hook that hangs is killed at its timeout; the
failure of after_run or before_remove is reported, not fatal."""

from __future__ import annotations

import dataclasses
import time

from ralph.config import HookSettings
from ralph.phases import PhaseStatus
from ralph.runtimes.scripted import AgentFault
from ralph.workflow import WorkflowState as S

from .conftest import Sample

#: Where the hooks below count their runs: in the worktree, ignored by git.
COUNT = "hook-runs"


def with_hooks(sample: Sample, **hooks: object) -> None:
    config = dataclasses.replace(sample.project.config, hooks=HookSettings(**hooks))  # type: ignore[arg-type]
    sample.project = dataclasses.replace(sample.project, config=config)
    exclude = sample.repo.path / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    exclude.write_text(f"{exclude.read_text() if exclude.exists() else ''}/{COUNT}\n")


def planned(sample: Sample) -> int:
    number = sample.issue()
    sample.through(number, "research", "plan", "review")
    return number


def runs_in(sample: Sample, number: int) -> list[str]:
    counted = sample.repo.path / "worktrees" / f"GH-{number}" / COUNT
    return counted.read_text().split() if counted.exists() else []


def test_after_create_runs_once_per_worktree_not_again_when_it_is_reused(sample: Sample):
    with_hooks(sample, after_create=f"echo created >> {COUNT}", before_run=f"echo run >> {COUNT}")
    number = planned(sample)
    failed = sample.run(
        "implement", number, ("implement", AgentFault.FAIL), ("implement", AgentFault.FAIL)
    )
    assert failed.status is PhaseStatus.ESCALATED
    assert runs_in(sample, number) == ["created", "run", "run"]  # two attempts, one worktree
    sample.tracker.set_state(number, S.IN_PROGRESS.value, command="ralph_human")
    outcome = sample.run("implement", number)
    assert outcome.status is PhaseStatus.DONE, outcome.lines
    assert runs_in(sample, number) == ["created", "run", "run", "run"]
    assert f"Hook before_run (`echo run >> {COUNT}`) passed" in " ".join(outcome.lines)


def test_a_failing_after_create_fails_the_task_with_its_last_lines_and_runs_again_next_time(
    sample: Sample,
):
    with_hooks(sample, after_create="echo resolving; echo 'npm ERR! no lockfile' >&2; exit 3")
    number = planned(sample)
    outcome = sample.run("implement", number)
    assert outcome.status is PhaseStatus.FAILED
    command = sample.project.config.hooks.after_create
    assert outcome.error.startswith(
        f"hook after_create (`{command}`) in GH-{number} exited with 3; last lines:"
    )
    assert outcome.error.endswith("resolving\nnpm ERR! no lockfile")
    assert outcome.agent_runs == ()
    assert sample.state(number) is S.IN_PROGRESS  # released, nothing half-done
    with_hooks(sample, after_create=f"echo created >> {COUNT}")
    assert sample.run("implement", number).status is PhaseStatus.DONE
    assert runs_in(sample, number) == ["created"]  # the failed one never counted as done


def test_a_hook_that_hangs_is_killed_at_its_timeout_with_everything_it_started(sample: Sample):
    with_hooks(sample, after_create="sleep 60 & sleep 60", timeout_seconds=1)
    number = planned(sample)
    started = time.monotonic()
    outcome = sample.run("implement", number)
    assert time.monotonic() - started < 30
    assert outcome.status is PhaseStatus.FAILED
    assert f"in GH-{number} timed out" in outcome.error
    assert "Hook after_create (`sleep 60 & sleep 60`) timed out after 1s and was killed." in (
        outcome.lines
    )


def test_after_run_and_before_remove_failures_are_reported_not_fatal(sample: Sample):
    with_hooks(sample, after_run="echo cleanup failed; exit 1", before_remove="exit 2")
    number = planned(sample)
    implemented = sample.run("implement", number)
    assert implemented.status is PhaseStatus.DONE
    assert "Hook after_run (`echo cleanup failed; exit 1`) failed: cleanup failed" in (
        implemented.lines
    )
    sample.through(number, "pr")
    merged = sample.run("merge", number)
    assert merged.status is PhaseStatus.DONE
    assert "Hook before_remove (`exit 2`) failed." in merged.lines
    assert sample.state(number) is S.DONE


def test_a_hook_is_confined_to_its_worktree_as_the_tests_are(sample: Sample):
    outside = sample.repo.path / "worktrees" / "escaped"
    with_hooks(sample, after_create=f"touch {outside}")
    outcome = sample.run("implement", planned(sample))
    assert outcome.status is PhaseStatus.FAILED
    assert "Read-only file system" in outcome.error
    assert not outside.exists()


def test_what_after_run_leaves_is_removed_and_the_pull_request_opens(sample: Sample):
    with_hooks(sample, after_run="mkdir -p reports && echo '<testsuite/>' > reports/junit.xml")
    number = planned(sample)
    assert sample.run("implement", number).status is PhaseStatus.DONE
    worktree = sample.repo.path / "worktrees" / f"GH-{number}"
    assert not (worktree / "reports").exists()
    sample.through(number, "pr")
    assert sample.state(number) is S.IN_REVIEW
