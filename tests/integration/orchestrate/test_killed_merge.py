"""A ``ralph hero`` killed while its merge runs (``kill -9``), or whose terminal was closed
(SIGHUP), does not hold back the merges of the repository's other runs: the next run's
merge takes the key over from a process that is gone at once, or waits only for the merge
a hung-up run finishes before it stops. Real processes, the real store, git and sandbox."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.demo._sample import SHOUT
from ralph.project import open_project
from ralph.tasks import EventKind, Task, TaskStore, open_store
from ralph.workflow import Estimate, WorkflowState

from ..cli_project import farewell_project
from ..conftest import ralph_process, spawn_ralph

pytestmark = pytest.mark.timeout(300)

#: How long the hung-up run's merge still takes once it heard SIGHUP (it finishes it).
HUNG_UP_MERGE_SECONDS = 6


def slow_check(seconds: int) -> str:
    """The demo's tests as the test command, sleeping first in a merge's test run only
    (its merge train's, in a scratch checkout ``train-N``; a required check run by hand,
    ``check-N``), so the merge holds its key that long; the implementation's test runs
    are not slowed."""
    tests = f"{sys.executable} -m unittest -q"
    return f'case "$(pwd)" in */check-*|*/train-*) sleep {seconds};; esac; {tests}'


def second_issue(repo: Path) -> int:
    """Another XS issue of the repository, on files of its own."""
    with open_project(load_config(repo)) as project:
        return project.tracker.create_issue(
            "Add a shout helper",
            body=f"Add `shout`.\n\n{SHOUT}\n",
            state=WorkflowState.RESEARCH_NEEDED,
            estimate=Estimate.XS,
        ).number


def store_of(repo: Path) -> TaskStore:
    return open_store(f"sqlite:///{repo / '.ralph' / 'ralph.db'}")


def merge_of(store: TaskStore, root: int) -> Task | None:
    for run in store.list_runs(root_issue=root):
        for task in store.list_tasks(run.id):
            if task.serial_key is not None:
                return task
    return None


def checking(repo: Path, root: int) -> bool:
    """The root's merge runs its tests."""
    with store_of(repo) as store:
        merge = merge_of(store, root)
    running = merge is not None and merge.status.value == "running"
    scratch = repo / ".ralph" / "scratch"
    return running and any([*scratch.glob("check-*"), *scratch.glob("train-*")])


def merge_wait(repo: Path, root: int) -> float:
    """Seconds from the moment the root's merge was ready (its dependencies done) to its
    claim: the time it waited for the key."""
    with store_of(repo) as store:
        merge = merge_of(store, root)
        assert merge is not None
        events = store.events(merge.run_id)
    ready = max(e.at for e in events if e.kind is EventKind.TASK_DONE and e.task_id in merge.deps)
    claimed = min(
        e.at
        for e in events
        if e.kind is EventKind.TASK_CLAIMED and e.task_id == merge.id and e.at >= ready
    )
    return claimed - ready


def wait_until(check, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


@pytest.mark.parametrize(
    ("stop", "check_seconds", "bound"),
    [
        # Gone at once: the next run takes the key over within a claim or two.
        (signal.SIGKILL, 600, 10.0),
        # The hung-up run finishes the merge in hand (Ctrl-C's first stop), then exits.
        (signal.SIGHUP, HUNG_UP_MERGE_SECONDS, HUNG_UP_MERGE_SECONDS + 10.0),
    ],
    ids=["kill-9", "hangup"],
)
def test_a_run_stopped_while_it_merges_holds_back_no_other_run_of_the_repository(
    tmp_path: Path, stop: signal.Signals, check_seconds: int, bound: float
) -> None:
    repo, first = farewell_project(tmp_path / "greet")
    second = second_issue(repo)
    hero = spawn_ralph(
        "hero", str(first), cwd=repo, env={"RALPH_TEST_COMMAND": slow_check(check_seconds)}
    )
    try:
        wait_until(lambda: checking(repo, first))
        hero.send_signal(stop)
        hero.communicate(timeout=60)
        other = ralph_process("hero", str(second), cwd=repo, timeout=150)
    finally:
        if hero.poll() is None:
            hero.kill()
            hero.communicate(timeout=30)
    if stop is signal.SIGHUP:
        # It ended as Ctrl-C ends a run: the merge in hand done (stopped, or succeeded
        # when the merge was its last task), nothing left holding the key.
        assert hero.returncode in (0, 130)
        with store_of(repo) as store:
            merge = merge_of(store, first)
        assert merge is not None
        assert merge.status.value == "done"
    assert other.returncode == 0, other.stdout + other.stderr
    assert "Outcome: succeeded" in other.stdout
    waited = merge_wait(repo, second)
    print(f"{stop.name}: the other run's merge waited {waited:.1f}s for the key")
    assert waited < bound
    if stop is signal.SIGKILL:
        # The killed run's merge waits for its run to be run again, and says so.
        shown = ralph_process("runs", "show", "1", cwd=repo)
        assert "waiting for: its run to be run again (its process, pid" in shown.stdout
        again = ralph_process("hero", str(first), cwd=repo, timeout=150)
        assert again.returncode == 0, again.stdout + again.stderr
        assert "Outcome: succeeded" in again.stdout
