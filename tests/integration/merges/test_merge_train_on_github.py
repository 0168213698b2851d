"""The merge train on a (fake) GitHub over HTTP: the same train as on the local host,
the base fetched from GitHub before each step and the pull requests merged there."""

from __future__ import annotations

import pytest

from ralph.config import MergeWaitSettings, load_config
from ralph.project import open_project
from ralph.workflow import WorkflowState

from ..github.conftest import ralph_on_the_board
from .scenario import Scenario, slow_tests

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_ready_pull_requests_on_github_land_as_one_train(shop, monkeypatch) -> None:
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
        for _ in range(3):
            scenario.add_change("ok")
        run = scenario.run_merges()
        assert set(scenario.statuses(run).values()) == {"done"}
        assert [scenario.state(c) for c in scenario.changes] == [WorkflowState.DONE] * 3
        (batch,) = scenario.batches()
        assert batch.test_runs == 1
        assert sorted(batch.train["landed"]) == sorted(c.pr for c in scenario.changes)
        project.git.fast_forward_from("main")
        assert all(scenario.on_base(c) for c in scenario.changes)
