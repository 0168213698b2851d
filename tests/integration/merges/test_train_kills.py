"""The merge train killed (SIGKILL, what ``kill -9`` sends) mid-batch, mid-bisection and
mid-landing, then the same ``ralph loop`` run again: every good change is merged once,
nothing is Done that the base branch does not hold, and the bad change goes back to its
builder. Real processes, the real store, git and the sandbox; eight ready XS changes,
the fourth of which breaks the tests."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.project import TEST_CHECK, open_project
from ralph.tasks import TaskStore
from ralph.tracker import CheckConclusion

from ..conftest import ralph_process, spawn_ralph
from ..orchestrate.test_team import wait_until
from .landed import assert_landed_once
from .ready import MARKER, ReadyChanges, ready_changes, slow_tests

pytestmark = pytest.mark.timeout(300)

CHANGES = 8
#: The bad change comes after three good ones: a batch of all eight fails, and the
#: bisection lands the three before it.
BAD = 3
LOOP = ("loop", "--max-roots", str(CHANGES))
CRASHING = Path(__file__).parents[1] / "orchestrate" / "crashing_ralph.py"
_MERGE = "ralph.tracker.local._pulls.LocalCodeHost.merge_pull_request"
#: The rerun's test command: quick, the run has eight changes to land.
QUICK_TESTS = slow_tests(0.5)
#: A batch that failed is retried once before it is halved; one pull request at a time,
#: the bad one's own failure comes first.
FAILED_BEFORE_BISECTION = 2 if hasattr(TaskStore, "batches") else 1


@pytest.fixture
def ready(tmp_path: Path) -> ReadyChanges:
    return ready_changes(tmp_path / "greet", CHANGES, bad={BAD})


def under_test(repo: Path, since: float = 0.0) -> bool:
    """A test run is under way in a checkout of the train's, begun at ``since`` or
    after (its marker's time)."""
    for marker in (repo / ".ralph" / "scratch").glob(f"*/{MARKER}"):
        try:
            if marker.stat().st_mtime >= since:
                return True
        except FileNotFoundError:  # that run just ended
            continue
    return False


def failed_test_runs(repo: Path) -> int:
    """Test runs that failed so far: those of the train's batch records; one pull request
    at a time, the failed required checks."""
    with open_project(load_config(repo)) as project:
        batches = getattr(project.store, "batches", None)
        if batches is not None:
            return sum(not run["passed"] for b in batches() for run in b.train["runs"])
        return sum(
            check.name == TEST_CHECK and check.conclusion is CheckConclusion.FAILURE
            for pr in project.code_host.list_pull_requests()
            for check in pr.checks
        )


def killed_when(ready: ReadyChanges, seconds: float, point) -> None:
    """``ralph loop`` over the ready changes, each test run taking ``seconds``, killed
    once ``point(repo)`` holds."""
    loop = spawn_ralph(*LOOP, cwd=ready.repo, env={"RALPH_TEST_COMMAND": slow_tests(seconds)})
    try:
        wait_until(lambda: point(ready.repo) or loop.poll() is not None, 150)
        assert loop.poll() is None, "the train ended before the kill point"
        loop.send_signal(signal.SIGKILL)
        loop.communicate(timeout=30)
    finally:
        if loop.poll() is None:
            loop.kill()
            loop.communicate(timeout=30)
    assert loop.returncode == -signal.SIGKILL


def rerun_lands_once(ready: ReadyChanges) -> None:
    again = ralph_process(
        *LOOP, cwd=ready.repo, env={"RALPH_TEST_COMMAND": QUICK_TESTS}, timeout=200
    )
    # The bad change waits for a person once its builder could not fix it (the
    # simulated agent fixes nothing): exit 1, as the loop says.
    assert again.returncode == 1, again.stdout + again.stderr
    assert_landed_once(ready)


def test_a_train_killed_while_its_batch_is_tested_lands_every_good_change_once(ready):
    killed_when(ready, 60, under_test)
    rerun_lands_once(ready)


def test_a_train_killed_mid_bisection_lands_every_good_change_once(ready):
    found: list[float] = []

    def bisecting(repo: Path) -> bool:
        # Once the batch failed (and its retry did), the next test run is a bisection's.
        if not found and failed_test_runs(repo) >= FAILED_BEFORE_BISECTION:
            found.append(time.time())
        return bool(found) and under_test(repo, since=found[0])

    killed_when(ready, 1, bisecting)
    rerun_lands_once(ready)


def test_a_train_killed_after_a_car_landed_lands_every_good_change_once(ready):
    # The crash comes right after the host merged the second car, before anything else.
    crashed = ralph_process(
        *LOOP,
        cwd=ready.repo,
        env={"RALPH_TEST_COMMAND": slow_tests(1)},
        timeout=200,
        command=(sys.executable, str(CRASHING), f"after:{_MERGE}:2"),
    )
    assert crashed.returncode == -signal.SIGKILL, crashed.stdout + crashed.stderr
    rerun_lands_once(ready)
