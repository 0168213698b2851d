"""The merge train on a (fake) GitLab over HTTP beside the local tracker: the same train
as on the local host, the merge requests merged by GitLab."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.config import MergeWaitSettings, load_config
from ralph.demo import create_demo_project
from ralph.gitlab.fake import FakeGitLab
from ralph.project import open_project
from ralph.workflow import WorkflowState

from .scenario import Scenario, slow_tests

pytestmark = pytest.mark.timeout(300)

TOKEN = "glpat-merge-train-token"


def test_ready_merge_requests_on_gitlab_land_as_one_train(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = create_demo_project(tmp_path / "greet")
    fake = FakeGitLab()
    fake.add_token(TOKEN, "ralph")
    fake.add_project("acme/greet", repository=repo)
    monkeypatch.setenv("RALPH_GITLAB_TOKEN", TOKEN)
    with fake.serve() as url:
        toml = repo / "ralph.toml"
        text = toml.read_text().replace('code_host = "local"', 'code_host = "gitlab"')
        toml.write_text(f'{text}\n[gitlab]\nproject = "acme/greet"\nurl = "{url}"\n')
        with open_project(load_config(repo)) as project:
            assert project.code_host.kind == "gitlab"
            scenario = Scenario(project, repo)
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
            assert all(scenario.on_base(c) for c in scenario.changes)
