"""The merge train killed (SIGKILL, what ``kill -9`` sends) mid-batch, mid-bisection and
mid-landing, then the same ``ralph loop`` run again: every good change is merged once,
nothing is Done that the base branch does not hold, and the change that breaks the tests
goes back to its builder. Real processes, the real store, git and the sandbox; eight
ready XS changes, the fourth of which breaks the tests."""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ralph.tasks import MergeBatch

from ..conftest import ralph_process, spawn_ralph
from ..orchestrate.test_team import wait_until
from .landed import assert_landed_once
from .looped import loop_args, marked_tests, only_the_changes, under_test
from .scenario import Scenario, merge_scenario

pytestmark = pytest.mark.timeout(300)

#: The fourth breaks the tests: a batch with it fails (twice: it is retried once) and is
#: halved until it is found.
KINDS = ("ok", "ok", "ok", "breaks", "ok", "ok", "ok", "ok")
CRASHING = Path(__file__).parents[1] / "orchestrate" / "crashing_ralph.py"
_MERGE = "ralph.tracker.local._pulls.LocalCodeHost.merge_pull_request"
#: A failing batch is retried once before it is halved.
FAILED_BEFORE_BISECTION = 2


@pytest.fixture
def scenario(tmp_path: Path) -> Iterator[Scenario]:
    with merge_scenario(tmp_path / "greet", KINDS) as made:
        yield only_the_changes(made)


def killed_when(scenario: Scenario, seconds: float, point: Callable[[], bool]) -> None:
    """``ralph loop`` over the ready changes, each test run taking ``seconds``, killed
    once ``point()`` holds."""
    repo = scenario.folder
    loop = spawn_ralph(
        *loop_args(scenario), cwd=repo, env={"RALPH_TEST_COMMAND": marked_tests(seconds)}
    )
    try:
        wait_until(lambda: point() or loop.poll() is not None, 150)
        assert loop.poll() is None, "the train ended before the kill point"
        loop.send_signal(signal.SIGKILL)
        loop.communicate(timeout=30)
    finally:
        if loop.poll() is None:
            loop.kill()
            loop.communicate(timeout=30)
    assert loop.returncode == -signal.SIGKILL


def dead_train(scenario: Scenario) -> MergeBatch:
    """The batch the killed conductor left running (the rerun takes it over)."""
    batch = scenario.project.store.unfinished_batch(scenario.serial_key.removeprefix("merge:"))
    assert batch is not None, [b.outcome for b in scenario.batches()]
    return batch


def failed_runs(batch: MergeBatch) -> int:
    return sum(not run["passed"] for run in batch.runs)


def rerun_lands_once(scenario: Scenario) -> None:
    again = ralph_process(
        *loop_args(scenario),
        cwd=scenario.folder,
        env={"RALPH_TEST_COMMAND": marked_tests(0.5)},
        timeout=200,
    )
    # The bad change waits for a person once its builder could not fix it (the
    # simulated agent fixes nothing): exit 1, as the loop says.
    assert again.returncode == 1, again.stdout + again.stderr
    assert_landed_once(scenario)


def test_a_train_killed_while_its_batch_is_tested_lands_every_good_change_once(scenario):
    killed_when(scenario, 60, lambda: under_test(scenario.folder))
    batch = dead_train(scenario)
    assert len(batch.members) > 1, batch.members
    assert (batch.test_runs, batch.landed) == (0, [])
    rerun_lands_once(scenario)


def test_a_train_killed_mid_bisection_lands_every_good_change_once(scenario):
    found: list[float] = []

    def bisecting() -> bool:
        # Once the batch failed and its retry did, the next test run is a bisection's.
        failed = sum(failed_runs(b) for b in scenario.batches())
        if not found and failed >= FAILED_BEFORE_BISECTION:
            found.append(time.time())
        return bool(found) and under_test(scenario.folder, since=found[0])

    killed_when(scenario, 1, bisecting)
    batch = dead_train(scenario)
    assert failed_runs(batch) >= FAILED_BEFORE_BISECTION, batch.runs
    assert batch.landed == [], batch.landed
    rerun_lands_once(scenario)


def test_a_train_killed_after_a_car_landed_lands_every_good_change_once(scenario):
    # The crash comes right after the host merged the second car of a landing, before
    # anything else of it (its issues moved, the record saved).
    crashed = ralph_process(
        *loop_args(scenario),
        cwd=scenario.folder,
        env={"RALPH_TEST_COMMAND": marked_tests(1)},
        timeout=200,
        command=(sys.executable, str(CRASHING), f"after:{_MERGE}:2"),
    )
    assert crashed.returncode == -signal.SIGKILL, crashed.stdout + crashed.stderr
    dead_train(scenario)
    assert len(scenario.merged()) == 2
    rerun_lands_once(scenario)
