"""The merge train on a (fake) GitHub over HTTP: the same train as on the local host,
the base fetched from GitHub before each step and the pull requests merged there."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date

import pytest

from ralph.config import MergeWaitSettings, load_config
from ralph.phases import PhaseContext
from ralph.phases._address import AddressPhase
from ralph.project import open_project
from ralph.workflow import WorkflowState

from ..github.conftest import ralph_on_the_board
from .scenario import Scenario, slow_tests

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@contextmanager
def train_on_github(shop, monkeypatch) -> Iterator[Scenario]:
    """A merge scenario on the (fake) GitHub board, its test command quick."""
    work, _origin, served = shop
    for name, value in ralph_on_the_board(work, served).items():
        monkeypatch.setenv(name, value)
    with open_project(load_config(work)) as project:
        scenario = Scenario(project, work)
        scenario.configure(
            test_command=slow_tests(0.2),
            merge=MergeWaitSettings(wait_seconds=0.1, max_wait_seconds=0.5),
        )
        scenario.start = project.git.resolve("refs/heads/main")
        yield scenario


def test_ready_pull_requests_on_github_land_as_one_train(shop, monkeypatch) -> None:
    with train_on_github(shop, monkeypatch) as scenario:
        for _ in range(3):
            scenario.add_change("ok")
        run = scenario.run_merges()
        assert set(scenario.statuses(run).values()) == {"done"}
        assert [scenario.state(c) for c in scenario.changes] == [WorkflowState.DONE] * 3
        (batch,) = scenario.batches()
        assert batch.test_runs == 1
        assert sorted(batch.train["landed"]) == sorted(c.pr for c in scenario.changes)
        scenario.project.git.fast_forward_from("main")
        assert all(scenario.on_base(c) for c in scenario.changes)


def test_a_change_sent_back_on_github_has_the_trains_failure_to_address(shop, monkeypatch) -> None:
    """GitHub's checks come from its CI, so the train cannot record its failed run as one:
    the builder's address round gets the train's reason instead of "no feedback"."""
    with train_on_github(shop, monkeypatch) as scenario:
        project = scenario.project
        scenario.add_change("ok")
        bad = scenario.add_change("breaks")
        run = scenario.run_merges()
        assert scenario.statuses(run)[f"address:{bad.issue}"] == "pending"
        issue = project.tracker.get_issue(bad.issue)
        feedback = AddressPhase().feedback(PhaseContext(project, date(2026, 12, 7)), [issue])
        (train,) = [f for f in feedback if f.where == "the merge train"]
        assert "change 2 breaks the tests" in train.text
